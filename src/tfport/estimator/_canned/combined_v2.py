"""v2 DNNLinearCombined estimators of `tf.estimator`: classes with the legacy signatures over
the shared family base.

Example:
    >>> from tfport.estimator._canned.combined_v2 import DNNLinearCombinedClassifier
    >>> DNNLinearCombinedClassifier.__name__
    'DNNLinearCombinedClassifier'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tfport._common.tfenv import import_tf
from tfport.estimator._canned import base
from tfport.estimator._canned.families import CombinedBase

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, KeyedColumn, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head

tf = import_tf()  # the legacy default activation is the function `tf.nn.relu`

__all__ = [
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedRegressor",
    "DNNLinearCombinedEstimator",
]


class DNNLinearCombinedClassifier(CombinedBase):
    """A wide & deep classifier: linear logits plus DNN logits.

    `tf.estimator` (v2): Keras optimizers; `SUM_OVER_BATCH_SIZE` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.estimator.DNNLinearCombinedClassifier`.

    Args:
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        linear_feature_columns: feature columns of the linear (wide) part.
        linear_optimizer: optimizer (instance or name) of the linear part.
        dnn_feature_columns: feature columns of the DNN (deep) part.
        dnn_optimizer: optimizer (instance or name) of the DNN part.
        dnn_hidden_units: widths of the DNN hidden layers.
        dnn_activation_fn: activation of the DNN hidden layers.
        dnn_dropout: dropout probability of the DNN hidden units.
        n_classes: number of label classes (2: binary).
        weight_column: name or numeric column of per-example weights.
        label_vocabulary: the string labels, in class-id order (labels are ids if None).
        config: a `RunConfig`.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        loss_reduction: how per-example losses reduce to the training loss.
        batch_norm: batch normalization after each hidden layer.
        linear_sparse_combiner: how multivalent categorical columns combine in the linear part.

    Example:
        >>> est = tf.estimator.DNNLinearCombinedClassifier(  # doctest: +SKIP
        ...     linear_feature_columns=[cat],
        ...     dnn_feature_columns=[x],
        ...     dnn_hidden_units=[8],
        ...     n_classes=3,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        linear_feature_columns: FeatureColumns | None = None,
        linear_optimizer: OptimizerArg = "Ftrl",
        dnn_feature_columns: FeatureColumns | None = None,
        dnn_optimizer: OptimizerArg = "Adagrad",
        dnn_hidden_units: Sequence[int] | None = None,
        dnn_activation_fn: Callable[..., object] | str = tf.nn.relu,
        dnn_dropout: float | None = None,
        n_classes: int = 2,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        loss_reduction: str = "sum_over_batch_size",
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=True
        )
        self._init_combined(
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


class DNNLinearCombinedRegressor(CombinedBase):
    """A wide & deep regressor: linear logits plus DNN logits.

    `tf.estimator` (v2): Keras optimizers; `SUM_OVER_BATCH_SIZE` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.estimator.DNNLinearCombinedRegressor`.

    Args:
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        linear_feature_columns: feature columns of the linear (wide) part.
        linear_optimizer: optimizer (instance or name) of the linear part.
        dnn_feature_columns: feature columns of the DNN (deep) part.
        dnn_optimizer: optimizer (instance or name) of the DNN part.
        dnn_hidden_units: widths of the DNN hidden layers.
        dnn_activation_fn: activation of the DNN hidden layers.
        dnn_dropout: dropout probability of the DNN hidden units.
        label_dimension: number of regression targets per example.
        weight_column: name or numeric column of per-example weights.
        config: a `RunConfig`.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        loss_reduction: how per-example losses reduce to the training loss.
        batch_norm: batch normalization after each hidden layer.
        linear_sparse_combiner: how multivalent categorical columns combine in the linear part.

    Example:
        >>> est = tf.estimator.DNNLinearCombinedRegressor(  # doctest: +SKIP
        ...     linear_feature_columns=[cat],
        ...     dnn_feature_columns=[x],
        ...     dnn_hidden_units=[8],
        ...     label_dimension=1,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        linear_feature_columns: FeatureColumns | None = None,
        linear_optimizer: OptimizerArg = "Ftrl",
        dnn_feature_columns: FeatureColumns | None = None,
        dnn_optimizer: OptimizerArg = "Adagrad",
        dnn_hidden_units: Sequence[int] | None = None,
        dnn_activation_fn: Callable[..., object] | str = tf.nn.relu,
        dnn_dropout: float | None = None,
        label_dimension: int = 1,
        weight_column: str | KeyedColumn | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        loss_reduction: str = "sum_over_batch_size",
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=True)
        self._init_combined(
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


class DNNLinearCombinedEstimator(CombinedBase):
    """A wide & deep model (linear plus DNN logits) over a given head.

    `tf.estimator` (v2): Keras optimizers; the head sets the loss
    reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.estimator.DNNLinearCombinedEstimator`.

    Args:
        head: a head from `tf.estimator.BinaryClassHead` / `MultiClassHead` / `RegressionHead`.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        linear_feature_columns: feature columns of the linear (wide) part.
        linear_optimizer: optimizer (instance or name) of the linear part.
        dnn_feature_columns: feature columns of the DNN (deep) part.
        dnn_optimizer: optimizer (instance or name) of the DNN part.
        dnn_hidden_units: widths of the DNN hidden layers.
        dnn_activation_fn: activation of the DNN hidden layers.
        dnn_dropout: dropout probability of the DNN hidden units.
        config: a `RunConfig`.
        batch_norm: batch normalization after each hidden layer.
        linear_sparse_combiner: how multivalent categorical columns combine in the linear part.

    Example:
        >>> est = tf.estimator.DNNLinearCombinedEstimator(  # doctest: +SKIP
        ...     linear_feature_columns=[cat],
        ...     dnn_feature_columns=[x],
        ...     dnn_hidden_units=[8],
        ...     head=tf.estimator.MultiClassHead(3),
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        head: Head,
        model_dir: str | os.PathLike[str] | None = None,
        linear_feature_columns: FeatureColumns | None = None,
        linear_optimizer: OptimizerArg = "Ftrl",
        dnn_feature_columns: FeatureColumns | None = None,
        dnn_optimizer: OptimizerArg = "Adagrad",
        dnn_hidden_units: Sequence[int] | None = None,
        dnn_activation_fn: Callable[..., object] | str = tf.nn.relu,
        dnn_dropout: float | None = None,
        config: RunConfig | None = None,
        batch_norm: bool = False,
        linear_sparse_combiner: str = "sum",
    ) -> None:
        head = base.check_head(head, v2=True)
        self._init_combined(
            head,
            model_dir,
            config,
            None,
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
