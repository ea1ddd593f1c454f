"""`tfport graph inspect` / `convert` from the command line: JSON and text reports, exit 2
and one line on bad input, no TensorFlow import. The inputs are those of the in-process
checks (tests/unit/graph/test_graph_inspect.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from graph_helpers import error_lines, run_cli
from tests.unit.graph.test_graph_inspect import BAD, _bad_inputs, expected

__all__ = ["expected"]  # the fixture, shared with the in-process checks


def test_inspect_cli_json(frozen_dir, expected):
    proc = run_cli("graph", "inspect", frozen_dir / "frozen.pb", "--json")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["graphs"][0]["outputs"] == expected["outputs"]


def test_inspect_never_imports_tensorflow(frozen_dir):
    code = (
        "import sys\n"
        "from tfport.cli._main import main\n"
        f"assert main(['graph', 'inspect', {str(frozen_dir / 'frozen.pbtxt')!r}]) == 0\n"
        f"assert main(['graph', 'inspect', {str(frozen_dir / 'saved_model_v1')!r}, '--json'])"
        " == 0\n"
        "bad = sorted(m for m in sys.modules if m == 'tensorflow' or m.startswith('tensorflow.'))\n"
        "assert not bad, bad[:5]\n"
        "print('NO_TF')\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "NO_TF" in proc.stdout


@pytest.mark.parametrize("kind", BAD)
def test_bad_input_cli_exit_2_one_line(tmp_path, frozen_dir, kind):
    path = _bad_inputs(tmp_path, frozen_dir)[kind]
    proc = run_cli("graph", "inspect", path)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines == error_lines(proc.stderr), proc.stderr
    assert "Traceback" not in proc.stderr and "Received:" in lines[0]


def test_inspect_cli_text_for_people(frozen_dir):
    proc = run_cli("graph", "inspect", frozen_dir / "saved_model_v1" / "saved_model.pb")
    assert proc.returncode == 0, proc.stderr
    assert "signature serving_default" in proc.stdout and "[x=input:0]" in proc.stdout
    assert "variable hidden/kernel" in proc.stdout and "RestoreV2" in proc.stdout


@pytest.mark.parametrize("kind", BAD)
def test_bad_input_convert_exit_2_one_line(tmp_path, frozen_dir, kind):
    path = _bad_inputs(tmp_path, frozen_dir)[kind]
    out = tmp_path / "out"
    proc = run_cli("graph", "convert", path, out)
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("tfport: error:") and path.name in line
    assert not out.exists()
