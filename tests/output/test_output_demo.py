"""What `tfport demo` and `tfport.install()` show a person: no noise tfport causes."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from output_helpers import piped, user_env

from tfport.cli import _scenario

CPP_ERROR = re.compile(r"^E\d{4} ", re.M)


@pytest.mark.slow
def test_demo_output_is_clean_and_leaves_nothing_behind(tmp_path):
    proc = piped("demo", "--steps", "20", TMPDIR=str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "UserWarning" not in proc.stderr and "Warning:" not in proc.stderr, proc.stderr
    assert not CPP_ERROR.search(proc.stderr), proc.stderr
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("[tfport demo] starting")  # before TensorFlow's import
    assert all(line.startswith("[tfport demo] ") for line in lines), proc.stderr
    assert json.loads(proc.stdout)["global_step"] == 20.0
    assert list(tmp_path.iterdir()) == []  # the temporary model_dir is removed
    assert "removed the temporary" in lines[-1]
    assert "tensorboard --logdir" not in proc.stderr  # nothing kept to look at


def test_tensorboard_is_offered_only_when_installed(monkeypatch):
    found = {"tensorboard": None}
    monkeypatch.setattr(_scenario.importlib.util, "find_spec", lambda name: found[name])
    assert _scenario._tensorboard_hint("m") == "to view the summaries: pip install tensorboard"
    found["tensorboard"] = object()
    assert _scenario._tensorboard_hint("m") == "TensorBoard: tensorboard --logdir m"


def test_install_then_a_session_prints_no_cuda_error():
    code = (
        "import tfport; tfport.install(); import tensorflow as tf\n"
        "with tf.Graph().as_default() as g:\n"
        "    print(tf.compat.v1.Session(graph=g).run(tf.constant(3)))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=user_env()
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "3", proc.stderr
    assert not CPP_ERROR.search(proc.stderr), proc.stderr
    assert "UserWarning" not in proc.stderr
