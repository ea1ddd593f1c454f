"""The first `make demo` says in one line what it installs; pip's output goes to a log, and
its end is shown when pip fails. Run on the Makefile's install recipe with a stand-in pip."""

from __future__ import annotations

import pathlib
import stat
import subprocess

REPO = pathlib.Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/bin/sh
# stands in for the venv's python: `-m pip install ...` prints pip-like noise
for i in $(seq 1 240); do echo "Collecting package-$i"; done
echo "pip arguments: $*"
exit {code}
"""


def _first_run(tmp_path: pathlib.Path, code: int) -> subprocess.CompletedProcess:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    python = venv / "bin" / "python"
    python.write_text(FAKE_PYTHON.format(code=code))
    python.chmod(python.stat().st_mode | stat.S_IXUSR)
    stamp = venv / ".tfport-installed"
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(REPO), f"VENV={venv}", str(stamp)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_first_run_prints_one_line_and_logs_pip(tmp_path):
    proc = _first_run(tmp_path, 0)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = (proc.stdout + proc.stderr).splitlines()
    assert len(lines) == 1, lines
    assert "installing TensorFlow 2.21" in lines[0] and "minutes" in lines[0]
    log = (tmp_path / "venv" / "install.log").read_text()
    assert log.count("Collecting package-") == 480  # both pip runs, whole
    assert "-e .[test,jax]" in log
    assert (tmp_path / "venv" / ".tfport-installed").exists()


def test_a_failing_pip_shows_the_end_of_its_log(tmp_path):
    proc = _first_run(tmp_path, 1)
    assert proc.returncode != 0
    assert "Collecting package-240" in proc.stdout and "pip failed" in proc.stdout
    assert "Collecting package-1\n" not in proc.stdout  # only the end
    assert not (tmp_path / "venv" / ".tfport-installed").exists()
