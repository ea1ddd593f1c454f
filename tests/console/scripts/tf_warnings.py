"""Warnings and log lines of four origins, run under `tfport run` (issue 40)."""

import warnings

import tensorflow as tf

warnings.warn("user says: my own warning", UserWarning, stacklevel=1)
# Attributed to TensorFlow's own modules, as under mirrored:N (autograph calls the layer).
for module in ("tensorflow.python.autograph.impl.api", "tf_keras.src.legacy_tf_layers.core"):
    warnings.warn_explicit(f"notice from {module}", UserWarning, "api.py", 1, module=module)
with tf.Graph().as_default():
    tf.compat.v1.layers.dense(tf.ones([2, 3]), 2)  # TF's notice at this line, as on TF 2.15
tf.compat.v1.logging.warning("user says: a log line")
print("done")
