"""Public v2 head factories (`tf.estimator.MultiClassHead`, ...) for the *Estimator classes.

Example:
    >>> head = MultiClassHead(n_classes=3)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport.estimator._canned import base
from tfport.estimator._heads.heads import Head

SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


def MultiClassHead(
    n_classes: int,
    weight_column: Any = None,
    label_vocabulary: Any = None,
    loss_reduction: Any = SUM_OVER_BATCH_SIZE,
    loss_fn: Any = None,
    name: Any = None,
) -> Head:  # noqa: N802 (legacy public name)
    """`tf.estimator.MultiClassHead`: softmax cross-entropy over `n_classes` (> 2)."""
    _no_custom(loss_fn, name)
    return Head("classifier", n_classes, weight_column, label_vocabulary, loss_reduction, True)


def BinaryClassHead(
    weight_column: Any = None,
    thresholds: Any = None,
    label_vocabulary: Any = None,
    loss_reduction: Any = SUM_OVER_BATCH_SIZE,
    loss_fn: Any = None,
    name: Any = None,
) -> Head:  # noqa: N802
    """`tf.estimator.BinaryClassHead`: sigmoid cross-entropy (thresholds: not supported)."""
    _no_custom(loss_fn, name, thresholds)
    return Head("classifier", 2, weight_column, label_vocabulary, loss_reduction, True)


def RegressionHead(
    label_dimension: int = 1,
    weight_column: Any = None,
    loss_reduction: Any = SUM_OVER_BATCH_SIZE,
    loss_fn: Any = None,
    inverse_link_fn: Any = None,
    name: Any = None,
) -> Head:  # noqa: N802
    """`tf.estimator.RegressionHead`: mean squared error."""
    _no_custom(loss_fn, name, inverse_link_fn)
    return base.regression_head(label_dimension, weight_column, loss_reduction, v2=True)


def _no_custom(*values: Any) -> None:
    from tfport._common.errors import TfportInputError, message

    if any(v is not None for v in values):
        raise TfportInputError(
            message(
                "Custom loss_fn, name, thresholds and inverse_link_fn are not supported by tfport "
                "heads yet",
                "Leave them unset",
                values=[v for v in values if v is not None],
            )
        )
