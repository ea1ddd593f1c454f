"""Small legacy-style model_fns and input_fns for the engine tests."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

import tfport.estimator as tfe

v1 = tf.compat.v1
RNG = np.random.RandomState(0)
X = RNG.normal(size=(256, 4)).astype("float32")
Y = (X @ RNG.normal(size=(4,)) > 0).astype("int64")


def input_fn(batch: int = 32, repeat: bool = True, labels: bool = True):
    def fn():
        ds = tf.data.Dataset.from_tensor_slices((X, Y) if labels else X)
        if repeat:
            ds = ds.repeat()
        return ds.batch(batch)

    return fn


def model_fn(features, labels, mode, params):
    logits = v1.layers.dense(features, 2, name="logits")
    if mode == tfe.ModeKeys.PREDICT:
        return tfe.EstimatorSpec(mode, predictions={"logits": logits})
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = None
    if mode == tfe.ModeKeys.TRAIN:
        opt = v1.train.GradientDescentOptimizer(params.get("lr", 0.1))
        train_op = opt.minimize(loss, global_step=v1.train.get_global_step())
    metrics = {"accuracy": v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
    return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def estimator(model_dir, **config) -> tfe.Estimator:
    config.setdefault("tf_random_seed", 1)
    return tfe.Estimator(
        model_fn, config=tfe.RunConfig(model_dir=str(model_dir), **config), params={"lr": 0.1}
    )


def static_input_fn():
    """Global batch 32 with a static size (drop_remainder), as multi-worker needs."""
    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(32, drop_remainder=True)
