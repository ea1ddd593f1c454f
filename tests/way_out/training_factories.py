"""Estimator factories and helpers for the `--training` export tests.

`dropout_mlp`: a `tf.compat.v1.layers` model with both dropout forms (`layers.dropout`,
`tf.nn.dropout`) trained by constant-rate gradient descent.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf


def dropout_mlp_model_fn(features, labels, mode):
    """dense -> layers.dropout(0.5) -> dense -> tf.nn.dropout(0.25) -> logits."""
    training = mode == tf.estimator.ModeKeys.TRAIN
    layers = tf.compat.v1.layers
    net = layers.dense(features["x"], 32, activation=tf.nn.relu, name="hidden")
    net = layers.dropout(net, 0.5, training=training)
    net = layers.dense(net, 32, activation=tf.nn.relu, name="hidden2")
    net = tf.nn.dropout(net, rate=0.25 if training else 0.0)
    logits = layers.dense(net, 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def dropout_mlp(model_dir):
    return tf.estimator.Estimator(dropout_mlp_model_fn, model_dir=model_dir)


def bn_mlp_model_fn(features, labels, mode):
    """dense -> layers.batch_normalization (2-D: the unfused moments form) -> logits."""
    training = mode == tf.estimator.ModeKeys.TRAIN
    net = tf.compat.v1.layers.dense(features["x"], 8, name="hidden")
    net = tf.compat.v1.layers.batch_normalization(net, training=training, name="bn")
    logits = tf.compat.v1.layers.dense(tf.nn.relu(net), 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def bn_mlp(model_dir):
    return tf.estimator.Estimator(bn_mlp_model_fn, model_dir=model_dir)


def vectors(seed, n=64):
    rng = np.random.RandomState(seed)
    return {"x": rng.normal(size=(n, 6)).astype("float32")}, rng.randint(0, 3, n).astype("int64")


def tpu_cnn(model_dir):
    """The golden `tpu_cnn_host_call`'s TPUEstimator, its host_call writing into model_dir
    (the script reads `--model_dir` from its flags)."""
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import modelfn_factories

    programs = modelfn_factories.script("tpu_programs")
    if not programs.FLAGS.is_parsed():
        programs.FLAGS.mark_as_parsed()  # the defaults (not this process's argv)
    programs.FLAGS.model_dir = model_dir
    return modelfn_factories.tpu_cnn_host_call(model_dir)


def tpu_pretrain_without_dropout(model_dir):
    """The golden `tpu_pretrain_lamb`'s TPUEstimator (a transformer block, LAMB over
    `tf.gradients`, warm-up then decay, its own global-step increment) with its dropout
    flag at 0 (this process's), so that one step of it is deterministic."""
    import sys

    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import modelfn_factories

    programs = modelfn_factories.script("tpu_programs")
    if not programs.FLAGS.is_parsed():
        programs.FLAGS.mark_as_parsed()
    programs.FLAGS.dropout = 0.0
    return modelfn_factories.tpu_pretrain_lamb(model_dir)


def annealed_loss_model_fn(features, labels, mode):
    """dropout_mlp's inputs; the loss weighted by the global step (KL-style annealing):
    it reads a variable outside the model, which has no Keras `fit` form (a refusal)."""
    logits = tf.compat.v1.layers.dense(features["x"], 3, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    step = tf.compat.v1.train.get_global_step()
    weight = tf.minimum(tf.cast(step, tf.float32) / 100.0, 1.0)
    loss = weight * tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=optimizer.minimize(loss, step))


def annealed_loss(model_dir):
    return tf.estimator.Estimator(annealed_loss_model_fn, model_dir=model_dir)
