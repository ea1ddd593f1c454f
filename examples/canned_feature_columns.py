"""A canned estimator on feature columns: numeric, bucketized, vocabulary, crossed and an
embedding, with a parsing export for TF Serving.

    tfport run examples/canned_feature_columns.py OUT
"""

import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402

out = sys.argv[1]
fc = tf.feature_column
x = fc.numeric_column("x", shape=(4,))
x0 = fc.bucketized_column(fc.numeric_column("x0"), boundaries=[-1.0, 0.0, 1.0])
color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
crossed = fc.crossed_column([x0, color], hash_bucket_size=16)
est = tf.estimator.DNNLinearCombinedClassifier(
    model_dir=os.path.join(out, "m"),
    linear_feature_columns=[x0, color, crossed],
    dnn_feature_columns=[x, fc.embedding_column(color, dimension=2)],
    dnn_hidden_units=[16, 8],
    dnn_optimizer=tf.keras.optimizers.legacy.Adam(0.01),
    n_classes=3,
)


def features(rows):
    return {"x": _data.X[rows], "x0": _data.X[rows, 0], "color": _data.COLOR[rows]}


def train():
    data = (features(slice(0, 384)), _data.Y[:384])
    return tf.data.Dataset.from_tensor_slices(data).repeat().batch(32)


def evaluate():
    data = (features(slice(384, None)), _data.Y[384:])
    return tf.data.Dataset.from_tensor_slices(data).batch(32)


est.train(train, max_steps=100)
print("accuracy", est.evaluate(evaluate)["accuracy"])
spec = fc.make_parse_example_spec([x, x0, color])
receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
print("exported", est.export_saved_model(os.path.join(out, "export"), receiver).decode())
