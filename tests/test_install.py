"""`install()` returns a handle and `uninstall()` puts TensorFlow back as it was."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_install_then_uninstall_restores_tensorflow():
    code = textwrap.dedent(
        """
        import sys
        import tfport
        import tensorflow as tf
        layers_before = tf.compat.v1.layers
        had = hasattr(tf, "estimator")
        handle = tfport.install()
        assert handle.active and tfport.install() is handle
        assert tf.estimator.Estimator.__module__.startswith("tfport.")
        assert tf.compat.v1.estimator.tpu.TPUEstimator is not None
        assert "tensorflow_estimator" in sys.modules
        assert tfport.uninstall() is True and not handle.active
        assert not hasattr(tf, "estimator"), "tf.estimator still there"
        assert not hasattr(tf.compat.v1, "estimator")
        assert "tensorflow_estimator" not in sys.modules
        assert tf.compat.v1.layers is layers_before
        assert tfport.uninstall() is False
        print("ok", had)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip() == "ok False"
