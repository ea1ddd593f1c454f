"""The v1 heads of legacy `canned/head.py`: `_Head` and its factories.

Libraries subclass `_Head` (defining `name`, `logits_dimension`, `create_loss` and
`create_estimator_spec`) or call the factories (`_binary_logistic_head_with_sigmoid_
cross_entropy_loss`, ...) from a model_fn. The concrete heads build their ops with tfport's
v1 head (the one the v1 canned estimators use: SUM reduction by default, `loss` and
`average_loss` summaries, `tf.compat.v1.metrics`).

Example:
    >>> head = _regression_head(label_dimension=1)  # doctest: +SKIP
    >>> spec = head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)
    ... # doctest: +SKIP
"""

from __future__ import annotations

import abc
import collections
from collections.abc import Callable, Sequence
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, KeyedColumn, Labels, OptimizerArg, Tensor
from tfport.estimator._heads import head_outputs, heads

_DEFAULT_SERVING_KEY = "serving_default"
_CLASSIFY_SERVING_KEY = "classification"
_REGRESS_SERVING_KEY = "regression"
_PREDICT_SERVING_KEY = "predict"
_WEIGHTED_SUM = "weighted_sum"

LossSpec = collections.namedtuple(
    "LossSpec", ["training_loss", "unreduced_loss", "weights", "processed_labels"]
)


def _summary_key(head_name: str | None, val: str) -> str:
    """`val/head_name`, or `val` for an unnamed head (legacy metric and summary keys)."""
    return f"{val}/{head_name}" if head_name else val


class _Head(abc.ABC):  # noqa: B024 - the legacy base class, abstract members below
    """The v1 head interface (legacy `canned.head._Head`), a base class for libraries.

    Example:
        >>> class MyHead(_Head): ...  # doctest: +SKIP
    """

    v2 = False  # canned model_fns build a v1 (tf.compat.v1 optimizer) model around it

    @property
    @abc.abstractmethod
    def name(self) -> Any:
        """The head's name (suffix of its metric keys), or None."""

    @property
    @abc.abstractmethod
    def logits_dimension(self) -> int:
        """Width of the logits the model must produce."""

    @abc.abstractmethod
    def create_loss(
        self, features: Features, mode: str, logits: Tensor, labels: Labels
    ) -> LossSpec:
        """The `LossSpec` of `logits` against `labels`."""

    def create_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The EstimatorSpec of `mode`, made from `_create_tpu_estimator_spec` by default."""
        try:
            spec = self._create_tpu_estimator_spec(
                features, mode, logits, labels, optimizer, train_op_fn, regularization_losses
            )
        except NotImplementedError as e:
            raise NotImplementedError(
                "Subclasses of _Head must implement `create_estimator_spec()` or "
                "_create_tpu_estimator_spec()."
            ) from e
        return spec.as_estimator_spec()

    def _create_tpu_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")


class _V1Head(_Head):
    """A concrete v1 head backed by tfport's v1 `heads.CannedHead`."""

    _impl: heads.CannedHead

    @property
    def name(self) -> Any:
        return self._impl.name

    @property
    def logits_dimension(self) -> int:
        return self._impl.logits_dimension

    def create_loss(
        self, features: Features, mode: str, logits: Tensor, labels: Labels
    ) -> LossSpec:
        """`LossSpec(training_loss, unreduced_loss, weights, processed_labels)`."""
        del mode
        tf = import_tf()
        logits = tf.cast(tf.convert_to_tensor(logits), tf.float32)
        return LossSpec(*self._impl.create_loss(features, logits, labels))

    def create_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The EstimatorSpec of `mode` (train op from `optimizer` or `train_op_fn`)."""
        return self._impl.create_estimator_spec(
            features,
            mode,
            logits,
            labels,
            optimizer=optimizer,
            train_op_fn=train_op_fn,
            regularization_losses=regularization_losses,
        )

    def _with_regularization(self, metrics: dict, regularization_loss: Tensor | None) -> dict:
        tf = import_tf()
        if regularization_loss is not None:
            metrics["regularization_loss"] = heads.v1_mean(
                tf, regularization_loss, "regularization_loss"
            )
        return {_summary_key(self.name, k): v for k, v in metrics.items()}


class _BinaryLogisticHeadWithSigmoidCrossEntropyLoss(_V1Head):
    """Binary classification head: sigmoid cross-entropy on one logit."""

    def __init__(
        self,
        weight_column: str | KeyedColumn | None = None,
        thresholds: Sequence[float] | None = None,
        label_vocabulary: Sequence[str] | None = None,
        loss_reduction: str = _WEIGHTED_SUM,
        loss_fn: Callable[..., object] | None = None,
        name: str | None = None,
    ) -> None:
        self._impl = heads.CannedHead(
            "classifier",
            n_classes=2,
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
            loss_fn=loss_fn,
            name=name,
            thresholds=thresholds,
        )

    def _eval_metric_ops(
        self,
        labels: Tensor,
        logits: Tensor,
        logistic: Tensor,
        class_ids: Tensor,
        weights: Tensor | float | None,
        unreduced_loss: Tensor,
        regularization_loss: Tensor | None,
    ) -> dict:
        """The head's eval metrics from its tensors (legacy keys, suffixed by the name)."""
        impl = self._impl
        predictions = {"logits": logits, "logistic": logistic, "class_ids": class_ids}
        return self._with_regularization(
            impl._metrics(labels, predictions, weights, unreduced_loss), regularization_loss
        )


class _MultiClassHeadWithSoftmaxCrossEntropyLoss(_V1Head):
    """Multi-class classification head: softmax cross-entropy on `n_classes` logits."""

    def __init__(
        self,
        n_classes: int,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        loss_reduction: str = _WEIGHTED_SUM,
        loss_fn: Callable[..., object] | None = None,
        name: str | None = None,
    ) -> None:
        _validate_n_classes(n_classes)
        self._impl = heads.CannedHead(
            "classifier",
            n_classes=n_classes,
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
            loss_fn=loss_fn,
            name=name,
        )

    def _label_ids(self, labels: Tensor) -> Any:
        """Labels as class ids (looked up in the vocabulary when there is one)."""
        return self._impl._label_ids(import_tf(), labels)

    def _eval_metric_ops(
        self,
        labels: Tensor,
        class_ids: Tensor,
        weights: Tensor | float | None,
        unreduced_loss: Tensor,
        regularization_loss: Tensor | None,
    ) -> dict:
        """The head's eval metrics from its tensors (legacy keys, suffixed by the name)."""
        predictions = {"class_ids": class_ids}
        return self._with_regularization(
            self._impl._metrics(labels, predictions, weights, unreduced_loss), regularization_loss
        )


class _RegressionHeadWithMeanSquaredErrorLoss(_V1Head):
    """Regression head: mean squared error on `label_dimension` outputs."""

    def __init__(
        self,
        label_dimension: int,
        weight_column: str | KeyedColumn | None = None,
        loss_reduction: str = _WEIGHTED_SUM,
        loss_fn: Callable[..., object] | None = None,
        inverse_link_fn: Callable[[Tensor], object] | None = None,
        name: str | None = None,
    ) -> None:
        self._impl = heads.CannedHead(
            "regression",
            label_dimension=label_dimension,
            weight_column=weight_column,
            loss_reduction=loss_reduction,
            loss_fn=loss_fn,
            name=name,
            inverse_link_fn=inverse_link_fn,
        )

    def _eval_metric_ops(
        self,
        predicted_value: Tensor,
        labels: Tensor,
        weights: Tensor | float | None,
        unreduced_loss: Tensor,
        regularization_loss: Tensor | None,
    ) -> dict:
        """The head's eval metrics from its tensors (legacy keys, suffixed by the name)."""
        predictions = {"predictions": predicted_value}
        return self._with_regularization(
            self._impl._metrics(labels, predictions, weights, unreduced_loss), regularization_loss
        )


def _binary_logistic_head_with_sigmoid_cross_entropy_loss(
    weight_column: str | KeyedColumn | None = None,
    thresholds: Sequence[float] | None = None,
    label_vocabulary: Sequence[str] | None = None,
    loss_reduction: str = _WEIGHTED_SUM,
    loss_fn: Callable[..., object] | None = None,
    name: str | None = None,
) -> _Head:
    """A v1 binary classification head (legacy private factory).

    Example:
        >>> head = _binary_logistic_head_with_sigmoid_cross_entropy_loss()  # doctest: +SKIP
    """
    return _BinaryLogisticHeadWithSigmoidCrossEntropyLoss(
        weight_column, thresholds, label_vocabulary, loss_reduction, loss_fn, name
    )


def _multi_class_head_with_softmax_cross_entropy_loss(
    n_classes: int,
    weight_column: str | KeyedColumn | None = None,
    label_vocabulary: Sequence[str] | None = None,
    loss_reduction: str = _WEIGHTED_SUM,
    loss_fn: Callable[..., object] | None = None,
    name: str | None = None,
) -> _Head:
    """A v1 multi-class head (legacy private factory; n_classes > 2).

    Example:
        >>> head = _multi_class_head_with_softmax_cross_entropy_loss(3)  # doctest: +SKIP
    """
    return _MultiClassHeadWithSoftmaxCrossEntropyLoss(
        n_classes, weight_column, label_vocabulary, loss_reduction, loss_fn, name
    )


def _regression_head(
    weight_column: str | KeyedColumn | None = None,
    label_dimension: int = 1,
    loss_reduction: str = _WEIGHTED_SUM,
    loss_fn: Callable[..., object] | None = None,
    inverse_link_fn: Callable[[Tensor], object] | None = None,
    name: str | None = None,
) -> _Head:
    """A v1 mean-squared-error regression head (legacy private factory).

    Example:
        >>> head = _regression_head(label_dimension=2)  # doctest: +SKIP
    """
    return _RegressionHeadWithMeanSquaredErrorLoss(
        label_dimension, weight_column, loss_reduction, loss_fn, inverse_link_fn, name
    )


def _binary_logistic_or_multi_class_head(
    n_classes: int,
    weight_column: str | KeyedColumn | None,
    label_vocabulary: Sequence[str] | None,
    loss_reduction: str,
) -> _Head:
    """The binary head for `n_classes == 2`, else the multi-class head.

    Example:
        >>> _binary_logistic_or_multi_class_head(2, None, None, "weighted_sum")  # doctest: +SKIP
    """
    if n_classes == 2:
        return _binary_logistic_head_with_sigmoid_cross_entropy_loss(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
        )
    return _multi_class_head_with_softmax_cross_entropy_loss(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )


def _validate_n_classes(n_classes: object) -> Any:
    """Checks `n_classes > 2` (legacy raises ValueError otherwise); returns it."""
    if isinstance(n_classes, int) and n_classes <= 2:
        raise ValueError(f"n_classes must be > 2: {n_classes}.")
    return n_classes


def _classification_output(
    scores: Tensor, n_classes: int, label_vocabulary: Sequence[str] | None = None
) -> Any:
    """A `ClassificationOutput` of `scores` with one class string per column.

    Example:
        >>> _classification_output(probabilities, 3)  # doctest: +SKIP
    """
    tf = import_tf()
    classes = head_outputs._class_strings(tf, n_classes, label_vocabulary)
    tiled = head_outputs._tile_rows(tf, classes, scores)
    return tf_internals.classification_output_class()(scores=scores, classes=tiled)


def _all_class_ids(logits: Tensor, n_classes: int) -> Any:
    """`[batch, n_classes]` class ids 0..n_classes-1 per row."""
    tf = import_tf()
    return head_outputs._tile_rows(tf, tf.range(n_classes), logits)


def _all_classes(
    logits: Tensor, n_classes: int, label_vocabulary: Sequence[str] | None = None
) -> Any:
    """`[batch, n_classes]` class strings per row (the vocabulary when given)."""
    tf = import_tf()
    return head_outputs._tile_rows(
        tf, head_outputs._class_strings(tf, n_classes, label_vocabulary), logits
    )


def _check_logits_final_dim(logits: Any, expected_logits_dimension: int) -> Any:
    """`logits` after checking its last dimension is `expected_logits_dimension`."""
    tf = import_tf()
    logits = tf.convert_to_tensor(logits)
    last = logits.shape[-1] if logits.shape.rank else None
    if last is not None and last != expected_logits_dimension:
        raise ValueError(
            f"logits shape must be [D0, D1, ... DN, logits_dimension], got {logits.shape}."
        )
    return logits
