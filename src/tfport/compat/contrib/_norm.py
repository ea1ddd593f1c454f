"""`layer_norm` and `batch_norm` as TF 1.x `tf.contrib.layers` made them (names, epsilons)."""

from __future__ import annotations

from tfport.compat.contrib._tf import v1
from tfport.compat.contrib._util import collect as _collect
from tfport.compat.contrib._util import var_collections as _var_collections
from tfport.compat.contrib.framework import add_arg_scope, model_variable


@add_arg_scope
def layer_norm(
    inputs,
    center: bool = True,
    scale: bool = True,
    activation_fn=None,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable: bool = True,
    begin_norm_axis: int = 1,
    begin_params_axis: int = -1,
    scope=None,
):
    """Layer normalization as TF 1.x `tf.contrib.layers.layer_norm`: same variables, eps 1e-12.

    Example:
        >>> layer_norm  # doctest: +ELLIPSIS
        <function layer_norm at ...>
    """
    tf = v1()
    with tf.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse):
        inputs = tf.convert_to_tensor(inputs)
        shape = inputs.shape
        rank = shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError(
                f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
                f"({begin_norm_axis}) must be < rank(inputs) ({rank})"
            )
        params_shape = shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name}: shape[{begin_params_axis}:] is not defined")
        dtype = inputs.dtype.base_dtype
        beta = gamma = None
        if center:
            beta = model_variable(
                "beta",
                params_shape,
                dtype,
                tf.zeros_initializer(),
                trainable=trainable,
                collections=_var_collections(variables_collections, "beta"),
            )
        if scale:
            gamma = model_variable(
                "gamma",
                params_shape,
                dtype,
                tf.ones_initializer(),
                trainable=trainable,
                collections=_var_collections(variables_collections, "gamma"),
            )
        axes = list(range(begin_norm_axis, rank))
        mean, variance = tf.nn.moments(inputs, axes, keep_dims=True)
        outputs = tf.nn.batch_normalization(
            inputs, mean, variance, offset=beta, scale=gamma, variance_epsilon=1e-12
        )
        outputs.set_shape(shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect(outputs_collections, "LayerNorm", outputs)


@add_arg_scope
def batch_norm(
    inputs,
    decay: float = 0.999,
    center: bool = True,
    scale: bool = False,
    epsilon: float = 0.001,
    activation_fn=None,
    param_initializers=None,
    updates_collections="update_ops",
    is_training=True,
    reuse=None,
    variables_collections=None,
    outputs_collections=None,
    trainable: bool = True,
    scope=None,
    **_unused,
):
    """Batch normalization over all axes but the last (NHWC): ``BatchNorm/beta``, ``/gamma``
    (only with `scale`), ``/moving_mean``, ``/moving_variance``; updates go to UPDATE_OPS.
    """
    tf = v1()
    inits = param_initializers or {}
    with tf.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse):
        inputs = tf.convert_to_tensor(inputs)
        params = inputs.shape[-1:]
        dtype = inputs.dtype.base_dtype

        def var(name, init, train):
            init = inits.get(name, init)
            return model_variable(
                name,
                params,
                dtype,
                init,
                trainable=train,
                collections=_var_collections(variables_collections, name),
            )

        beta = var("beta", tf.zeros_initializer(), trainable) if center else None
        gamma = var("gamma", tf.ones_initializer(), trainable) if scale else None
        moving_mean = var("moving_mean", tf.zeros_initializer(), False)
        moving_var = var("moving_variance", tf.ones_initializer(), False)
        axes = list(range(inputs.shape.ndims - 1))

        def train_stats():
            mean, variance = tf.nn.moments(inputs, axes)
            updates = [
                tf.assign_sub(moving_mean, (moving_mean - mean) * (1.0 - decay)),
                tf.assign_sub(moving_var, (moving_var - variance) * (1.0 - decay)),
            ]
            if updates_collections is None:
                with tf.control_dependencies(updates):
                    return tf.identity(mean), tf.identity(variance)
            keys = tf.GraphKeys.UPDATE_OPS if updates_collections == "update_ops" else None
            tf.add_to_collections(keys or updates_collections, updates[0])
            tf.add_to_collections(keys or updates_collections, updates[1])
            return mean, variance

        if is_training is True:
            mean, variance = train_stats()
        elif is_training is False:
            mean, variance = moving_mean, moving_var
        else:
            mean, variance = tf.cond(
                is_training,
                train_stats,
                lambda: (tf.identity(moving_mean), tf.identity(moving_var)),
            )
        outputs = tf.nn.batch_normalization(inputs, mean, variance, beta, gamma, epsilon)
        outputs.set_shape(inputs.shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect(outputs_collections, "BatchNorm", outputs)
