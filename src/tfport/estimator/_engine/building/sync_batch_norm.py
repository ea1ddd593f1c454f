"""BatchNormalization on N replicas with one device's batch statistics.

In training a Keras BatchNormalization layer (also `tf.compat.v1.layers`' one)
normalizes with its batch's mean and variance. On N replicas each replica would see
only its minibatch, so the outputs, gradients and moving averages would differ from
one device's. Inside a replicated step the layer instead sums its per-replica
`sum(x)` and example counts across replicas (`merge_call`; TF's
`ReplicaContext.all_reduce` cannot be differentiated in a TF1 graph), then the
replicas' `sum((x - mean)^2)` around that global mean (two passes, as `tf.nn.moments`
on one device), and normalizes with the global batch's statistics. The backward pass
sums the replicas' upstream gradients the same way, so each replica's gradient holds
every replica's loss.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from tfport._common import keras_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Tensor


@contextlib.contextmanager
def synchronized_batch_norm() -> Iterator[None]:
    """Keras BatchNormalization layers built in the block use cross-replica statistics.

    Outside a replica context (or on one replica) layers behave as before.

    Example:
        >>> with synchronized_batch_norm():
        ...     pass
    """
    with keras_internals.batch_norm_replaced(_synced_build, _synced_calculate, _synced_assign):
        yield


def _synced_build(build: Callable[..., object], layer: Any, input_shape: object) -> None:
    build(layer, input_shape)
    if _replicated() and layer.fused:
        layer.fused = False  # the fused kernel computes its own (local) statistics
        layer._tfport_unbiased_moving_variance = True  # as the fused kernel's update


def _synced_calculate(
    calculate: Callable[..., object],
    layer: Any,
    x: Any,
    axes: object,
    keep_dims: bool,
    mask: object = None,
) -> Any:
    if layer.synchronized or not _replicated():
        return calculate(layer, x, axes, keep_dims, mask=mask)
    mean, variance, count = _global_moments(x, axes, keep_dims, mask)
    layer._tfport_moments_count = count
    return mean, variance


def _synced_assign(
    assign: Callable[..., object],
    layer: Any,
    variable: object,
    value: Any,
    momentum: object,
    size: object,
) -> Any:
    """The moving variance averages the global batch's unbiased variance (n / (n - 1)),
    as the fused kernel's update does on one device."""
    count = getattr(layer, "_tfport_moments_count", None)
    if (
        variable is layer.moving_variance
        and count is not None
        and getattr(layer, "_tfport_unbiased_moving_variance", False)
    ):
        value = value * _bessel_factor(count, value)
    return assign(layer, variable, value, momentum, size)


def _bessel_factor(count: object, value: Tensor) -> Any:
    """n / (n - 1) for the global batch's per-channel count n."""
    tf = import_tf()
    n = tf.cast(tf.reshape(count, [-1])[0], value.dtype)
    return n / tf.maximum(n - 1.0, 1.0)


def _replicated() -> bool:
    tf = import_tf()
    context = tf.distribute.get_replica_context()
    return context is not None and context.num_replicas_in_sync > 1


def _global_moments(x: Tensor, axes: object, keep_dims: bool, mask: object) -> tuple:
    """`tf.nn.moments` (or `weighted_moments`) of the global batch, in two passes.

    As one device: the mean first, then the mean squared deviation from it (the mean
    held constant, as `tf.nn.moments` does). `E[x^2] - E[x]^2` would lose the variance's
    low digits whenever mean^2 >> variance (a ReLU unit that is active on every example).
    """
    tf = import_tf()
    with tf.name_scope("moments"):
        y = tf.cast(x, tf.float32) if x.dtype == tf.float16 else x
        weights = None
        if mask is not None:
            weights = tf.expand_dims(tf.cast(mask, y.dtype), axis=-1)
        count = tf.ones_like(y) if weights is None else tf.broadcast_to(weights, tf.shape(y))
        count = tf.stop_gradient(_merge_sum(tf.reduce_sum(count, axis=axes, keepdims=True)))
        total = y if weights is None else y * weights
        total = _replica_sum(tf.reduce_sum(total, axis=axes, keepdims=True))
        mean = tf.math.divide_no_nan(total, count)
        squares = tf.math.squared_difference(y, tf.stop_gradient(mean))
        squares = squares if weights is None else squares * weights
        squares = _replica_sum(tf.reduce_sum(squares, axis=axes, keepdims=True))
        variance = tf.math.divide_no_nan(squares, count)
        if not keep_dims:
            mean, variance = tf.squeeze(mean, axes), tf.squeeze(variance, axes)
        return tf.cast(mean, x.dtype), tf.cast(variance, x.dtype), count


def _replica_sum(local: object) -> Any:
    """The sum of `local` over replicas; its gradient is the replicas' gradients summed."""
    tf = import_tf()
    total = tf.stop_gradient(_merge_sum(local))

    @tf.custom_gradient
    def attach(value: object, summed: object) -> Any:
        def grad(upstream: object) -> tuple:
            return _merge_sum(upstream), tf.zeros_like(summed)

        return tf.identity(summed), grad

    return attach(local, total)


def _merge_sum(local: object) -> Any:
    tf = import_tf()

    def merge(strategy: Any, value: object) -> Any:
        return strategy.extended.reduce_to(tf.distribute.ReduceOp.SUM, value, value)

    return tf.distribute.get_replica_context().merge_call(merge, args=(local,))
