"""Bad input to model_to_estimator under `tfport run`: a usage error, exit 2, one line
(the in-process checks: tests/unit/keras/test_errors.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap


def test_cli_reports_uncompiled_model_as_usage_error(tmp_path):
    script = tmp_path / "legacy.py"
    script.write_text(
        textwrap.dedent("""
        import tensorflow as tf
        model = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,))])
        tf.keras.estimator.model_to_estimator(keras_model=model, model_dir={model_dir!r})
    """).format(model_dir=str(tmp_path / "m"))
    )
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "run", str(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    assert "tfport: error:" in proc.stderr and "has not been compiled" in proc.stderr
    assert "Traceback" not in proc.stderr
