"""The docs' supported-API matrix is the API walk's current output."""

from __future__ import annotations

import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
DOCS = HERE.parents[1] / "docs" / "api-matrix.md"


def test_the_docs_matrix_is_current(tmp_path):
    out = tmp_path / "matrix.md"
    cmd = [sys.executable, str(HERE / "api_walk.py"), "--markdown", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.read_text() == DOCS.read_text(), "run `make docs` and commit docs/api-matrix.md"
    assert '"paths": 170' in proc.stdout
