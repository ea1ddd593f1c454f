"""Linear logits with the legacy names (`linear/linear_model/<col>/weights`, `bias_weights`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns

COMBINERS = ("sum", "mean", "sqrtn")


def _expand(variables: Any) -> list:
    out = []
    for var in variables:
        out.extend(
            list(var)
            if isinstance(var, (list, tuple)) or tf_internals.is_partitioned_variable(var)
            else [var]
        )
    return out


def linear_logits(
    features: dict, feature_columns: FeatureColumns, units: int, sparse_combiner: str = "sum"
) -> tuple:
    """Builds `linear_model` in the current variable scope; returns (logits, bias, weights).

    `bias` and `weights` are lists of variables (partitions expanded).

    Example:
        >>> with tf.compat.v1.variable_scope("linear"):  # doctest: +SKIP
        ...     logits, bias, weights = linear_logits(features, cols, units=3)
    """
    if sparse_combiner not in COMBINERS:
        raise TfportInputError(
            message(
                "sparse_combiner must be 'sum', 'mean' or 'sqrtn'",
                "Fix sparse_combiner",
                sparse_combiner=sparse_combiner,
            )
        )
    tf = import_tf()
    cols_to_vars: dict = {}
    logits = tf.compat.v1.feature_column.linear_model(
        features,
        list(feature_columns),
        units=units,
        sparse_combiner=sparse_combiner,
        cols_to_vars=cols_to_vars,
    )
    bias = _expand(cols_to_vars.pop("bias"))
    weights = _expand(v for vs in cols_to_vars.values() for v in vs)
    return logits, bias, weights


def fraction_of_zero(variables: list) -> Any:
    """Fraction of exactly-zero entries over all `variables` (the legacy sparsity summary)."""
    tf = import_tf()
    with tf.compat.v1.name_scope("zero_fraction"):
        sizes = [tf.size(v, out_type=tf.int64) for v in variables]
        zeros = [
            tf.math.zero_fraction(v) * tf.cast(s, tf.float32) for v, s in zip(variables, sizes)
        ]
        total = tf.cast(tf.math.add_n(sizes), tf.float32)
        return tf.identity(tf.math.add_n(zeros) / total, name="zero_fraction_or_nan")


def add_linear_summaries(bias: list, weights: list, units: int) -> None:
    """`bias` (histogram, or scalar for one unit) and `fraction_of_zero_weights`."""
    tf = import_tf()
    summary = tf.compat.v1.summary
    if units > 1:
        summary.histogram("bias", bias)
    else:
        summary.scalar("bias", tf.reshape(tf.convert_to_tensor(bias[0]), [-1])[0])
    if weights:
        summary.scalar("fraction_of_zero_weights", fraction_of_zero(weights))
