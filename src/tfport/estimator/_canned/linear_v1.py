"""v1 Linear estimators of `tf.compat.v1.estimator`: classes with the legacy signatures over
the shared family base.

Example:
    >>> from tfport.estimator._canned.linear_v1 import LinearClassifier
    >>> LinearClassifier.__name__
    'LinearClassifier'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tfport.estimator._canned import base
from tfport.estimator._canned.families import LinearBase

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, KeyedColumn, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head

__all__ = ["LinearClassifier", "LinearRegressor", "LinearEstimator"]


class LinearClassifier(LinearBase):
    """A linear classifier (logistic / softmax regression).

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; `SUM` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.LinearClassifier`.

    Args:
        feature_columns: the feature columns the model reads.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        n_classes: number of label classes (2: binary).
        weight_column: name or numeric column of per-example weights.
        label_vocabulary: the string labels, in class-id order (labels are ids if None).
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        config: a `RunConfig`.
        partitioner: partitioner of the linear variables.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        loss_reduction: how per-example losses reduce to the training loss.
        sparse_combiner: how multivalent categorical columns combine (`'sum'`, `'mean'`, `'sqrtn'`).

    Example:
        >>> est = tf.compat.v1.estimator.LinearClassifier(  # doctest: +SKIP
        ...     feature_columns=[x],
        ...     n_classes=3,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        feature_columns: FeatureColumns,
        model_dir: str | os.PathLike[str] | None = None,
        n_classes: int = 2,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerArg = "Ftrl",
        config: RunConfig | None = None,
        partitioner: Callable[..., object] | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        loss_reduction: str = "weighted_sum",
        sparse_combiner: str = "sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
        )
        self._init_linear(
            head,
            model_dir,
            config,
            warm_start_from,
            feature_columns=feature_columns,
            optimizer=optimizer,
            sparse_combiner=sparse_combiner,
            partitioner=partitioner,
        )


class LinearRegressor(LinearBase):
    """A linear regressor.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; `SUM` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.LinearRegressor`.

    Args:
        feature_columns: the feature columns the model reads.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        label_dimension: number of regression targets per example.
        weight_column: name or numeric column of per-example weights.
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        config: a `RunConfig`.
        partitioner: partitioner of the linear variables.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        loss_reduction: how per-example losses reduce to the training loss.
        sparse_combiner: how multivalent categorical columns combine (`'sum'`, `'mean'`, `'sqrtn'`).

    Example:
        >>> est = tf.compat.v1.estimator.LinearRegressor(  # doctest: +SKIP
        ...     feature_columns=[x],
        ...     label_dimension=1,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        feature_columns: FeatureColumns,
        model_dir: str | os.PathLike[str] | None = None,
        label_dimension: int = 1,
        weight_column: str | KeyedColumn | None = None,
        optimizer: OptimizerArg = "Ftrl",
        config: RunConfig | None = None,
        partitioner: Callable[..., object] | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        loss_reduction: str = "weighted_sum",
        sparse_combiner: str = "sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
        self._init_linear(
            head,
            model_dir,
            config,
            warm_start_from,
            feature_columns=feature_columns,
            optimizer=optimizer,
            sparse_combiner=sparse_combiner,
            partitioner=partitioner,
        )


class LinearEstimator(LinearBase):
    """A linear model over a given head.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; the head sets the loss
    reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.LinearEstimator`.

    Args:
        head: a head from `tf.estimator.BinaryClassHead` / `MultiClassHead` / `RegressionHead`.
        feature_columns: the feature columns the model reads.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        config: a `RunConfig`.
        partitioner: partitioner of the linear variables.
        sparse_combiner: how multivalent categorical columns combine (`'sum'`, `'mean'`, `'sqrtn'`).
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.

    Example:
        >>> est = tf.compat.v1.estimator.LinearEstimator(  # doctest: +SKIP
        ...     feature_columns=[x],
        ...     head=tf.estimator.MultiClassHead(3),
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        head: Head,
        feature_columns: FeatureColumns,
        model_dir: str | os.PathLike[str] | None = None,
        optimizer: OptimizerArg = "Ftrl",
        config: RunConfig | None = None,
        partitioner: Callable[..., object] | None = None,
        sparse_combiner: str = "sum",
        warm_start_from: str | os.PathLike[str] | object | None = None,
    ) -> None:
        head = base.check_head(head, v2=False)
        self._init_linear(
            head,
            model_dir,
            config,
            warm_start_from,
            feature_columns=feature_columns,
            optimizer=optimizer,
            sparse_combiner=sparse_combiner,
            partitioner=partitioner,
        )
