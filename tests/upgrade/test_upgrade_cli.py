"""`tfport upgrade` end to end through a subprocess: exit codes, --json, --report, --diff."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest
from upgrade_helpers import src

LEGACY = src(
    """
    import tensorflow as tf

    est = tf.contrib.tpu.TPUEstimator(model_fn=None, use_tpu=False)
    x = tf.contrib.opt.LazyAdamOptimizer()
    """
)
MODERN = "import tensorflow as tf\n"


def run_cli(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tfport", "upgrade", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture()
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "src"
    root.mkdir()
    (root / "legacy.py").write_text(LEGACY)
    (root / "modern.py").write_text(MODERN)
    (root / "broken.py").write_text("x = (\n")
    return root


def test_out_json_report_exit_1_on_a_failed_file(tree, tmp_path) -> None:
    proc = run_cli("src", "--out", "up", "--report", "report.txt", "--json", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    doc = json.loads(proc.stdout)
    status = {pathlib.Path(f["path"]).name: f["status"] for f in doc["files"]}
    assert status == {
        "broken.py": "failed",
        "legacy.py": "needs manual work",
        "modern.py": "runs as is under tfport",
    }
    assert doc["summary"]["failed"] == 1 and doc["summary"]["needs_manual"] == 1
    assert doc["wrote"] is True
    legacy = next(f for f in doc["files"] if f["path"].endswith("legacy.py"))
    assert {"line": 4, "col": 4, "level": "ERROR"}.items() <= next(
        i for i in legacy["items"] if "LazyAdamOptimizer" in i["message"]
    ).items()
    # the upgraded file is checked too: its own position of the unresolved name
    assert [(u["line"], u["col"]) for u in legacy["unresolved"]] == [(7, 4)]
    upgraded = (tmp_path / "up" / "legacy.py").read_text()
    assert "tfport.estimator.tpu.TPUEstimator(" in upgraded
    assert upgraded.index("tfport.install()") < upgraded.index("import tensorflow as tf")
    assert not (tmp_path / "up" / "broken.py").exists()
    report = (tmp_path / "report.txt").read_text()
    assert "src/legacy.py:4:4: ERROR: 'tf.contrib.opt.LazyAdamOptimizer'" in report
    assert "up/legacy.py:7:4: ERROR: 'tf.contrib.opt.LazyAdamOptimizer' does not resolve" in report
    assert "src/broken.py:1:0: ERROR: failed: Syntax error" in report
    assert "1 failed" in proc.stderr

    again = run_cli("up", "--in-place", cwd=tmp_path)
    assert again.returncode == 1, again.stderr  # still a tf.contrib reference: never "0 failed"
    assert "0 changed, 1 runs as is under tfport, 1 needs manual work, 0 failed" in again.stderr
    assert (tmp_path / "up" / "legacy.py").read_text() == upgraded


def test_diff_writes_nothing(tree, tmp_path) -> None:
    before = {p.name: p.read_text() for p in tree.iterdir()}
    proc = run_cli("src/legacy.py", "src/modern.py", "--diff", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert "+est = tfport.estimator.tpu.TPUEstimator(model_fn=None, use_tpu=False)" in proc.stdout
    assert "src/legacy.py:4:4: ERROR:" in proc.stdout
    assert {p.name: p.read_text() for p in tree.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src"]


@pytest.mark.parametrize(
    "args,match",
    [
        (["missing.py", "--in-place"], "No such file or folder: missing.py"),
        (["src"], "Nowhere to write"),
        (["src", "--in-place", "--out", "x"], "not allowed with argument"),
        (["src", "--out", "src/inner"], "inside an input folder"),
        (["src", "--diff", "--report", "nodir/r.txt"], "does not exist"),
        (["src", "--diff", "--report", "src/modern.py"], "already exists"),
    ],
    ids=["missing", "nowhere", "both", "out_inside", "report_folder", "report_exists"],
)
def test_bad_usage_exits_2_with_one_line(tree, tmp_path, args, match) -> None:
    proc = run_cli(*args, cwd=tmp_path)
    assert proc.returncode == 2
    assert match in proc.stderr
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_parsing_the_command_line_imports_no_tensorflow() -> None:
    code = (
        "import sys\n"
        "from tfport.cli._main import build_parser\n"
        "args = build_parser().parse_args(['upgrade', 'a.py', '--diff'])\n"
        "assert args.func.__module__ == 'tfport.cli._upgrade'\n"
        "import tfport.upgrade\n"
        "assert 'tensorflow' not in sys.modules, 'TF imported'\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr


def test_a_tree_that_needs_nothing_says_so_and_is_copied_as_is(tmp_path) -> None:
    root = tmp_path / "ok"
    root.mkdir()
    code = "import tensorflow.compat.v1 as tf\nflags = tf.flags\ntf.logging.info('x')\n"
    (root / "a.py").write_text(code)
    proc = run_cli("ok", "--out", "up", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "nothing to upgrade, every file runs as is under tfport" in proc.stderr
    assert "1 file: 0 changed, 1 runs as is under tfport, 0 need manual work" in proc.stderr
    assert (tmp_path / "up" / "a.py").read_text() == code
