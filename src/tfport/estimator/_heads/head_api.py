"""The public v2 heads (`tf.estimator.MultiClassHead`, ...) as classes.

Each is a `tf.estimator.Head` with the legacy constructor; any of them (or a user's
`Head` subclass) can be given to the canned `*Estimator` classes or used in a custom
model_fn via `create_estimator_spec`.

Example:
    >>> head = MultiClassHead(n_classes=3)  # doctest: +SKIP
    >>> head.logits_dimension  # doctest: +SKIP
    3
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, KeyedColumn, Tensor
from tfport.estimator._heads import heads, interface

SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


def _check_thresholds(thresholds: Iterable[object] | None) -> tuple:
    values = tuple(thresholds or ())
    for t in values:
        if isinstance(t, bool) or not isinstance(t, (int, float)) or not 0 < t < 1:
            raise TfportInputError(
                message(
                    "thresholds must be in (0, 1) range",
                    "Pass e.g. thresholds=[0.3, 0.7]",
                    thresholds=list(values),
                )
            )
    return values


def _check_label_dimension(label_dimension: object) -> None:
    if isinstance(label_dimension, bool) or not isinstance(label_dimension, int):
        label_dimension = -1 if label_dimension is None else label_dimension
    if not isinstance(label_dimension, int) or label_dimension < 1:
        raise TfportInputError(
            message(
                "label_dimension must be a positive int",
                "Fix label_dimension",
                label_dimension=label_dimension,
            )
        )


def _check_columns(weight_column: object, label_vocabulary: object = None) -> None:
    """weight_column: None, a key or a numeric column; label_vocabulary: a list/tuple."""
    if weight_column is not None and not (
        isinstance(weight_column, str) or hasattr(weight_column, "key")
    ):
        raise TfportInputError(
            message(
                "weight_column must be a string or a numeric_column",
                "Pass the weight feature's key",
                weight_column=weight_column,
            )
        )
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
        raise TfportInputError(
            message(
                "label_vocabulary should be a list or a tuple",
                "Pass e.g. label_vocabulary=['no', 'yes']",
                label_vocabulary_type=type(label_vocabulary).__name__,
            )
        )


class MultiClassHead(heads.CannedHead):
    """Softmax cross-entropy over `n_classes` (> 2) classes.

    Example:
        >>> head = MultiClassHead(3, label_vocabulary=["a", "b", "c"])  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.MultiClassHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.MultiClassHead",)

    def __init__(
        self,
        n_classes: int,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Callable[..., object] | None = None,
        name: str | None = None,
    ) -> None:
        if isinstance(n_classes, int) and n_classes == 2:
            raise TfportInputError(
                message(
                    "MultiClassHead needs n_classes > 2",
                    "Use BinaryClassHead for 2 classes",
                    n_classes=n_classes,
                )
            )
        _check_columns(weight_column, label_vocabulary)
        super().__init__(
            "classifier",
            n_classes,
            weight_column,
            label_vocabulary,
            loss_reduction,
            True,
            loss_fn=loss_fn,
            name=name,
        )

    def _unweighted_loss_and_weights(
        self, logits: Tensor, label_ids: Tensor, features: Features
    ) -> tuple:
        """`(per-example loss, weights)` for class ids (legacy's parameter names)."""
        return super()._unweighted_loss_and_weights(logits, label_ids, features)


class BinaryClassHead(heads.CannedHead):
    """Sigmoid cross-entropy (logistic) head for two classes.

    Example:
        >>> head = BinaryClassHead(thresholds=[0.3])  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.BinaryClassHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.BinaryClassHead",)

    def __init__(
        self,
        weight_column: str | KeyedColumn | None = None,
        thresholds: Sequence[float] | None = None,
        label_vocabulary: Sequence[str] | None = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Callable[..., object] | None = None,
        name: str | None = None,
    ) -> None:
        _check_columns(weight_column, label_vocabulary)
        super().__init__(
            "classifier",
            2,
            weight_column,
            label_vocabulary,
            loss_reduction,
            True,
            loss_fn=loss_fn,
            name=name,
            thresholds=_check_thresholds(thresholds),
        )

    def _update_accuracy_baseline(self, eval_metrics: dict) -> None:
        """Makes `eval_metrics`' accuracy_baseline follow its label/mean metric.

        The baseline is the accuracy of always predicting the more frequent class:
        `max(label_mean, 1 - label_mean)`, from the label/mean metric's total and count
        (`update_metrics` calls it after updating label/mean).
        """
        label_mean = eval_metrics[self._key("label/mean")]
        baseline = eval_metrics[self._key("accuracy_baseline")]
        if isinstance(baseline, interface.AccuracyBaseline):
            baseline.follow(label_mean)
            return
        # another Mean (a dict a subclass built): its sums become label/mean's, as legacy
        tf = import_tf()
        baseline.add_update(tf.no_op())
        baseline.total = tf.math.maximum(label_mean.total, label_mean.count - label_mean.total)
        baseline.count = label_mean.count

    def _update_auc(
        self,
        auc_metric: Any,
        labels: Tensor,
        predictions: Tensor,
        weights: Tensor | float | None = None,
    ) -> None:
        """Updates an AUC metric with float32 `predictions`, `weights` broadcast to them."""
        tf = import_tf()
        predictions = tf.cast(predictions, tf.float32)
        if weights is not None:
            weights = tf.broadcast_to(tf.cast(weights, tf.float32), tf.shape(predictions))
        auc_metric.update_state(y_true=labels, y_pred=predictions, sample_weight=weights)


class MultiLabelHead(heads.CannedHead):
    """Sigmoid cross-entropy per class: each example may have several of `n_classes` labels.

    Labels: a multi-hot `[batch, n_classes]` tensor or a SparseTensor of class ids.

    Example:
        >>> head = MultiLabelHead(n_classes=4)  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.MultiLabelHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.MultiLabelHead",)

    def __init__(
        self,
        n_classes: int,
        weight_column: str | KeyedColumn | None = None,
        thresholds: Sequence[float] | None = None,
        label_vocabulary: Sequence[str] | None = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Callable[..., object] | None = None,
        classes_for_class_based_metrics: Sequence[int | str] | None = None,
        name: str | None = None,
    ) -> None:
        _check_columns(weight_column, label_vocabulary)
        if label_vocabulary is not None and len(label_vocabulary) != n_classes:
            raise TfportInputError(
                message(
                    f"Length of label_vocabulary must be n_classes ({n_classes})",
                    "Give one name per class",
                    label_vocabulary=list(label_vocabulary),
                )
            )
        class_ids = _class_ids(classes_for_class_based_metrics, n_classes, label_vocabulary)
        super().__init__(
            "multi_label",
            n_classes,
            weight_column,
            label_vocabulary,
            loss_reduction,
            True,
            loss_fn=loss_fn,
            name=name,
            thresholds=_check_thresholds(thresholds),
        )
        self.class_metrics = (class_ids, self.vocabulary)

    def _unweighted_loss_and_weights(
        self, logits: Tensor, processed_labels: Tensor, features: Features
    ) -> tuple:
        """`(per-example loss, weights)` for 0/1 labels (legacy's parameter names)."""
        return super()._unweighted_loss_and_weights(logits, processed_labels, features)


def _class_ids(
    classes: Sequence[int | str] | None, n_classes: int, vocabulary: Sequence[str] | None
) -> tuple:
    """classes_for_class_based_metrics as class ids (names looked up in the vocabulary)."""
    ids = []
    for c in tuple(classes or ()):
        if isinstance(c, str) and vocabulary and c in vocabulary:
            ids.append(list(vocabulary).index(c))
        elif not isinstance(c, str) and isinstance(c, int) and 0 <= c < n_classes:
            ids.append(c)
        else:
            raise TfportInputError(
                message(
                    f"classes_for_class_based_metrics must be class ids in [0, {n_classes - 1}] "
                    "or names of label_vocabulary",
                    "Fix the class",
                    class_=c,
                    label_vocabulary=vocabulary,
                )
            )
    return tuple(ids)


class RegressionHead(heads.CannedHead):
    """Mean squared error (or `loss_fn`) regression head.

    Example:
        >>> head = RegressionHead(label_dimension=2)  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.RegressionHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.RegressionHead",)

    def __init__(
        self,
        label_dimension: int = 1,
        weight_column: str | KeyedColumn | None = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        loss_fn: Callable[..., object] | None = None,
        inverse_link_fn: Callable[[Tensor], object] | None = None,
        name: str | None = None,
    ) -> None:
        _check_label_dimension(label_dimension)
        if inverse_link_fn is not None and not callable(inverse_link_fn):
            raise TfportInputError(
                message(
                    "inverse_link_fn must be callable",
                    "Pass a function",
                    inverse_link_fn=inverse_link_fn,
                )
            )
        _check_columns(weight_column)
        super().__init__(
            "regression",
            2,
            weight_column,
            None,
            loss_reduction,
            True,
            label_dimension=label_dimension,
            loss_fn=loss_fn,
            name=name,
            inverse_link_fn=inverse_link_fn,
        )


class PoissonRegressionHead(heads.CannedHead):
    """Poisson regression: `log_poisson_loss` on log-rate logits, predictions `exp(logits)`.

    Example:
        >>> head = PoissonRegressionHead()  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.PoissonRegressionHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.PoissonRegressionHead",)

    def __init__(
        self,
        label_dimension: int = 1,
        weight_column: str | KeyedColumn | None = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        compute_full_loss: bool = True,
        name: str | None = None,
    ) -> None:
        _check_label_dimension(label_dimension)
        _check_columns(weight_column)
        super().__init__(
            "poisson",
            2,
            weight_column,
            None,
            loss_reduction,
            True,
            label_dimension=label_dimension,
            name=name,
            compute_full_loss=compute_full_loss,
        )

    def _poisson_loss(self, labels: Tensor, logits: Tensor) -> Any:
        """`log_poisson_loss` of log-rate `logits` (full loss when `compute_full_loss`)."""
        return import_tf().nn.log_poisson_loss(
            targets=labels, log_input=logits, compute_full_loss=self.compute_full_loss
        )


class LogisticRegressionHead(heads.CannedHead):
    """Logistic regression: labels in [0, 1], sigmoid cross-entropy, predictions sigmoid.

    Example:
        >>> head = LogisticRegressionHead()  # doctest: +SKIP
    """

    _estimator_api_names = ("estimator.LogisticRegressionHead",)  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.LogisticRegressionHead",)

    def __init__(
        self,
        weight_column: str | KeyedColumn | None = None,
        loss_reduction: str = SUM_OVER_BATCH_SIZE,
        name: str | None = None,
    ) -> None:
        _check_columns(weight_column)
        super().__init__("logistic", 2, weight_column, None, loss_reduction, True, name=name)

    def _logistic_loss(self, labels: Any, logits: Tensor) -> Any:
        """Sigmoid cross-entropy of labels checked to lie within 0 and 1."""
        tf = import_tf()
        labels = tf.cast(labels, tf.float32)
        check = tf.debugging.assert_less_equal(
            tf.abs(labels - 0.5), 0.5, message="Labels must be in range [0, 1]"
        )
        with tf.control_dependencies([check]):
            return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)


def binary_or_multi_class_head(
    n_classes: int, weight_column: Any, label_vocabulary: Any, loss_reduction: Any
) -> Any:
    """`BinaryClassHead` for 2 classes, else `MultiClassHead` (legacy `head_utils`).

    Example:
        >>> binary_or_multi_class_head(3, None, None, "sum_over_batch_size")  # doctest: +SKIP
    """
    from tfport.estimator._heads.head_api import BinaryClassHead, MultiClassHead

    if n_classes == 2:
        return BinaryClassHead(
            weight_column=weight_column,
            label_vocabulary=label_vocabulary,
            loss_reduction=loss_reduction,
        )
    return MultiClassHead(
        n_classes,
        weight_column=weight_column,
        label_vocabulary=label_vocabulary,
        loss_reduction=loss_reduction,
    )
