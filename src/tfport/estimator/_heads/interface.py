"""The public head interface (`loss`, `predictions`, `metrics`, `update_metrics`) of tfport heads.

A mixin of `heads.Head`: it reuses the head's own loss and prediction code, and keeps
metrics as Keras metric objects as the legacy v2 heads did.
"""

from __future__ import annotations

from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf


class Interface:
    """`loss` / `predictions` / `metrics` / `update_metrics` over a head's internals."""

    def loss(
        self,
        labels: Any,
        logits: Any,
        features: Any = None,
        mode: Any = None,
        regularization_losses: Any = None,
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

    def predictions(self, logits: Any, keys: Any = None) -> dict:
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

    def metrics(self, regularization_losses: Any = None) -> dict:
        """Fresh Keras metric objects keyed like this head's eval results.

        Example:
            >>> eval_metrics = head.metrics()  # doctest: +SKIP
        """
        tf = import_tf()
        mean = tf.keras.metrics.Mean
        keys = ["average_loss"]
        if self.kind == "classifier":
            out = {self._key("accuracy"): tf.keras.metrics.Accuracy(name="accuracy")}
        else:
            out = {}
            if self.is_regression:
                keys += ["prediction/mean", "label/mean"]
        if regularization_losses is not None:
            keys.append("regularization_loss")
        out.update({self._key(k): mean(name=k) for k in keys})
        return out

    def update_metrics(
        self,
        eval_metrics: dict,
        features: Any,
        logits: Any,
        labels: Any,
        regularization_losses: Any = None,
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
        values = {"average_loss": (unreduced, weights)}
        if self.kind == "classifier":
            values["accuracy"] = (processed, predictions["class_ids"], weights)
        if self.is_regression:
            values["prediction/mean"] = (predictions["predictions"], weights)
            values["label/mean"] = (processed, weights)
        if regularization_losses is not None:
            values["regularization_loss"] = (tf.math.add_n(list(regularization_losses)), None)
        for key, args in values.items():
            metric = eval_metrics.get(self._key(key))
            if metric is None:
                continue
            if key == "accuracy":
                metric.update_state(args[0], args[1], sample_weight=args[2])
            else:
                value, weight = args
                if weight is not None:
                    weight = tf.broadcast_to(weight, tf.shape(value))
                metric.update_state(value, sample_weight=weight)
        v1 = tf.compat.v1
        for metric in eval_metrics.values():  # initialized with the evaluation's locals
            for var in getattr(metric, "variables", ()):
                if var not in v1.get_collection(v1.GraphKeys.LOCAL_VARIABLES):
                    v1.add_to_collection(v1.GraphKeys.LOCAL_VARIABLES, var)
                    v1.add_to_collection(v1.GraphKeys.METRIC_VARIABLES, var)
        return eval_metrics
