"""`tf.contrib.metrics`: the `streaming_*` metrics, TF1 argument order (predictions first).

Each returns ``(value, update_op)`` like `tf.compat.v1.metrics`, which computes them.

Example:
    >>> streaming_auc.__name__
    'streaming_auc'
"""

from __future__ import annotations

from tfport.compat.contrib._tf import v1


def _kw(weights, metrics_collections, updates_collections, name) -> dict:
    return {
        "weights": weights,
        "metrics_collections": metrics_collections,
        "updates_collections": updates_collections,
        "name": name,
    }


def streaming_accuracy(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming accuracy (`tf.compat.v1.metrics.accuracy`)."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.accuracy(labels, predictions, **kw)


def streaming_mean(
    values, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming mean of `values`."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.mean(values, **kw)


def streaming_auc(
    predictions,
    labels,
    weights=None,
    num_thresholds: int = 200,
    metrics_collections=None,
    updates_collections=None,
    curve: str = "ROC",
    name=None,
    summation_method: str = "trapezoidal",
):
    """Streaming area under the ROC or PR curve."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.auc(
        labels,
        predictions,
        num_thresholds=num_thresholds,
        curve=curve,
        summation_method=summation_method,
        **kw,
    )


def streaming_precision(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming precision."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.precision(labels, predictions, **kw)


def streaming_recall(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming recall."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.recall(labels, predictions, **kw)


def streaming_mean_iou(
    predictions,
    labels,
    num_classes: int,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Streaming mean intersection-over-union."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.mean_iou(labels, predictions, num_classes, **kw)


def streaming_mean_squared_error(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming mean squared error."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.mean_squared_error(labels, predictions, **kw)


def streaming_root_mean_squared_error(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming root mean squared error."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.root_mean_squared_error(labels, predictions, **kw)


def streaming_mean_absolute_error(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming mean absolute error."""
    kw = _kw(weights, metrics_collections, updates_collections, name)
    return v1().metrics.mean_absolute_error(labels, predictions, **kw)


def streaming_pearson_correlation(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """Streaming Pearson correlation of `predictions` and `labels` (from streaming moments)."""
    tf = v1()
    with tf.variable_scope(name, "pearson_r", (predictions, labels, weights)):
        x = tf.cast(predictions, tf.float64)
        y = tf.cast(labels, tf.float64)
        terms = {"x": x, "y": y, "xy": x * y, "xx": x * x, "yy": y * y}
        means, updates = {}, []
        for key, value in terms.items():
            means[key], update = tf.metrics.mean(value, weights=weights, name=f"mean_{key}")
            updates.append(update)

        def corr(m):
            cov = m["xy"] - m["x"] * m["y"]
            var = (m["xx"] - m["x"] ** 2) * (m["yy"] - m["y"] ** 2)
            return tf.cast(cov / tf.sqrt(var), tf.float32)

        value = corr(means)
        with tf.control_dependencies(updates):
            update_op = corr({k: tf.identity(v) for k, v in means.items()})
        if metrics_collections:
            tf.add_to_collections(metrics_collections, value)
        if updates_collections:
            tf.add_to_collections(updates_collections, update_op)
        return value, update_op


def accuracy(predictions, labels, weights=None, name=None):
    """The (non-streaming) fraction of `predictions` equal to `labels`."""
    tf = v1()
    with tf.name_scope(name, "accuracy", [predictions, labels]):
        correct = tf.cast(tf.equal(predictions, labels), tf.float32)
        if weights is None:
            return tf.reduce_mean(correct)
        weights = tf.cast(weights, tf.float32)
        return tf.reduce_sum(correct * weights) / tf.reduce_sum(weights)
