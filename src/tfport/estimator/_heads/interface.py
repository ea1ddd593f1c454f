"""The public head interface (`loss`, `predictions`, `metrics`, `update_metrics`) of tfport heads.

A mixin of `heads.CannedHead`: it reuses the head's own loss and prediction code, and keeps
metrics as Keras metric objects as the legacy v2 heads did.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, Mode, Tensor, TFModule

tf = import_tf()
_Mean: Any = tf.keras.metrics.Mean


class Interface:
    """`loss` / `predictions` / `metrics` / `update_metrics` over a head's internals."""

    if TYPE_CHECKING:  # provided by the head class it is mixed into (`heads.CannedHead`)
        name: Any
        v2: bool
        kind: str
        n_classes: int
        weight_column: Any
        thresholds: tuple
        class_metrics: tuple
        is_regression: bool

        def create_loss(self, features: Features, logits: Tensor, labels: Labels) -> tuple: ...
        def _predictions(self, logits: Tensor) -> dict: ...
        def _key(self, key: str) -> str: ...

    def loss(
        self,
        labels: Labels,
        logits: Tensor,
        features: Features | None = None,
        mode: Mode | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The scalar training loss of `logits` against `labels` (plus regularization).

        Example:
            >>> loss = head.loss(labels, logits, features)  # doctest: +SKIP
        """
        del mode
        tf = import_tf()
        with tf.compat.v1.name_scope(self.name, "head"):
            logits = tf.cast(tf.convert_to_tensor(logits), tf.float32, name="logits")
            with tf.compat.v1.name_scope("losses" if self.v2 else None):
                training_loss = self.create_loss(features or {}, logits, labels)[0]
            if regularization_losses:
                training_loss = training_loss + tf.math.add_n(list(regularization_losses))
        return training_loss

    def predictions(self, logits: Tensor, keys: str | Sequence[str] | None = None) -> dict:
        """The predictions dict for `logits` (only `keys`, when given).

        Example:
            >>> head.predictions(logits, keys=["probabilities"])  # doctest: +SKIP
        """
        tf = import_tf()
        with tf.compat.v1.name_scope(self.name, "head"):
            logits = tf.cast(tf.convert_to_tensor(logits), tf.float32, name="logits")
            out = self._predictions(logits)
        if keys is None:
            return out
        keys = [keys] if isinstance(keys, str) else list(keys)
        unknown = [k for k in keys if k not in out]
        if unknown:
            raise TfportInputError(
                message(
                    "keys must be prediction keys of this head",
                    f"Use some of {sorted(out)}",
                    unknown_keys=unknown,
                )
            )
        return {k: out[k] for k in keys}

    def metrics(self, regularization_losses: Sequence[Tensor] | None = None) -> dict:
        """Fresh Keras metric objects keyed like this head's eval results.

        The same keys and metric classes as the legacy v2 heads: a binary head also has
        precision, recall, auc, auc_precision_recall, prediction/mean, label/mean,
        accuracy_baseline and the per-threshold metrics; a multi-label head auc,
        auc_precision_recall, the per-threshold and the per-class metrics.

        Example:
            >>> eval_metrics = head.metrics()  # doctest: +SKIP
        """
        km = import_tf().keras.metrics
        out = {self._key("average_loss"): km.Mean(name="average_loss")}
        binary = self._binary
        if self.kind == "classifier":
            out[self._key("accuracy")] = km.Accuracy(name="accuracy")
        if binary:
            out[self._key("precision")] = km.Precision(name="precision")
            out[self._key("recall")] = km.Recall(name="recall")
        if binary or self.is_regression:
            out[self._key("prediction/mean")] = km.Mean(name="prediction/mean")
            out[self._key("label/mean")] = km.Mean(name="label/mean")
        if binary:
            label_mean = out[self._key("label/mean")]
            out[self._key("accuracy_baseline")] = AccuracyBaseline(label_mean)
        if binary or self.kind == "multi_label":
            out[self._key("auc")] = km.AUC(name="auc")
            out[self._key("auc_precision_recall")] = km.AUC(curve="PR", name="auc_precision_recall")
        if regularization_losses is not None:
            out[self._key("regularization_loss")] = km.Mean(name="regularization_loss")
        if binary or self.kind == "multi_label":
            for t in self.thresholds:
                for kind, make in _THRESHOLD_METRICS:
                    key = self._key(f"{kind}/positive_threshold_{t:g}")
                    out[key] = make(km, key, t)
        for name in self._class_metric_names():
            for kind, make_class_metric in _CLASS_METRICS:
                key = self._key(f"{kind}/{name}")
                out[key] = make_class_metric(km, key)
        return out

    @property
    def _binary(self) -> bool:
        return self.kind == "classifier" and self.n_classes == 2

    def _class_metric_names(self) -> list:
        class_ids, vocabulary = self.class_metrics
        return [vocabulary[i] if vocabulary else f"class{i}" for i in class_ids]

    def update_metrics(
        self,
        eval_metrics: dict,
        features: Features,
        logits: Tensor,
        labels: Labels,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> dict:
        """Updates `eval_metrics` (from `metrics()`) with one batch; returns them.

        Example:
            >>> head.update_metrics(eval_metrics, features, logits, labels)  # doctest: +SKIP
        """
        tf = import_tf()
        if not isinstance(eval_metrics, dict):
            raise TfportInputError(
                message(
                    "eval_metrics must be the dict head.metrics() returned",
                    "Pass head.metrics()",
                    eval_metrics=type(eval_metrics).__name__,
                )
            )
        with tf.compat.v1.name_scope(self.name, "head"):
            logits = tf.cast(tf.convert_to_tensor(logits), tf.float32, name="logits")
            _, unreduced, weights, processed = self.create_loss(features or {}, logits, labels)
            predictions = self._predictions(logits)
        weights = None if self.weight_column is None else weights
        scores: Any = predictions.get("logistic", predictions.get("probabilities"))
        # key -> (y_true, y_pred) for labelled metrics, (values,) for means
        values: dict = {"average_loss": (unreduced,)}
        binary = self._binary
        if self.kind == "classifier":
            values["accuracy"] = (processed, predictions["class_ids"])
        if binary:
            values["precision"] = values["recall"] = values["accuracy"]
            values["prediction/mean"] = (scores,)
            values["label/mean"] = (processed,)
        if self.is_regression:
            values["prediction/mean"] = (predictions["predictions"],)
            values["label/mean"] = (processed,)
        if binary or self.kind == "multi_label":
            for key in ("auc", "auc_precision_recall"):
                values[key] = (processed, scores)
            for t in self.thresholds:
                for kind, _ in _THRESHOLD_METRICS:
                    values[f"{kind}/positive_threshold_{t:g}"] = (processed, scores)
        for i, name in zip(self.class_metrics[0], self._class_metric_names()):
            values[f"probability_mean/{name}"] = (scores[..., i : i + 1],)
            for kind in ("auc", "auc_precision_recall"):
                values[f"{kind}/{name}"] = (processed[..., i : i + 1], scores[..., i : i + 1])
        if regularization_losses is not None:
            values["regularization_loss"] = (tf.math.add_n(list(regularization_losses)),)
        # legacy's binary head updated its AUCs and baseline through these members
        update_auc = getattr(self, "_update_auc", None)
        for key, args in values.items():
            metric = eval_metrics.get(self._key(key))
            if metric is None:
                continue
            if update_auc is not None and key in ("auc", "auc_precision_recall"):
                update_auc(metric, *args, weights)
            else:
                _update(tf, metric, args, None if key == "regularization_loss" else weights)
        update_baseline = getattr(self, "_update_accuracy_baseline", None)
        pair = (self._key("label/mean"), self._key("accuracy_baseline"))
        if update_baseline is not None and all(key in eval_metrics for key in pair):
            update_baseline(eval_metrics)
        v1 = tf.compat.v1
        for metric in eval_metrics.values():  # initialized with the evaluation's locals
            for var in getattr(metric, "variables", ()):
                known = v1.get_collection(v1.GraphKeys.LOCAL_VARIABLES)
                if not any(var is old for old in known):
                    v1.add_to_collection(v1.GraphKeys.LOCAL_VARIABLES, var)
                    v1.add_to_collection(v1.GraphKeys.METRIC_VARIABLES, var)
        return eval_metrics


_THRESHOLD_METRICS = (
    ("accuracy", lambda km, key, t: km.BinaryAccuracy(name=key, threshold=t)),
    ("precision", lambda km, key, t: km.Precision(name=key, thresholds=t)),
    ("recall", lambda km, key, t: km.Recall(name=key, thresholds=t)),
)
_CLASS_METRICS = (
    ("probability_mean", lambda km, key: km.Mean(name=key)),
    ("auc", lambda km, key: km.AUC(name=key)),
    ("auc_precision_recall", lambda km, key: km.AUC(curve="PR", name=key)),
)


def _update(tf: TFModule, metric: Any, args: tuple, weights: Tensor | float | None) -> None:
    """`metric.update_state(*args)`, the weights broadcast to the values' shape (as legacy)."""
    if weights is not None:
        weights = tf.broadcast_to(tf.cast(weights, tf.float32), tf.shape(args[-1]))
    metric.update_state(*args, sample_weight=weights)


class AccuracyBaseline(_Mean):
    """A Mean whose result is max(label_mean, 1 - label_mean) of the given label/mean metric.

    The best accuracy of always predicting one class; it needs no update of its own. The
    legacy binary head replaced the metric's total and count by tensors read from label/mean
    at update time; reading them when the result is asked keeps the value right under a
    distribution strategy too (the Keras result wrapper computes it in cross-replica
    context, over every replica's sums).
    """

    def __init__(self, label_mean: object, name: str = "accuracy_baseline") -> None:
        super().__init__(name=name)
        object.__setattr__(self, "_label_mean", label_mean)  # read, not tracked

    def follow(self, label_mean: object) -> None:
        """Reads its result from `label_mean` (a label/mean metric) from now on."""
        object.__setattr__(self, "_label_mean", label_mean)

    def result(self) -> Any:
        total, count = self._label_mean.total, self._label_mean.count
        return tf.math.divide_no_nan(tf.math.maximum(total, count - total), count)
