"""Estimator factories and helpers for the `--training` export tests.

`dropout_mlp`: a `tf.compat.v1.layers` model with both dropout forms (`layers.dropout`,
`tf.nn.dropout`) trained by constant-rate gradient descent. `temporary_plan_optimizer`:
a TEST-ONLY stand-in for `tfport.keras._modelfn._optimizers.plan_optimizer` (the optimizer
mappers, written on another branch) covering just the CNN golden's optimizer
(MomentumOptimizer with an exponentially decaying rate); the tests use it only while
that module is not in the checkout.
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


_MOMENTUM = '''@keras.saving.register_keras_serializable(package="tfport_export")
class TFMomentum(keras.optimizers.Optimizer):
    """tf.compat.v1.train.MomentumOptimizer: `accumulation = momentum * accumulation +
    gradient`, `variable -= learning_rate * accumulation`."""

    def __init__(self, learning_rate=0.01, momentum=0.9, name="tf_momentum", **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.momentum = momentum

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self.accumulations = [
            self.add_variable_from_reference(v, "accumulation") for v in variables
        ]

    def update_step(self, gradient, variable, learning_rate):
        rate = ops.cast(learning_rate, variable.dtype)
        accumulation = self.accumulations[self._get_variable_index(variable)]
        self.assign(accumulation, ops.add(ops.multiply(accumulation, self.momentum), gradient))
        self.assign_sub(variable, ops.multiply(accumulation, rate))

    def get_config(self):
        return {**super().get_config(), "momentum": self.momentum}
'''


def _static(tensor):
    while tensor.op.type in ("Cast", "Identity"):
        tensor = tensor.op.inputs[0]
    return float(tf.make_ndarray(tensor.op.get_attr("value")))


def temporary_plan_optimizer(graph, train_op, loss, trainable, global_step):
    """TEST-ONLY: MomentumOptimizer with `exponential_decay(staircase=False)` as a Keras 3
    optimizer (the OptimizerPlan contract of `_optimizer_plan`); anything else goes to the
    constant-rate SGD fallback."""
    from tfport.keras._modelfn._optimizer_plan import OptimizerPlan

    updates = [op for op in graph.get_operations() if op.type == "ResourceApplyMomentum"]
    if not updates:  # tfport's own temporary constant-rate SGD fallback
        from tfport.keras._modelfn import _training_sgd

        return _training_sgd.plan_optimizer(graph, train_op, loss, trainable, global_step)
    rate = updates[0].inputs[2].op
    assert rate.type == "Mul" and rate.name.endswith("ExponentialDecay"), rate.name
    power = rate.inputs[1].op
    initial, decay_rate = _static(rate.inputs[0]), _static(power.inputs[0])
    decay_steps = _static(power.inputs[1].op.inputs[1])
    momentum = float(np.float32(_static(updates[0].inputs[4])))
    schedule = f"keras.optimizers.schedules.ExponentialDecay({initial!r}, {decay_steps!r}, "
    schedule += f"{np.float32(decay_rate).item()!r})"
    slots = {op.inputs[0].op.name: {"accumulations": op.inputs[1].op.name} for op in updates}
    return OptimizerPlan(
        source=[_MOMENTUM],
        expression=f"TFMomentum(learning_rate={schedule}, momentum={momentum!r})",
        slots=slots,
        iterations=global_step.op.name,
    )


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
