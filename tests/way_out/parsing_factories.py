"""A model_fn that parses serialized tf.Examples itself (`tf.io.parse_example`), as
`tfport keras export` / `tfport verify` take it: SCRIPT:FACTORY(model_dir)."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

SPEC = {
    "x": tf.io.FixedLenFeature([3], tf.float32),
    "k": tf.io.FixedLenFeature([], tf.int64, default_value=1),
    "w": tf.io.FixedLenFeature([1], tf.float32, default_value=[0.5]),
}


def parsing_model_fn(features, labels, mode):
    parsed = tf.io.parse_example(features["examples"], SPEC)
    net = tf.concat([parsed["x"], tf.cast(parsed["k"], tf.float32)[:, None], parsed["w"]], 1)
    net = tf.compat.v1.layers.dense(net, 8, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(net, 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"probabilities": tf.nn.softmax(logits), "logits": logits}
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.compat.v1.train.AdamOptimizer(0.05).minimize(
        loss, tf.compat.v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def sparse_model_fn(features, labels, mode):
    """Parses a VarLenFeature: no Keras input (the refusal)."""
    parsed = tf.io.parse_example(features["examples"], {"ids": tf.io.VarLenFeature(tf.int64)})
    dense = tf.sparse.to_dense(parsed["ids"])
    return tf.estimator.EstimatorSpec(mode, predictions=tf.cast(dense, tf.float32))


def parsing(model_dir):
    return tf.estimator.Estimator(parsing_model_fn, model_dir=model_dir)


def sparse(model_dir):
    return tf.estimator.Estimator(sparse_model_fn, model_dir=model_dir)


def serialized(seed: int, n: int) -> np.ndarray:
    """n tf.Examples; every third lacks `k` and `w` (their defaults apply)."""
    rng = np.random.RandomState(seed)
    out = []
    for i in range(n):
        feature = {"x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=3)))}
        if i % 3:
            feature["k"] = tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 4]))
            w = tf.train.FloatList(value=[rng.uniform()])
            feature["w"] = tf.train.Feature(float_list=w)
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(example.SerializeToString())
    return np.array(out, dtype=object)


def train_input_fn():
    rows = serialized(0, 48)
    labels = np.arange(48) % 3
    return tf.data.Dataset.from_tensor_slices(({"examples": rows}, labels)).repeat().batch(16)
