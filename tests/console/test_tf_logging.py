"""Issue 41: logging as TensorFlow 2.15 left it under `tfport run`: tfport sets no level,
handler or propagation of the `tensorflow` logger, so a library's INFO lines through its
own logger and through `tf.compat.v1.logging` show, and `set_verbosity` works as written.

The expected outputs are what the legacy stack (TF 2.15.1) printed for the same scripts
(`python tests/console/scripts/<script>` on the legacy venv, stdout and stderr together).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

SCRIPTS = pathlib.Path(__file__).parent / "scripts"
LEGACY = {
    "library_logging.py": [
        "ranklib INFO global step 1: lr=0.1, loss=0.5",
        "tensorflow INFO global step 2: lr=0.1, loss=0.4",
        "tensorflow WARNING a warning",
        "tensorflow logger: 0 True 0",
        "ranklib INFO global step 3: lr=0.1, loss=0.3",
    ],
    "tf_verbosity.py": [
        "tensorflow logger: 0 True 1",
        "WARNING:tensorflow:a warning before set_verbosity",
        "INFO:tensorflow:an info line after set_verbosity(INFO)",
    ],
}


@pytest.mark.slow
@pytest.mark.parametrize("script", list(LEGACY))
def test_tfport_run_logs_as_tf_2_15(script) -> None:
    env = dict(os.environ)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # tfport's own default, as a user gets it
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "run", str(SCRIPTS / script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = (proc.stdout + proc.stderr).splitlines()
    if script == "tf_verbosity.py":  # stdout and stderr apart: order within each
        lines = proc.stdout.splitlines() + proc.stderr.splitlines()
    assert lines == LEGACY[script]
