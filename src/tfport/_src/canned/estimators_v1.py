"""v1 canned estimators (`tf.compat.v1.estimator.*`): v1 optimizers, SUM loss, partitioners.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3)
    ... # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._src.canned import base, dnn
from tfport._src.canned.base import CannedEstimator
from tfport._src.canned.combined import combined_model_fn
from tfport._src.canned.estimators_baseline import V1BaselineClassifier as BaselineClassifier
from tfport._src.canned.estimators_baseline import V1BaselineEstimator as BaselineEstimator
from tfport._src.canned.estimators_baseline import V1BaselineRegressor as BaselineRegressor
from tfport._src.canned.model_fns import dnn_model_fn, linear_model_fn

SUM = "weighted_sum"


class DNNClassifier(CannedEstimator):
    """v1 DNN classifier (Adagrad 0.05, SUM loss reduction)."""

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
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM,
        batch_norm: bool = False,
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
        )
        super().__init__(
            **base.make(
                dnn_model_fn,
                model_dir,
                config,
                warm_start_from,
                head=head,
                hidden_units=dnn.check_hidden_units(hidden_units),
                feature_columns=tuple(feature_columns or ()),
                optimizer=optimizer,
                activation_fn=activation_fn,
                dropout=dropout,
                batch_norm=batch_norm,
                input_layer_partitioner=input_layer_partitioner,
            )
        )


class DNNRegressor(CannedEstimator):
    """v1 DNN regressor (Adagrad 0.05, SUM loss reduction)."""

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
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM,
        batch_norm: bool = False,
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
        super().__init__(
            **base.make(
                dnn_model_fn,
                model_dir,
                config,
                warm_start_from,
                head=head,
                hidden_units=dnn.check_hidden_units(hidden_units),
                feature_columns=tuple(feature_columns or ()),
                optimizer=optimizer,
                activation_fn=activation_fn,
                dropout=dropout,
                batch_norm=batch_norm,
                input_layer_partitioner=input_layer_partitioner,
            )
        )


class DNNEstimator(CannedEstimator):
    """v1 DNN with a user-given (v1) head."""

    def __init__(
        self,
        head: Any,
        hidden_units: Any,
        feature_columns: Any,
        model_dir: Any = None,
        optimizer: Any = "Adagrad",
        activation_fn: Any = "relu",
        dropout: Any = None,
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        batch_norm: bool = False,
    ) -> None:
        super().__init__(
            **base.make(
                dnn_model_fn,
                model_dir,
                config,
                warm_start_from,
                head=base.check_head(head, False),
                hidden_units=dnn.check_hidden_units(hidden_units),
                feature_columns=tuple(feature_columns or ()),
                optimizer=optimizer,
                activation_fn=activation_fn,
                dropout=dropout,
                batch_norm=batch_norm,
                input_layer_partitioner=input_layer_partitioner,
            )
        )


class LinearClassifier(CannedEstimator):
    """v1 linear classifier (Ftrl, SUM loss reduction, partitioned variables)."""

    def __init__(
        self,
        feature_columns: Any,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        partitioner: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM,
        sparse_combiner: str = "sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
        )
        super().__init__(
            **base.make(
                linear_model_fn,
                model_dir,
                config,
                warm_start_from,
                head=head,
                feature_columns=tuple(feature_columns or ()),
                optimizer=optimizer,
                partitioner=partitioner,
                sparse_combiner=sparse_combiner,
            )
        )


class LinearRegressor(CannedEstimator):
    """v1 linear regressor (Ftrl, SUM loss reduction)."""

    def __init__(
        self,
        feature_columns: Any,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        partitioner: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM,
        sparse_combiner: str = "sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
        super().__init__(
            **base.make(
                linear_model_fn,
                model_dir,
                config,
                warm_start_from,
                head=head,
                feature_columns=tuple(feature_columns or ()),
                optimizer=optimizer,
                partitioner=partitioner,
                sparse_combiner=sparse_combiner,
            )
        )


class LinearEstimator(CannedEstimator):
    """v1 linear model with a user-given (v1) head."""

    def __init__(
        self,
        head: Any,
        feature_columns: Any,
        model_dir: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        partitioner: Any = None,
        sparse_combiner: str = "sum",
        warm_start_from: Any = None,
    ) -> None:
        super().__init__(
            **base.make(
                linear_model_fn,
                model_dir,
                config,
                warm_start_from,
                head=base.check_head(head, False),
                feature_columns=tuple(feature_columns or ()),
                optimizer=optimizer,
                partitioner=partitioner,
                sparse_combiner=sparse_combiner,
            )
        )


def _combined(head: Any, model_dir: Any, config: Any, warm_start_from: Any, **kwargs: Any) -> dict:
    for key in ("linear_feature_columns", "dnn_feature_columns"):
        kwargs[key] = tuple(kwargs[key] or ())
    return base.make(combined_model_fn, model_dir, config, warm_start_from, head=head, **kwargs)


class DNNLinearCombinedClassifier(CannedEstimator):
    """v1 wide & deep classifier (Ftrl for linear, Adagrad for DNN, SUM loss reduction)."""

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
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
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
                input_layer_partitioner=input_layer_partitioner,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )
        )


class DNNLinearCombinedRegressor(CannedEstimator):
    """v1 wide & deep regressor."""

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
        input_layer_partitioner: Any = None,
        config: Any = None,
        warm_start_from: Any = None,
        loss_reduction: Any = SUM,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
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
                input_layer_partitioner=input_layer_partitioner,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )
        )


class DNNLinearCombinedEstimator(CannedEstimator):
    """v1 wide & deep with a user-given (v1) head."""

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
        input_layer_partitioner: Any = None,
        config: Any = None,
        linear_sparse_combiner: str = "sum",
        warm_start_from: Any = None,
        batch_norm: bool = False,
    ) -> None:
        super().__init__(
            **_combined(
                base.check_head(head, False),
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
                input_layer_partitioner=input_layer_partitioner,
                batch_norm=batch_norm,
                linear_sparse_combiner=linear_sparse_combiner,
            )
        )


__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
]
