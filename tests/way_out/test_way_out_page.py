"""docs/way-out.md runs as written: its export script (under tfport), then its plain Keras 3
prediction in a process that never imports tfport, with a string and a numeric feature; the
two print the same probabilities."""

from __future__ import annotations

import ast
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

PAGE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "way-out.md"
PLAIN_KERAS = "\n".join(
    ["import runpy, sys", 'runpy.run_path("predict.py")', 'assert "tfport" not in sys.modules']
)


def _python_blocks() -> list[str]:
    """The canned export's script and its plain Keras 3 prediction (the page's first two)."""
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), re.S)[:2]


def _run(args: list[str], cwd: pathlib.Path, env: dict) -> str:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def _printed(stdout: str, tag: str) -> np.ndarray:
    (line,) = [x for x in stdout.splitlines() if x.startswith(tag + " ")]
    return np.array(ast.literal_eval(line[len(tag) + 1 :]))


def test_the_page_has_the_export_and_the_plain_keras_blocks():
    export, predict = _python_blocks()
    assert "save_keras(" in export and "tfport" not in predict
    assert 'tf.constant([["red"]' in predict and 'dtype="float32"' in predict


@pytest.mark.slow
def test_the_page_exports_and_plain_keras_3_predicts_the_same(tmp_path):
    export, predict = _python_blocks()
    (tmp_path / "export.py").write_text(export)
    (tmp_path / "predict.py").write_text(predict)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    want = _printed(_run([sys.executable, "export.py"], tmp_path, env), "estimator")
    plain = {k: v for k, v in env.items() if k != "TF_USE_LEGACY_KERAS"}
    out = _run([sys.executable, "-c", PLAIN_KERAS], tmp_path, plain)
    got = _printed(out, "keras")
    assert want.shape == got.shape == (2, 2)
    np.testing.assert_allclose(got, want, atol=2e-5)
    assert {"probabilities", "logits", "class_ids", "classes"} <= set(
        ast.literal_eval(out.strip().splitlines()[-1])
    )
