"""Estimator factories whose model_fn trains with an optimizer `tfport keras export
--training` maps: the pretraining program's LAMB (golden `tpu_pretrain_lamb`), a BERT-style
AdamWeightDecay and, to be refused, an optimizer whose update has no Keras form.

Loaded as a script under tfport, like `modelfn_factories.py`.
"""

from __future__ import annotations

import re

import numpy as np
import tensorflow as tf
from modelfn_factories import script, tpu_pretrain_lamb  # noqa: F401 - a factory here too


class AdamWeightDecayOptimizer(tf.compat.v1.train.Optimizer):
    """BERT's optimization.py: Adam with decoupled weight decay, no bias correction."""

    def __init__(
        self,
        learning_rate,
        weight_decay_rate=0.0,
        beta_1=0.9,
        beta_2=0.999,
        epsilon=1e-6,
        exclude_from_weight_decay=None,
        name="AdamWeightDecayOptimizer",
    ):
        super().__init__(False, name)
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = epsilon
        self.exclude_from_weight_decay = exclude_from_weight_decay

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for grad, param in grads_and_vars:
            if grad is None or param is None:
                continue
            param_name = re.match("^(.*):\\d+$", param.name).group(1)
            m = tf.compat.v1.get_variable(
                name=param_name + "/adam_m",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=tf.zeros_initializer(),
            )
            v = tf.compat.v1.get_variable(
                name=param_name + "/adam_v",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=tf.zeros_initializer(),
            )
            next_m = tf.multiply(self.beta_1, m) + tf.multiply(1.0 - self.beta_1, grad)
            next_v = tf.multiply(self.beta_2, v) + tf.multiply(1.0 - self.beta_2, tf.square(grad))
            update = next_m / (tf.sqrt(next_v) + self.epsilon)
            if self._do_use_weight_decay(param_name):
                update += self.weight_decay_rate * param
            update_with_lr = self.learning_rate * update
            next_param = param - update_with_lr
            assignments.extend([param.assign(next_param), m.assign(next_m), v.assign(next_v)])
        return tf.group(*assignments, name=name)

    def _do_use_weight_decay(self, param_name):
        if not self.weight_decay_rate:
            return False
        for r in self.exclude_from_weight_decay or []:
            if re.search(r, param_name) is not None:
                return False
        return True


def _classifier(features, hidden=8):
    net = tf.compat.v1.layers.dense(features, hidden, activation=tf.nn.tanh, name="hidden")
    with tf.compat.v1.variable_scope("LayerNorm"):
        gamma = tf.compat.v1.get_variable("gamma", [hidden], initializer=tf.ones_initializer())
    return tf.compat.v1.layers.dense(net * gamma, 3, name="logits")


def adam_weight_decay_model_fn(features, labels, mode, params):
    """BERT's create_optimizer: warm-up then polynomial decay, AdamWeightDecay, clipping."""
    logits = _classifier(features)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    learning_rate = tf.compat.v1.train.polynomial_decay(
        tf.constant(0.01), global_step, 100, end_learning_rate=0.0, power=1.0
    )
    optimizer = AdamWeightDecayOptimizer(
        learning_rate,
        weight_decay_rate=0.01,
        exclude_from_weight_decay=["LayerNorm", "layer_norm", "bias"],
    )
    tvars = tf.compat.v1.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, _) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
    with tf.control_dependencies([train_op]):
        train_op = global_step.assign(global_step + 1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def sign_descent_model_fn(features, labels, mode, params):
    """A user optimizer whose update rounds (no keras.ops form in tfport's table)."""
    logits = _classifier(features)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    global_step = tf.compat.v1.train.get_or_create_global_step()
    tvars = tf.compat.v1.trainable_variables()
    grads = tf.gradients(loss, tvars)
    updates = [v.assign(v - 0.01 * tf.math.round(g * 100.0)) for g, v in zip(grads, tvars)]
    train_op = tf.group(*updates, global_step.assign_add(1))
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _fused_optimizer(name):
    """The optimizers whose fused update ops `plan_optimizer` maps (v1 and tf_keras)."""
    import tf_keras

    v1 = tf.compat.v1.train
    decayed = v1.inverse_time_decay(0.05, v1.get_global_step(), 2, 0.5, staircase=True)
    piecewise = v1.piecewise_constant(v1.get_global_step(), [2, 5], [0.05, 0.03, 0.01])
    return {
        "v1_rmsprop_centered": lambda: v1.RMSPropOptimizer(0.01, momentum=0.5, centered=True),
        "v1_adagrad": lambda: v1.AdagradOptimizer(0.1),
        "v1_sgd_inverse_time": lambda: v1.GradientDescentOptimizer(decayed),
        "v1_nesterov": lambda: v1.MomentumOptimizer(piecewise, 0.9, use_nesterov=True),
        "keras_sgd_nesterov": lambda: tf_keras.optimizers.legacy.SGD(0.05, 0.9, nesterov=True),
        "keras_adam": lambda: tf_keras.optimizers.legacy.Adam(0.01),
    }[name]()


def fused_model_fn(features, labels, mode, params):
    """A classifier trained by `params["optimizer"]` (see `_fused_optimizer`)."""
    logits = _classifier(features)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    global_step = tf.compat.v1.train.get_global_step()
    optimizer = _fused_optimizer(params["optimizer"])
    if hasattr(optimizer, "compute_gradients"):
        train_op = optimizer.minimize(loss, global_step)
    else:  # tf_keras: gradients given, its own iterations; the step by the model_fn
        tvars = tf.compat.v1.trainable_variables()
        train_op = optimizer.apply_gradients(zip(tf.gradients(loss, tvars), tvars))
        with tf.control_dependencies([train_op]):
            train_op = global_step.assign_add(1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _fused_factory(name):
    def factory(model_dir):
        return tf.estimator.Estimator(fused_model_fn, model_dir, params={"optimizer": name})

    return factory


FUSED = (
    "v1_rmsprop_centered",
    "v1_adagrad",
    "v1_sgd_inverse_time",
    "v1_nesterov",
    "keras_sgd_nesterov",
    "keras_adam",
)
for _name in FUSED:  # one factory per optimizer, named after it
    globals()[_name] = _fused_factory(_name)


def sparse_clipped_model_fn(features, labels, mode, params):
    """An embedding table (a gather: sparse gradient) under clip_by_global_norm."""
    table = tf.compat.v1.get_variable("table", [10, 3])
    ids = tf.cast(tf.abs(features[:, 0]) * 3.0, tf.int32) % 10
    logits = tf.gather(table, ids)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    tvars = tf.compat.v1.trainable_variables()
    grads, _ = tf.clip_by_global_norm(tf.gradients(loss, tvars), 1.0)
    train_op = AdamWeightDecayOptimizer(0.01).apply_gradients(zip(grads, tvars))
    with tf.control_dependencies([train_op]):
        train_op = tf.compat.v1.train.get_global_step().assign_add(1)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _estimator(model_fn, model_dir):
    return tf.estimator.Estimator(model_fn=model_fn, model_dir=model_dir)


def adam_weight_decay(model_dir):
    return _estimator(adam_weight_decay_model_fn, model_dir)


def sign_descent(model_dir):
    return _estimator(sign_descent_model_fn, model_dir)


def sparse_clipped(model_dir):
    return _estimator(sparse_clipped_model_fn, model_dir)


def features(seed=0, n=8):
    """A fixed batch for the classifiers above: 4 float features, 3 classes."""
    rng = np.random.RandomState(seed)
    return rng.normal(size=(n, 4)).astype("float32"), rng.randint(0, 3, n).astype("int64")
