"""`tf.contrib.layers` initializers and regularizers, with TF1's formulas and op names."""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

from tfport._common.errors import TfportInputError, message
from tfport.compat.contrib._tf import v1

_MODES = ("FAN_IN", "FAN_OUT", "FAN_AVG")


def variance_scaling_initializer(
    factor: float = 2.0,
    mode: str = "FAN_IN",
    uniform: bool = False,
    seed: int | None = None,
    dtype=None,
) -> Callable:
    """He / Xavier-style initializer with TF1 contrib's formula (truncated normal: sqrt(1.3 f/n)).

    Example:
        >>> callable(variance_scaling_initializer())
        True
    """
    if mode not in _MODES:
        raise TfportInputError(
            message(
                "Unknown mode of variance_scaling_initializer", f"Use one of {_MODES}", mode=mode
            )
        )

    def init(shape, dtype=dtype, partition_info=None):
        tf = v1()
        dtype = tf.as_dtype(dtype or tf.float32)
        full = list(partition_info.full_shape if partition_info is not None else shape)
        fan_in = float(full[-2]) if len(full) > 1 else float(full[-1]) if full else 1.0
        fan_out = float(full[-1]) if full else 1.0
        receptive = float(math.prod(full[:-2])) if len(full) > 2 else 1.0
        fan_in, fan_out = fan_in * receptive, fan_out * receptive
        n = {"FAN_IN": fan_in, "FAN_OUT": fan_out, "FAN_AVG": (fan_in + fan_out) / 2.0}[mode]
        if uniform:
            limit = math.sqrt(3.0 * factor / n)
            return tf.random_uniform(shape, -limit, limit, dtype, seed=seed)
        stddev = math.sqrt(1.3 * factor / n)
        return tf.truncated_normal(shape, 0.0, stddev, dtype, seed=seed)

    return init


def xavier_initializer(uniform: bool = True, seed: int | None = None, dtype=None) -> Callable:
    """Glorot initializer (`variance_scaling_initializer(1.0, 'FAN_AVG', uniform)`).

    Example:
        >>> callable(xavier_initializer(seed=1))
        True
    """
    return variance_scaling_initializer(1.0, "FAN_AVG", uniform, seed, dtype)


xavier_initializer_conv2d = xavier_initializer


def _check_scale(scale: float, name: str) -> None:
    if isinstance(scale, numbers.Integral) or not isinstance(scale, numbers.Real):
        if not (isinstance(scale, numbers.Integral) and scale == 0):
            raise TfportInputError(message(f"{name} scale must be a float", scale=scale))
    if scale < 0.0:
        raise TfportInputError(message(f"{name} scale must be >= 0", scale=scale))


def _regularizer(scale: float, scope: str | None, default: str, norm: Callable) -> Callable:
    _check_scale(scale, default)

    def apply(weights):
        if scale == 0.0:
            return None
        tf = v1()
        with tf.name_scope(scope, default, [weights]) as name:
            factor = tf.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(factor, norm(tf, weights), name=name)

    return apply


def l2_regularizer(scale: float, scope: str | None = None) -> Callable:
    """`scale * tf.nn.l2_loss(w)` (half the squared norm), as TF1's contrib.

    Example:
        >>> l2_regularizer(0.0)("unused") is None
        True
    """
    return _regularizer(scale, scope, "l2_regularizer", lambda tf, w: tf.nn.l2_loss(w))


def l1_regularizer(scale: float, scope: str | None = None) -> Callable:
    """`scale * sum(|w|)`."""
    return _regularizer(scale, scope, "l1_regularizer", lambda tf, w: tf.reduce_sum(tf.abs(w)))


def sum_regularizer(regularizer_list: Sequence[Callable], scope: str | None = None) -> Callable:
    """The sum of several regularizers (None ones skipped)."""

    def apply(weights):
        tf = v1()
        with tf.name_scope(scope, "sum_regularizer", [weights]) as name:
            terms = [t for t in (r(weights) for r in regularizer_list) if t is not None]
            return tf.add_n(terms, name=name) if terms else None

    return apply


def l1_l2_regularizer(
    scale_l1: float = 1.0, scale_l2: float = 1.0, scope: str | None = None
) -> Callable:
    """`l1_regularizer(scale_l1) + l2_regularizer(scale_l2)`."""
    return sum_regularizer([l1_regularizer(scale_l1), l2_regularizer(scale_l2)], scope)


def apply_regularization(regularizer: Callable, weights_list: Sequence | None = None):
    """Sums `regularizer(w)` over `weights_list` (default the WEIGHTS collection) and adds it
    to REGULARIZATION_LOSSES, as TF1's contrib.
    """
    tf = v1()
    if weights_list is None:
        weights_list = tf.get_collection(tf.GraphKeys.WEIGHTS)
    if not weights_list:
        raise TfportInputError(message("No weights to regularize", "Pass weights_list"))
    with tf.name_scope("get_regularization_penalty", values=weights_list) as scope:
        penalties = [regularizer(w) for w in weights_list]
        penalties = [p if p is not None else tf.constant(0.0) for p in penalties]
        summed = tf.add_n(penalties, name=scope)
        tf.add_to_collection(tf.GraphKeys.REGULARIZATION_LOSSES, summed)
        return summed
