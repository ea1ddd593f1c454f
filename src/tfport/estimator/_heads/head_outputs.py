"""What a head computes besides the loss: predictions, export outputs, eval metrics.

Keys are the legacy `PredictionKeys` / `MetricKeys` strings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Tensor, TFModule

LOGITS, LOGISTIC, PROBABILITIES = "logits", "logistic", "probabilities"
CLASS_IDS, CLASSES = "class_ids", "classes"
ALL_CLASS_IDS, ALL_CLASSES, PREDICTIONS = "all_class_ids", "all_classes", "predictions"
SERVING_DEFAULT, CLASSIFY, REGRESS, PREDICT = (
    "serving_default",
    "classification",
    "regression",
    "predict",
)


def _tile_rows(tf: TFModule, row: Tensor, logits: Tensor) -> Any:
    batch_size = tf.compat.v1.shape(logits)[0]
    return tf.tile(tf.expand_dims(row, 0), [batch_size, 1])


def _class_strings(tf: TFModule, n_classes: int, vocabulary: Sequence[str] | None) -> Any:
    if vocabulary:
        return tf.constant(list(vocabulary))
    return tf.strings.as_string(tf.range(n_classes))


def _ids_to_classes(tf: TFModule, class_ids: Tensor, vocabulary: Sequence[str] | None) -> Any:
    if not vocabulary:
        return tf.strings.as_string(class_ids, name="str_classes")
    init = tf.lookup.KeyValueTensorInitializer(
        tf.range(len(vocabulary), dtype=tf.int64), tf.constant(list(vocabulary))
    )
    table = tf.lookup.StaticHashTable(init, default_value="UNK", name="class_string_lookup")
    return table.lookup(class_ids)


def classifier_predictions(
    logits: Tensor, n_classes: int, vocabulary: Sequence[str] | None
) -> dict:
    """Predictions of a softmax (n_classes > 2) or logistic (n_classes == 2) head.

    Example:
        >>> classifier_predictions(logits, 3, None)["probabilities"]  # doctest: +SKIP
    """
    tf = import_tf()
    with tf.compat.v1.name_scope(None, "predictions", (logits,)):
        out = {LOGITS: logits}
        if n_classes == 2:
            out[LOGISTIC] = tf.sigmoid(logits, name=LOGISTIC)
            scores_logits = tf.concat(
                [tf.zeros_like(logits), logits], axis=-1, name="two_class_logits"
            )
        else:
            scores_logits = logits
        out[PROBABILITIES] = tf.nn.softmax(scores_logits, name=PROBABILITIES)
        class_ids = tf.expand_dims(tf.argmax(scores_logits, axis=-1, name=CLASS_IDS), -1)
        out[CLASS_IDS] = class_ids
        out[CLASSES] = _ids_to_classes(tf, class_ids, vocabulary)
        out[ALL_CLASS_IDS] = _tile_rows(tf, tf.range(n_classes), logits)
        out[ALL_CLASSES] = _tile_rows(tf, _class_strings(tf, n_classes, vocabulary), logits)
    return out


def classifier_export_outputs(
    predictions: dict, n_classes: int, vocabulary: Sequence[str] | None
) -> dict:
    """serving_default / classification (scores + class strings), predict (all keys).

    Example:
        >>> classifier_export_outputs(preds, 3, None)["predict"]  # doctest: +SKIP
    """
    tf = import_tf()
    scores = predictions[PROBABILITIES]
    classes = _tile_rows(tf, _class_strings(tf, n_classes, vocabulary), scores)
    classify = tf_internals.classification_output_class()(scores=scores, classes=classes)
    outputs = {
        SERVING_DEFAULT: classify,
        CLASSIFY: classify,
        PREDICT: tf_internals.predict_output_class()(predictions),
    }
    if n_classes == 2:
        outputs[REGRESS] = tf_internals.regression_output_class()(value=predictions[LOGISTIC])
    return outputs


def regression_export_outputs(predictions: dict) -> dict:
    """serving_default / regression (a RegressionOutput, whatever the label dimension, as
    legacy's), predict (all keys).

    Example:
        >>> regression_export_outputs({"predictions": y})  # doctest: +SKIP
    """
    regress = tf_internals.regression_output_class()(value=predictions[PREDICTIONS])
    predict = tf_internals.predict_output_class()(predictions)
    return {SERVING_DEFAULT: regress, REGRESS: regress, PREDICT: predict}


def _mean(tf: TFModule, values: Tensor, weights: Tensor | float | None, name: str) -> tuple:
    values = tf.cast(values, tf.float32)
    if weights is not None:
        weights = tf.compat.v1.broadcast_to(weights, tf.shape(values))
    return tf.compat.v1.metrics.mean(values, weights=weights, name=name)


def _keras_pr_auc(
    tf: TFModule, labels: Tensor, scores: Tensor, weights: Tensor | float | None
) -> tuple:
    """v2 heads' PR AUC: a Keras `AUC(curve="PR")` (interpolated), as (value, update_op).

    Its variables join LOCAL_VARIABLES / METRIC_VARIABLES, as the legacy EstimatorSpec did.
    """
    v1 = tf.compat.v1
    metric = tf.keras.metrics.AUC(curve="PR", name="auc_precision_recall")
    if weights is not None:
        weights = tf.broadcast_to(weights, tf.shape(scores))
    update = metric.update_state(labels, scores, sample_weight=weights)
    for var in metric.variables:
        v1.add_to_collection(v1.GraphKeys.LOCAL_VARIABLES, var)
        v1.add_to_collection(v1.GraphKeys.METRIC_VARIABLES, var)
    return metric.result(), update


def classifier_metrics(
    n_classes: int,
    label_ids: Tensor,
    predictions: dict,
    weights: Tensor | float | None,
    unreduced_loss: Tensor,
    v2: bool = False,
) -> dict:
    """The legacy eval metrics of a classification head.

    Example:
        >>> classifier_metrics(3, ids, preds, None, loss)["accuracy"]  # doctest: +SKIP
    """
    tf = import_tf()
    m = tf.compat.v1.metrics
    class_ids = predictions[CLASS_IDS]
    with tf.compat.v1.name_scope(None, "metrics"):
        out = {
            "average_loss": _mean(tf, unreduced_loss, weights, "average_loss"),
            "accuracy": m.accuracy(label_ids, class_ids, weights=weights, name="accuracy"),
        }
        if n_classes != 2:
            return out
        logistic = predictions[LOGISTIC]
        labels_f = tf.cast(label_ids, tf.float32)
        label_mean = _mean(tf, labels_f, weights, "label/mean")
        out.update(
            {
                "precision": m.precision(label_ids, class_ids, weights=weights, name="precision"),
                "recall": m.recall(label_ids, class_ids, weights=weights, name="recall"),
                "prediction/mean": _mean(tf, logistic, weights, "prediction/mean"),
                "label/mean": label_mean,
                "accuracy_baseline": (
                    tf.maximum(label_mean[0], 1.0 - label_mean[0]),
                    tf.maximum(label_mean[1], 1.0 - label_mean[1]),
                ),
                "auc": m.auc(label_ids, logistic, weights=weights, name="auc"),
            }
        )
        if v2:
            out["auc_precision_recall"] = _keras_pr_auc(tf, label_ids, logistic, weights)
        else:
            out["auc_precision_recall"] = m.auc(
                label_ids, logistic, weights=weights, curve="PR", name="auc_precision_recall"
            )
    return out


def regression_metrics(
    labels: Tensor, predictions: dict, weights: Tensor | float | None, unreduced_loss: Tensor
) -> dict:
    """average_loss, prediction/mean, label/mean.

    Example:
        >>> regression_metrics(y, {"predictions": p}, None, loss)  # doctest: +SKIP
    """
    tf = import_tf()
    with tf.compat.v1.name_scope(None, "metrics"):
        return {
            "average_loss": _mean(tf, unreduced_loss, weights, "average_loss"),
            "prediction/mean": _mean(tf, predictions[PREDICTIONS], weights, "prediction/mean"),
            "label/mean": _mean(tf, labels, weights, "label/mean"),
        }


def threshold_metrics(
    label_ids: Tensor,
    predictions: dict,
    weights: Tensor | float | None,
    thresholds: Sequence[float],
) -> dict:
    """Binary heads' `accuracy|precision|recall/positive_threshold_<t>` metrics.

    Example:
        >>> threshold_metrics(ids, preds, None, (0.3,))  # doctest: +SKIP
    """
    if not thresholds:
        return {}
    tf = import_tf()
    m = tf.compat.v1.metrics
    scores = predictions[LOGISTIC]
    out = {}
    with tf.compat.v1.name_scope(None, "metrics"):
        for t in thresholds:
            suffix = f"positive_threshold_{t:g}"
            predicted = tf.cast(scores > t, tf.int64)
            labels = tf.cast(label_ids, tf.int64)
            out[f"accuracy/{suffix}"] = m.accuracy(labels, predicted, weights=weights)
            out[f"precision/{suffix}"] = m.precision(labels, predicted, weights=weights)
            out[f"recall/{suffix}"] = m.recall(labels, predicted, weights=weights)
    return out


def multi_label_predictions(
    logits: Tensor, n_classes: int, vocabulary: Sequence[str] | None
) -> dict:
    """logits, probabilities (sigmoid), classes (every class's string, as legacy's).

    Example:
        >>> multi_label_predictions(logits, 3, None)["probabilities"]  # doctest: +SKIP
    """
    tf = import_tf()
    with tf.compat.v1.name_scope(None, "predictions", (logits,)):
        return {
            LOGITS: logits,
            PROBABILITIES: tf.sigmoid(logits, name=PROBABILITIES),
            CLASSES: _tile_rows(tf, _class_strings(tf, n_classes, vocabulary), logits),
        }


def multi_label_export_outputs(
    predictions: dict, n_classes: int, vocabulary: Sequence[str] | None
) -> dict:
    """serving_default / classification (per-class sigmoid scores), predict.

    Example:
        >>> multi_label_export_outputs(preds, 3, None)  # doctest: +SKIP
    """
    tf = import_tf()
    scores = predictions[PROBABILITIES]
    classes = _tile_rows(tf, _class_strings(tf, n_classes, vocabulary), scores)
    classify = tf_internals.classification_output_class()(scores=scores, classes=classes)
    return {
        SERVING_DEFAULT: classify,
        CLASSIFY: classify,
        PREDICT: tf_internals.predict_output_class()(predictions),
    }


def multi_label_ids(labels: Any, n_classes: int, vocabulary: Sequence[str] | None) -> Any:
    """A SparseTensor of class ids (or, with `vocabulary`, of class names) as multi-hot int64.

    Example:
        >>> multi_label_ids(sparse_names, 3, ("a", "b", "c"))  # doctest: +SKIP
    """
    tf = import_tf()
    if labels.dtype == tf.string:
        if not vocabulary:
            raise TfportInputError(
                message(
                    "String labels of a MultiLabelHead need its label_vocabulary",
                    "Pass label_vocabulary=[...] or integer class ids",
                    labels_dtype="string",
                )
            )
        init = tf.lookup.KeyValueTensorInitializer(
            tf.constant(list(vocabulary)), tf.range(len(vocabulary), dtype=tf.int64)
        )
        table = tf.lookup.StaticHashTable(init, -1, name="class_id_lookup")
        labels = tf.SparseTensor(labels.indices, table.lookup(labels.values), labels.dense_shape)
    return tf.cast(tf.sparse.to_indicator(labels, n_classes), tf.int64)


def multi_label_metrics(
    labels: Any,
    predictions: dict,
    weights: Tensor | float | None,
    unreduced_loss: Tensor,
    thresholds: Sequence[float],
    class_ids: Sequence[int] = (),
    vocabulary: Sequence[str] | None = None,
) -> dict:
    """average_loss, auc, auc_precision_recall (+ per-threshold accuracy/precision/recall,
    + per-class probability_mean, auc, auc_precision_recall for `class_ids`).

    Example:
        >>> multi_label_metrics(y, preds, None, loss, ())  # doctest: +SKIP
    """
    tf = import_tf()
    m = tf.compat.v1.metrics
    scores = predictions[PROBABILITIES]
    w = None if weights is None else tf.compat.v1.broadcast_to(weights, tf.shape(scores))
    with tf.compat.v1.name_scope(None, "metrics"):
        out = {
            "average_loss": _mean(tf, unreduced_loss, weights, "average_loss"),
            "auc": m.auc(labels, scores, weights=w, name="auc"),
            "auc_precision_recall": _keras_pr_auc(tf, labels, scores, w),
        }
        for t in thresholds:
            suffix = f"positive_threshold_{t:g}"
            predicted = tf.cast(scores > t, tf.int64)
            out[f"accuracy/{suffix}"] = m.accuracy(labels, predicted, weights=w)
            out[f"precision/{suffix}"] = m.precision(labels, predicted, weights=w)
            out[f"recall/{suffix}"] = m.recall(labels, predicted, weights=w)
        for i in class_ids:
            name = vocabulary[i] if vocabulary else f"class{i}"
            probs, hits = scores[..., i : i + 1], labels[..., i : i + 1]
            wi = None if weights is None else tf.compat.v1.broadcast_to(weights, tf.shape(probs))
            out[f"probability_mean/{name}"] = m.mean(probs, weights=wi)
            out[f"auc/{name}"] = m.auc(hits, probs, weights=wi)
            out[f"auc_precision_recall/{name}"] = _keras_pr_auc(tf, hits, probs, wi)
    return out
