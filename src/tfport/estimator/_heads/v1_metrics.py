"""The v1 heads' metric helpers under legacy `canned.head`'s private names.

Libraries with their own v1 `_Head` subclasses compute their eval metrics with them:
`_indicator_labels_mean`, `_predictions_mean`, `_accuracy_baseline`, `_auc`,
`_accuracy_at_threshold`, `_precision_at_threshold`, `_recall_at_threshold`, and
`_append_update_ops` for the train op. Each returns a `(value, update_op)` pair built with
`tf.compat.v1.metrics` in legacy's name scope (`tfport._legacy_tree` places them).

Example:
    >>> value, update = _predictions_mean(probabilities, weights=w)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Tensor, TFModule

Metric = tuple[Any, Any]  # (value tensor, update op)


def _broadcast(tf: TFModule, weights: Tensor | None, values: Tensor) -> Any:
    return None if weights is None else tf.cast(weights, values.dtype) * tf.ones_like(values)


def _weighted_mean(
    values: Tensor, weights: Tensor | None, name: str | None, scope: str, cast_name: str
) -> Metric:
    tf = import_tf()
    with tf.compat.v1.name_scope(name, scope, (values, weights)) as made:
        values = tf.cast(values, tf.float32, name=cast_name)
        return tf.compat.v1.metrics.mean(values, weights=_broadcast(tf, weights, values), name=made)


def _indicator_labels_mean(
    labels: Tensor, weights: Tensor | None = None, name: str | None = None
) -> Metric:
    """The weighted mean of 0/1 labels, in scope `labels_mean`."""
    return _weighted_mean(labels, weights, name, "labels_mean", "labels")


def _predictions_mean(
    predictions: Tensor, weights: Tensor | None = None, name: str | None = None
) -> Metric:
    """The weighted mean of the predictions, in scope `predictions_mean`."""
    return _weighted_mean(predictions, weights, name, "predictions_mean", "predictions")


def _accuracy_baseline(labels_mean: Metric) -> Metric:
    """What always predicting the majority class scores, from the labels' mean metric."""
    tf = import_tf()
    with tf.compat.v1.name_scope(None, "accuracy_baseline", labels_mean):
        value, update = labels_mean
        return (
            tf.maximum(value, 1.0 - value, name="value"),
            tf.maximum(update, 1 - update, name="update_op"),
        )


def _auc(
    labels: Tensor,
    predictions: Tensor,
    weights: Tensor | None = None,
    curve: str = "ROC",
    name: str | None = None,
) -> Metric:
    """`tf.compat.v1.metrics.auc` over float predictions, in scope `auc`."""
    tf = import_tf()
    with tf.compat.v1.name_scope(name, "auc", (predictions, labels, weights)) as scope:
        predictions = tf.cast(predictions, tf.float32, name="predictions")
        weights = _broadcast(tf, weights, predictions)
        return tf.compat.v1.metrics.auc(
            labels=labels, predictions=predictions, weights=weights, curve=curve, name=scope
        )


def _accuracy_at_threshold(
    labels: Tensor,
    predictions: Tensor,
    weights: Tensor | None,
    threshold: float,
    name: str | None = None,
) -> Metric:
    """Accuracy of `predictions >= threshold`, in scope `accuracy_at_<threshold>`."""
    tf = import_tf()
    scope_name = f"accuracy_at_{threshold}"
    with tf.compat.v1.name_scope(name, scope_name, (predictions, labels, weights)) as scope:
        predicted = tf.cast(tf.greater_equal(predictions, threshold), tf.float32)
        return tf.compat.v1.metrics.accuracy(
            labels=labels, predictions=predicted, weights=weights, name=scope
        )


def _at_threshold(
    kind: str,
    labels: Tensor,
    predictions: Tensor,
    weights: Tensor | None,
    threshold: float,
    name: str | None,
) -> Metric:
    tf = import_tf()
    metric = getattr(tf.compat.v1.metrics, f"{kind}_at_thresholds")
    scope_name = f"{kind}_at_{threshold}"
    with tf.compat.v1.name_scope(name, scope_name, (predictions, labels, weights)) as scope:
        value, update = metric(
            labels=labels,
            predictions=predictions,
            thresholds=(threshold,),
            weights=weights,
            name=scope,
        )
        return tf.squeeze(value), tf.squeeze(update)


def _precision_at_threshold(
    labels: Tensor,
    predictions: Tensor,
    weights: Tensor | None,
    threshold: float,
    name: str | None = None,
) -> Metric:
    """Precision of `predictions >= threshold`, in scope `precision_at_<threshold>`."""
    return _at_threshold("precision", labels, predictions, weights, threshold, name)


def _recall_at_threshold(
    labels: Tensor,
    predictions: Tensor,
    weights: Tensor | None,
    threshold: float,
    name: str | None = None,
) -> Metric:
    """Recall of `predictions >= threshold`, in scope `recall_at_<threshold>`."""
    return _at_threshold("recall", labels, predictions, weights, threshold, name)


def _append_update_ops(train_op: object) -> Any:
    """`train_op` grouped with the graph's `UPDATE_OPS` (batch norm), when there are any."""
    tf = import_tf()
    updates = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
    return tf.group(train_op, *updates) if updates else train_op
