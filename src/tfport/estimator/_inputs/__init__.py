"""numpy / pandas input functions on tf.data (the legacy `tf.estimator.inputs`)."""
