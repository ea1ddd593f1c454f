"""Estimator factories whose model_fn has `tf.cond` and `tf.while_loop` in its forward pass,
as `tfport keras export control_factories.py:control MODEL_DIR OUT` takes them."""

from __future__ import annotations

import numpy as np
import tensorflow as tf


def control_model_fn(features, labels, mode):
    """Two `tf.cond`s on the batch (the first takes its true branch on any data, the second
    its false one; each branch reads its own kernel), a `tf.while_loop` applying one kernel
    3 times while summing, and one stopped by its data or `maximum_iterations`."""
    x = features["x"]
    net = tf.compat.v1.layers.dense(x, 8, activation=tf.tanh, name="hidden")
    w_a = tf.compat.v1.get_variable("branch_a/kernel", [8, 8])
    w_b = tf.compat.v1.get_variable("branch_b/kernel", [8, 8])
    net = tf.cond(
        tf.reduce_mean(tf.abs(x)) > 0.1,
        lambda: tf.nn.relu(tf.matmul(net, w_a)) + net,
        lambda: tf.tanh(tf.matmul(net, w_b)),
    )
    net = tf.cond(tf.reduce_max(tf.abs(x)) > 50.0, lambda: net * 2.0, lambda: tf.tanh(net - 0.5))
    step = tf.compat.v1.get_variable("step/kernel", [8, 8])

    def body(i, h, total):
        h = tf.tanh(tf.matmul(h, step) + h)
        return i + 1, h, total + tf.reduce_sum(h, axis=1, keepdims=True)

    start = [tf.constant(0), net, tf.zeros_like(net[:, :1])]
    _, net, total = tf.while_loop(lambda i, h, total: i < 3, body, start)
    (total,) = tf.while_loop(
        lambda s: tf.reduce_max(tf.abs(s)) < 1e4,
        lambda s: s * 1.5 + 0.1,
        [total],
        maximum_iterations=4,
    )
    logits = tf.compat.v1.layers.dense(tf.concat([net, total], 1), 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(0.01)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def control(model_dir):
    return tf.estimator.Estimator(control_model_fn, model_dir=model_dir)


def nested_control_model_fn(features, labels, mode):
    """A `tf.cond` inside a `tf.while_loop` body: refused (one level converts)."""
    x = tf.compat.v1.layers.dense(features, 4, name="hidden")

    def body(i, h):
        h = tf.cond(tf.reduce_sum(h) > 0, lambda: h * 0.5, lambda: h + 1.0)
        return i + 1, h

    _, net = tf.while_loop(lambda i, h: i < 2, body, [tf.constant(0), x])
    return tf.estimator.EstimatorSpec(mode, predictions={"net": net})


def refused_nested_control(model_dir):
    """Trained-graph inputs as the golden custom_v1_adam's (4 floats)."""
    return tf.estimator.Estimator(nested_control_model_fn, model_dir=model_dir)


def vectors(seed, n=32):
    rng = np.random.RandomState(seed)
    return {"x": rng.normal(size=(n, 6)).astype("float32")}, rng.randint(0, 3, n)


def train_and_predict(model_dir: str):
    """(estimator, prediction rows, its predictions) after 6 steps from scratch on MODEL_DIR."""
    from tfport.verify import load_estimator

    estimator = load_estimator(f"{__file__}:control", model_dir)
    features, labels = vectors(0)
    train = tf.compat.v1.estimator.inputs.numpy_input_fn(
        features, labels, batch_size=8, num_epochs=None, shuffle=False
    )
    estimator.train(train, steps=6)
    rows, _ = vectors(1, 16)
    predict = tf.compat.v1.estimator.inputs.numpy_input_fn(rows, shuffle=False)
    return estimator, rows, list(estimator.predict(predict))


def doubling_model_fn(features, labels, mode):
    """A one-variable loop and a two-output cond, no variables: their values are known."""
    (s,) = tf.while_loop(lambda s: tf.reduce_max(s) < 100.0, lambda s: s * 2.0 + 1.0, [features])
    a, b = tf.cond(tf.reduce_sum(features) > 0, lambda: (s, s + 1.0), lambda: (s - 1.0, s * 3.0))
    return tf.estimator.EstimatorSpec(mode, predictions={"a": a, "b": b})


def doubling(model_dir):
    """Trained-graph inputs as the golden custom_v1_adam's (4 floats)."""
    return tf.estimator.Estimator(doubling_model_fn, model_dir=model_dir)
