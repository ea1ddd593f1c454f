"""v2 canned estimators (`tf.estimator.*`): Keras optimizers, SUM_OVER_BATCH_SIZE loss.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3,
    ...                     optimizer="Adam")  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._src.canned import base, dnn
from tfport._src.canned.base import CannedEstimator
from tfport._src.canned.combined import combined_model_fn
from tfport._src.canned.estimators_baseline import V2BaselineClassifier as BaselineClassifier
from tfport._src.canned.estimators_baseline import V2BaselineEstimator as BaselineEstimator
from tfport._src.canned.estimators_baseline import V2BaselineRegressor as BaselineRegressor
from tfport._src.canned.head_api import BinaryClassHead, MultiClassHead, RegressionHead
from tfport._src.canned.heads import Head
from tfport._src.canned.model_fns import dnn_model_fn, linear_model_fn

SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


class DNNClassifier(CannedEstimator):
    """v2 DNN classifier (Keras Adagrad by default, SUM_OVER_BATCH_SIZE)."""

    def __init__(
        self,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = "relu",
        dropout: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=True
        )
        super().__init__(
            **_dnn(
                head,
                hidden_units,
                feature_columns,
                model_dir,
                optimizer,
                activation_fn,
                dropout,
                config,
                warm_start_from,
                batch_norm,
            )
        )


class DNNRegressor(CannedEstimator):
    """v2 DNN regressor."""

    def __init__(
        self,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = "relu",
        dropout: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=True)
        super().__init__(
            **_dnn(
                head,
                hidden_units,
                feature_columns,
                model_dir,
                optimizer,
                activation_fn,
                dropout,
                config,
                warm_start_from,
                batch_norm,
            )
        )


class DNNEstimator(CannedEstimator):
    """v2 DNN with a user-given head (`MultiClassHead`, ...)."""

    def __init__(
        self,
        head: Any,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = "relu",
        dropout: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        batch_norm: bool = False,
    ) -> None:
        super().__init__(
            **_dnn(
                base.check_head(head, True),
                hidden_units,
                feature_columns,
                model_dir,
                optimizer,
                activation_fn,
                dropout,
                config,
                warm_start_from,
                batch_norm,
            )
        )


def _dnn(
    head: Head,
    hidden_units: Any,
    columns: Any,
    model_dir: Any,
    optimizer: Any,
    activation_fn: Any,
    dropout: Any,
    config: Any,
    warm_start_from: Any,
    batch_norm: bool,
) -> dict:
    return base.make(
        dnn_model_fn,
        model_dir,
        config,
        warm_start_from,
        head=head,
        hidden_units=dnn.check_hidden_units(hidden_units),
        feature_columns=tuple(columns or ()),
        optimizer=optimizer,
        activation_fn=activation_fn,
        dropout=dropout,
        batch_norm=batch_norm,
    )


def _linear(
    head: Head,
    columns: Any,
    model_dir: Any,
    optimizer: Any,
    config: Any,
    warm_start_from: Any,
    sparse_combiner: str,
) -> dict:
    return base.make(
        linear_model_fn,
        model_dir,
        config,
        warm_start_from,
        head=head,
        feature_columns=tuple(columns or ()),
        optimizer=optimizer,
        sparse_combiner=sparse_combiner,
    )


class LinearClassifier(CannedEstimator):
    """v2 linear classifier (Keras Ftrl)."""

    def __init__(
        self,
        feature_columns: Any,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
        sparse_combiner: str = "sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=True
        )
        super().__init__(
            **_linear(
                head,
                feature_columns,
                model_dir,
                optimizer,
                config,
                warm_start_from,
                sparse_combiner,
            )
        )


class LinearRegressor(CannedEstimator):
    """v2 linear regressor (Keras Ftrl)."""

    def __init__(
        self,
        feature_columns: Any,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
        sparse_combiner: str = "sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=True)
        super().__init__(
            **_linear(
                head,
                feature_columns,
                model_dir,
                optimizer,
                config,
                warm_start_from,
                sparse_combiner,
            )
        )


class LinearEstimator(CannedEstimator):
    """v2 linear model with a user-given head."""

    def __init__(
        self,
        head: Any,
        feature_columns: Any,
        model_dir: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        sparse_combiner: str = "sum",
        warm_start_from: Any = None,
    ) -> None:
        super().__init__(
            **_linear(
                base.check_head(head, True),
                feature_columns,
                model_dir,
                optimizer,
                config,
                warm_start_from,
                sparse_combiner,
            )
        )


def _combined(head: Head, model_dir: Any, config: Any, warm_start_from: Any, **kwargs: Any) -> dict:
    for key in ("linear_feature_columns", "dnn_feature_columns"):
        kwargs[key] = tuple(kwargs[key] or ())
    return base.make(combined_model_fn, model_dir, config, warm_start_from, head=head, **kwargs)


class DNNLinearCombinedClassifier(CannedEstimator):
    """v2 wide & deep classifier."""

    def __init__(
        self,
        model_dir: Any = None,
        linear_feature_columns: Any = None,
        linear_optimizer: Any = "Ftrl",
        dnn_feature_columns: Any = None,
        dnn_optimizer: Any = "Adagrad",
        dnn_hidden_units: Any = None,
        dnn_activation_fn: Any = "relu",
        dnn_dropout: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=True
        )
        super().__init__(
            **_combined(
                head,
                model_dir,
                config,
                warm_start_from,
                linear_feature_columns=linear_feature_columns,
                linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns,
                dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units,
                dnn_activation_fn=dnn_activation_fn,
                dnn_dropout=dnn_dropout,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )
        )


class DNNLinearCombinedRegressor(CannedEstimator):
    """v2 wide & deep regressor."""

    def __init__(
        self,
        model_dir: Any = None,
        linear_feature_columns: Any = None,
        linear_optimizer: Any = "Ftrl",
        dnn_feature_columns: Any = None,
        dnn_optimizer: Any = "Adagrad",
        dnn_hidden_units: Any = None,
        dnn_activation_fn: Any = "relu",
        dnn_dropout: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=True)
        super().__init__(
            **_combined(
                head,
                model_dir,
                config,
                warm_start_from,
                linear_feature_columns=linear_feature_columns,
                linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns,
                dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units,
                dnn_activation_fn=dnn_activation_fn,
                dnn_dropout=dnn_dropout,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )
        )


class DNNLinearCombinedEstimator(CannedEstimator):
    """v2 wide & deep with a user-given head."""

    def __init__(
        self,
        head: Any,
        model_dir: Any = None,
        linear_feature_columns: Any = None,
        linear_optimizer: Any = "Ftrl",
        dnn_feature_columns: Any = None,
        dnn_optimizer: Any = "Adagrad",
        dnn_hidden_units: Any = None,
        dnn_activation_fn: Any = "relu",
        dnn_dropout: Any = None,
        config: Any = None,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
        warm_start_from: Any = None,
    ) -> None:
        super().__init__(
            **_combined(
                base.check_head(head, True),
                model_dir,
                config,
                warm_start_from,
                linear_feature_columns=linear_feature_columns,
                linear_optimizer=linear_optimizer,
                dnn_feature_columns=dnn_feature_columns,
                dnn_optimizer=dnn_optimizer,
                dnn_hidden_units=dnn_hidden_units,
                dnn_activation_fn=dnn_activation_fn,
                dnn_dropout=dnn_dropout,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )
        )


__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BinaryClassHead",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "MultiClassHead",
    "RegressionHead",
]
