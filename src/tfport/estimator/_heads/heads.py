"""Heads: logits -> predictions, loss, train op and metrics, as the legacy heads built them.

One class serves both generations: `v2=False` is the v1 head (`tf.compat.v1.estimator`:
ops under the caller's scope `.../head`, `optimizer.minimize(loss, global_step)`, SUM
reduction, `loss` and `average_loss` summaries); `v2=True` is the v2 head (`head/...`,
loss under `head/losses`, a Keras optimizer's `get_updates` under `training/`,
SUM_OVER_BATCH_SIZE reduction, a `loss` summary).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, KeyedColumn, Labels, OptimizerArg, Tensor, TFModule
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys
from tfport.estimator._heads import base, head_outputs, interface, label_checks, losses
from tfport.estimator._heads.base_head import keras_optimizer_train_op
from tfport.estimator._heads.legacy_members import LegacyMembers

V1_REDUCTIONS = (
    "weighted_sum",
    "weighted_mean",
    "weighted_sum_by_nonzero_weights",
    "weighted_sum_over_batch_size",
    "sum_by_nonzero_weights",
)
V2_REDUCTIONS = ("auto", "sum", "sum_over_batch_size")


class CannedHead(interface.Interface, LegacyMembers, base.Head):  # type: ignore[misc]
    """A multi-class, binary, multi-label or regression (MSE, Poisson, logistic) head.

    Args:
        kind: "classifier", "multi_label", "regression", "poisson" or "logistic".
        n_classes: classes (classifier; 2 = logistic head).
        weight_column: feature key or `numeric_column` holding example weights.
        label_vocabulary: strings the labels take (classifier).
        loss_reduction: a `tf.compat.v1.losses.Reduction` (v1) or
            `tf.keras.losses.Reduction` (v2) value other than NONE.
        v2: build the v2 head.
        label_dimension: regression output size.
        loss_fn: `loss_fn(labels, logits[, features])` -> unreduced loss, or None.
        name: suffix of the metric keys and name scope of the head's ops.
        thresholds: extra binary / multi-label metric thresholds.
        inverse_link_fn: regression predictions from logits.
        compute_full_loss: Poisson loss with the Stirling term.

    Example:
        >>> head = CannedHead("classifier", n_classes=3)  # doctest: +SKIP
    """

    def __init__(
        self,
        kind: str,
        n_classes: int = 2,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        loss_reduction: str | None = None,
        v2: bool = False,
        label_dimension: int = 1,
        loss_fn: Callable[..., object] | None = None,
        name: str | None = None,
        thresholds: Sequence[float] | None = None,
        inverse_link_fn: Callable[[Tensor], object] | None = None,
        compute_full_loss: bool = True,
    ) -> None:
        self.kind, self.v2 = kind, v2
        self.n_classes, self.label_dimension = n_classes, label_dimension
        self.weight_column = weight_column
        self.vocabulary = tuple(label_vocabulary) if label_vocabulary is not None else None
        self._loss_reduction = loss_reduction or ("sum_over_batch_size" if v2 else "weighted_sum")
        self.loss_fn, self._name, self.inverse_link_fn = loss_fn, name, inverse_link_fn
        self.thresholds = tuple(thresholds or ())
        self.compute_full_loss = compute_full_loss
        _validate(self)

    class_metrics: tuple = ((), None)  # multi-label: (class ids, vocabulary) of per-class metrics
    name = property(lambda self: self._name, doc="Suffix of the metric keys, or None.")
    loss_reduction = property(lambda self: self._loss_reduction, doc="The loss reduction.")
    is_regression = property(lambda self: self.kind in ("regression", "poisson", "logistic"))

    @property
    def logits_dimension(self) -> int:
        """Width of the logits the model must produce."""
        if self.is_regression:
            return self.label_dimension
        if self.kind == "multi_label":
            return self.n_classes
        return 1 if self.n_classes == 2 else self.n_classes

    def _key(self, key: str) -> str:
        return f"{key}/{self._name}" if self._name else key

    def create_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        trainable_variables: Sequence[object] | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        update_ops: Sequence[object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> EstimatorSpec:
        """The EstimatorSpec of `mode` for `logits` (train_op from optimizer or train_op_fn).

        Example:
            >>> head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)
            ... # doctest: +SKIP
        """
        tf = import_tf()
        with tf.compat.v1.name_scope(self._name, "head"):
            logits = tf.cast(tf.convert_to_tensor(logits), tf.float32, name="logits")
            predictions = self._predictions(logits)
            if mode == ModeKeys.PREDICT:
                return EstimatorSpec(
                    mode, predictions=predictions, export_outputs=self._export_outputs(predictions)
                )
            loss_scope = "losses" if self.v2 else None
            with tf.compat.v1.name_scope(loss_scope):
                parts = self.create_loss(features, logits, labels)
            training_loss, unreduced, weights, processed = parts
            reg = _regularization(tf, regularization_losses)
            if reg is not None:
                training_loss = tf.add(training_loss, reg, name="regularized_training_loss")
            if mode == ModeKeys.EVAL:
                metrics = self._metrics(processed, predictions, weights, unreduced)
                if reg is not None:
                    metrics["regularization_loss"] = v1_mean(tf, reg, "regularization_loss")
                metrics = {self._key(k): v for k, v in metrics.items()}
                return EstimatorSpec(
                    mode, predictions=predictions, loss=training_loss, eval_metric_ops=metrics
                )
            if not self.v2:
                train_op = self._train_op_v1(training_loss, optimizer, train_op_fn, update_ops)
                mean_loss = self._mean_loss_v1(tf, training_loss, unreduced, weights)
        if self.v2:
            train_op = self._train_op_v2(
                training_loss, optimizer, train_op_fn, trainable_variables, update_ops
            )
            mean_loss = None
        _summaries(tf, training_loss, mean_loss, self._key, reg)
        return EstimatorSpec(mode, predictions=predictions, loss=training_loss, train_op=train_op)

    # -- predictions / outputs / metrics ------------------------------------------------
    def _predictions(self, logits: Tensor) -> dict:
        link = {"poisson": "exp", "logistic": "sigmoid"}.get(self.kind)
        if self.is_regression and (link or self.inverse_link_fn):
            tf = import_tf()
            fn = self.inverse_link_fn or getattr(tf.math, link or "")
            with tf.compat.v1.name_scope(None, "predictions", (logits,)):
                return {head_outputs.PREDICTIONS: fn(logits), head_outputs.LOGITS: logits}
        if self.is_regression:
            return {head_outputs.PREDICTIONS: logits}
        if self.kind == "multi_label":
            return head_outputs.multi_label_predictions(logits, self.n_classes, self.vocabulary)
        return head_outputs.classifier_predictions(logits, self.n_classes, self.vocabulary)

    def _export_outputs(self, predictions: dict) -> dict:
        if self.is_regression:
            return head_outputs.regression_export_outputs(predictions)
        if self.kind == "multi_label":
            return head_outputs.multi_label_export_outputs(
                predictions, self.n_classes, self.vocabulary
            )
        return head_outputs.classifier_export_outputs(predictions, self.n_classes, self.vocabulary)

    def _metrics(
        self,
        processed: Tensor,
        predictions: dict,
        weights: Tensor | float | None,
        unreduced: Tensor,
    ) -> dict:
        weights = None if self.weight_column is None else weights
        if self.is_regression:
            return head_outputs.regression_metrics(processed, predictions, weights, unreduced)
        if self.kind == "multi_label":
            return head_outputs.multi_label_metrics(
                processed, predictions, weights, unreduced, self.thresholds, *self.class_metrics
            )
        out = head_outputs.classifier_metrics(
            self.n_classes, processed, predictions, weights, unreduced, v2=self.v2
        )
        out.update(head_outputs.threshold_metrics(processed, predictions, weights, self.thresholds))
        return out

    # -- loss ------------------------------------------------------------------------------
    def create_loss(self, features: Features, logits: Tensor, labels: Labels) -> tuple:
        """(training_loss, unreduced_loss [batch, 1], weights, processed_labels)."""
        tf = import_tf()
        labels = self._labels(tf, labels, logits)
        unreduced = losses.unreduced_loss(self, labels, logits, features)
        weights = self._weights(tf, features, logits)
        return self._reduce(tf, unreduced, weights), unreduced, weights, labels

    def _labels(self, tf: TFModule, labels: Any, logits: Any) -> Any:
        if labels is None:
            raise TfportInputError(
                message(
                    "This canned estimator needs labels in TRAIN and EVAL",
                    "Return (features, labels) from input_fn",
                    labels=None,
                )
            )
        labels = tf.compat.v1.convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, tf.SparseTensor) and self.kind == "multi_label":
            labels = head_outputs.multi_label_ids(labels, self.n_classes, self.vocabulary)
        if isinstance(labels, tf.SparseTensor):
            raise TfportInputError(
                message(
                    "labels must be a dense Tensor",
                    "Convert with tf.sparse.to_dense",
                    labels=labels,
                )
            )
        with tf.compat.v1.name_scope(None, "labels", (labels, logits)):
            if labels.shape.rank is not None and labels.shape.rank == logits.shape.rank - 1:
                labels = tf.expand_dims(labels, -1)
            want = self.logits_dimension if self.kind != "classifier" else 1
            if labels.shape.rank is not None and labels.shape[-1] not in (None, want):
                raise TfportInputError(
                    message(
                        f"labels must have shape [batch_size, {want}]",
                        "Reshape the labels",
                        labels_shape=str(labels.shape),
                    )
                )
        if self.is_regression:
            labels = tf.cast(labels, tf.float32)
            if self.kind == "logistic":
                what = "labels of a logistic regression head must be within 0 and 1"
                check = label_checks.assert_labels((labels >= 0) & (labels <= 1), labels, what)
                with tf.control_dependencies([check]):
                    labels = tf.identity(labels)
            return labels
        if self.kind == "multi_label":
            what = "labels of a multi-label head must be 0 or 1"
            check = label_checks.assert_labels((labels >= 0) & (labels <= 1), labels, what)
            with tf.control_dependencies([check]):
                return tf.cast(labels, tf.int64)
        label_checks.check_label_dtype(
            labels, self.vocabulary, "multi_class" if self.n_classes > 2 else "binary"
        )
        return self._label_ids(tf, labels)

    def _label_ids(self, tf: TFModule, labels: Any) -> Any:
        n = self.n_classes
        if self.vocabulary is not None:
            init = tf.lookup.KeyValueTensorInitializer(
                tf.constant(list(self.vocabulary)), tf.range(len(self.vocabulary), dtype=tf.int64)
            )
            ids = tf.lookup.StaticHashTable(init, -1, name="class_id_lookup").lookup(labels)
            what = "labels must be one of label_vocabulary " + ", ".join(self.vocabulary)
            check = label_checks.assert_labels(ids >= 0, labels, what)
        elif n == 2 and not labels.dtype.is_integer:
            ids = tf.cast(labels, tf.float32)
            what = "labels of a binary classifier must be within 0 and 1"
            check = label_checks.assert_labels((ids >= 0) & (ids <= 1), labels, what)
        else:
            ids = labels
            what = f"labels must be class ids from 0 to n_classes - 1 = {n - 1}"
            check = label_checks.assert_labels((ids >= 0) & (ids < n), labels, what)
        with tf.control_dependencies([check]):
            ids = tf.identity(ids)
        return tf.cast(ids, tf.float32) if n == 2 else ids

    def _weights(self, tf: TFModule, features: Any, logits: Any) -> Any:
        if self.weight_column is None:
            return 1.0
        column = self.weight_column
        key = column if isinstance(column, str) else column.key
        if key not in features:
            raise TfportInputError(
                message(
                    f"weight_column {key!r} is not among the features",
                    "Return it from input_fn",
                    received_keys=sorted(map(str, features)),
                )
            )
        weights = features[key]
        normalizer = getattr(column, "normalizer_fn", None)
        if normalizer is not None:
            weights = normalizer(weights)
        weights = tf.cast(weights, tf.float32, name="weights")
        if weights.shape.rank == logits.shape.rank - 1:
            weights = tf.expand_dims(weights, -1)
        return weights

    def _reduce(self, tf: TFModule, unreduced: Tensor, weights: Tensor | float | None) -> Any:
        if not self.v2:
            return tf.compat.v1.losses.compute_weighted_loss(
                unreduced, weights=weights, reduction=self.loss_reduction
            )
        with tf.compat.v1.name_scope(None, "weighted_loss"):
            weighted = tf.multiply(unreduced, weights)
            total = tf.reduce_sum(weighted)
            if self.loss_reduction == "sum":
                return total  # "auto" and "sum_over_batch_size" average over elements
            count = tf.cast(tf.size(weighted), tf.float32, name="num_elements")
            return tf.math.divide_no_nan(total, count, name="value")

    # -- training ----------------------------------------------------------------------------
    def _train_op_v1(
        self,
        loss: Tensor,
        optimizer: Any,
        train_op_fn: Any,
        extra: Sequence[object] | None,
    ) -> Any:
        tf = import_tf()
        v1 = tf.compat.v1
        if (optimizer is None) == (train_op_fn is None):
            raise TfportInputError(
                message(
                    "Exactly one of optimizer and train_op_fn is needed",
                    "Pass one",
                    optimizer=optimizer,
                )
            )
        if optimizer is not None:
            train_op = optimizer.minimize(loss, global_step=v1.train.get_global_step())
        else:
            train_op = train_op_fn(loss)
        update_ops = v1.get_collection(v1.GraphKeys.UPDATE_OPS) + list(extra or [])
        return tf.group(train_op, *update_ops) if update_ops else train_op

    def _mean_loss_v1(
        self, tf: TFModule, loss: Tensor, unreduced: Tensor, weights: Tensor | float | None
    ) -> Any:
        if self.loss_reduction != "weighted_sum":
            return None
        return loss / tf.reduce_sum(weights * tf.ones_like(unreduced))

    def _train_op_v2(
        self,
        loss: Tensor,
        optimizer: Any,
        train_op_fn: Any,
        variables: Sequence[object] | None,
        extra: Sequence[object] | None,
    ) -> Any:
        tf = import_tf()
        v1 = tf.compat.v1
        with v1.get_default_graph().name_scope(None), v1.name_scope("training"):
            if (optimizer is None) == (train_op_fn is None):
                raise TfportInputError(
                    message(
                        "Exactly one of optimizer and train_op_fn is needed",
                        "Pass one",
                        optimizer=optimizer,
                    )
                )
            if optimizer is not None:
                if variables is None:
                    raise TfportInputError(
                        message(
                            "trainable_variables are needed with a Keras optimizer",
                            "Pass trainable_variables=tf.compat.v1.trainable_variables()",
                            trainable_variables=None,
                        )
                    )
                mean = self.loss_reduction != "sum"  # b_r / B: 1/N if even
                train_op = keras_optimizer_train_op(optimizer, loss, variables, mean)
            else:
                train_op = train_op_fn(loss)
            update_ops = v1.get_collection(v1.GraphKeys.UPDATE_OPS) + list(extra or [])
            return tf.group(train_op, *update_ops) if update_ops else train_op


def _summaries(
    tf: TFModule,
    loss: Tensor,
    mean_loss: Tensor | None,
    key: Callable[[str], str],
    reg: Tensor | None = None,
) -> None:
    v1 = tf.compat.v1
    with v1.get_default_graph().name_scope(None):
        v1.summary.scalar(key("loss"), loss)
        if mean_loss is not None:
            v1.summary.scalar(key("average_loss"), mean_loss)
        if reg is not None:
            v1.summary.scalar(key("regularization_loss"), reg)


def _regularization(tf: TFModule, regularization_losses: Sequence[Tensor] | None) -> Any:
    if not regularization_losses:
        return None
    return tf.math.add_n(list(regularization_losses), name="regularization_loss")


def v1_mean(tf: TFModule, value: Tensor, name: str) -> tuple:
    """A `tf.compat.v1.metrics.mean` of `value` (value_op, update_op)."""
    return tf.compat.v1.metrics.mean(value, name=name)


def _validate(head: CannedHead) -> None:
    allowed = V2_REDUCTIONS if head.v2 else V1_REDUCTIONS
    if head.loss_reduction not in allowed:
        raise TfportInputError(
            message(
                "loss_reduction is not a valid reduction for this estimator",
                f"Use one of {list(allowed)}",
                loss_reduction=head.loss_reduction,
            )
        )
    if head.kind in ("classifier", "multi_label"):
        if not isinstance(head.n_classes, int) or head.n_classes < 2:
            raise TfportInputError(
                message("n_classes must be an int >= 2", "Fix n_classes", n_classes=head.n_classes)
            )
        vocab = head.vocabulary
        if head.loss_fn is not None and not callable(head.loss_fn):
            raise TfportInputError(
                message("loss_fn must be callable", "Pass a function", loss_fn=head.loss_fn)
            )
        if vocab is not None and (
            len(vocab) != head.n_classes or not all(isinstance(v, str) for v in vocab)
        ):
            raise TfportInputError(
                message(
                    "label_vocabulary must hold n_classes strings",
                    "Fix label_vocabulary",
                    label_vocabulary=list(vocab),
                    n_classes=head.n_classes,
                )
            )
