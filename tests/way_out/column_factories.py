"""A custom model_fn over feature columns (numeric, bucketized, vocabulary, hashed,
crossed, embedding) through `tf.compat.v1.feature_column.input_layer`, for
`tfport keras export`; loaded as a script under tfport."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

COLORS = ["red", "green", "blue"]
CITIES = ["paris", "lima", "oslo", "kyiv", "rome", "cairo"]


def _columns(normalized: bool = False):
    fc = tf.feature_column
    age = fc.numeric_column("age", normalizer_fn=(lambda x: x / 50.0) if normalized else None)
    age_buckets = fc.bucketized_column(fc.numeric_column("age"), [25.0, 40.0, 60.0])
    color = fc.categorical_column_with_vocabulary_list("color", COLORS)
    city = fc.categorical_column_with_hash_bucket("city", 10)
    cross = fc.crossed_column([age_buckets, "color"], 12)
    return [
        age,
        age_buckets,
        fc.indicator_column(color),
        fc.embedding_column(color, 2, combiner="sum"),
        fc.embedding_column(city, 3),  # combiner 'mean' by default
        fc.embedding_column(cross, 2, combiner="sqrtn"),
    ]


def _model_fn(features, labels, mode, params):
    if params.get("keras"):  # a tf_keras DenseFeatures layer instead of input_layer
        import tf_keras

        net = tf_keras.layers.DenseFeatures(_columns())(features)
    else:
        net = tf.compat.v1.feature_column.input_layer(features, _columns(params["normalized"]))
    net = tf.compat.v1.layers.dense(net, 8, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(net, 2, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode, predictions={"logits": logits, "probabilities": tf.nn.softmax(logits)}
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.5)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def columns(model_dir):
    return tf.estimator.Estimator(_model_fn, model_dir=model_dir, params={"normalized": False})


def dense_features(model_dir):
    return tf.estimator.Estimator(
        _model_fn, model_dir=model_dir, params={"normalized": False, "keras": True}
    )


def normalized(model_dir):
    """The same model_fn with a normalizer_fn on `age` (no Keras form: refused)."""
    return tf.estimator.Estimator(_model_fn, model_dir=model_dir, params={"normalized": True})


def rows(seed: int, n: int = 32) -> tuple[dict, np.ndarray]:
    """Features (one value per example; 'purple' is out of the vocabulary) and labels."""
    rng = np.random.RandomState(seed)
    feats = {
        "age": rng.uniform(18, 80, n).astype("float32"),
        "color": rng.choice([*COLORS, "purple"], n),
        "city": rng.choice(CITIES, n),
    }
    return feats, (feats["age"] > 45).astype("int64")


def input_fn(feats: dict, labels: np.ndarray | None = None):
    def make():
        data = dict(feats) if labels is None else (dict(feats), labels)
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(8)
        return dataset if labels is None else dataset.repeat()

    return make
