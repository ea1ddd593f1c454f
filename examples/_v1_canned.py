"""Trains a v1 (tf.compat.v1.estimator) DNNClassifier: the checkpoint the converter example reads.

tfport run examples/_v1_canned.py MODEL_DIR
"""

import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402

est = tf.compat.v1.estimator.DNNClassifier(
    hidden_units=[16, 8],
    feature_columns=[tf.feature_column.numeric_column("x", shape=(4,))],
    n_classes=3,
    model_dir=sys.argv[1],
)
est.train(lambda: _data.train_input_fn()().map(lambda x, y: ({"x": x}, y)), max_steps=50)
print("trained", est.latest_checkpoint())
