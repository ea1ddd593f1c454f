"""v1 DNN estimators of `tf.compat.v1.estimator`: classes with the legacy signatures over
the shared family base.

Example:
    >>> from tfport.estimator._canned.dnn_v1 import DNNClassifier
    >>> DNNClassifier.__name__
    'DNNClassifier'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from tfport._common.tfenv import import_tf
from tfport.estimator._canned import base
from tfport.estimator._canned.families import DNNBase

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, KeyedColumn, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head

tf = import_tf()  # the legacy default activation is the function `tf.nn.relu`

__all__ = ["DNNClassifier", "DNNRegressor", "DNNEstimator"]


class DNNClassifier(DNNBase):
    """A classifier over a feed-forward neural network.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; `SUM` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.DNNClassifier`.

    Args:
        hidden_units: widths of the hidden layers, e.g. `[64, 32]`.
        feature_columns: the feature columns the model reads.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        n_classes: number of label classes (2: binary).
        weight_column: name or numeric column of per-example weights.
        label_vocabulary: the string labels, in class-id order (labels are ids if None).
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        activation_fn: activation of the hidden layers.
        dropout: probability of dropping a hidden unit in training (None: no dropout).
        input_layer_partitioner: partitioner of the input layer variables.
        config: a `RunConfig`.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        loss_reduction: how per-example losses reduce to the training loss.
        batch_norm: batch normalization after each hidden layer.

    Example:
        >>> est = tf.compat.v1.estimator.DNNClassifier(  # doctest: +SKIP
        ...     hidden_units=[16,
        ...     8],
        ...     feature_columns=[x],
        ...     n_classes=3,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        hidden_units: Sequence[int],
        feature_columns: FeatureColumns,
        model_dir: str | os.PathLike[str] | None = None,
        n_classes: int = 2,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerArg = "Adagrad",
        activation_fn: Callable[..., object] | str = tf.nn.relu,
        dropout: float | None = None,
        input_layer_partitioner: Callable[..., object] | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        loss_reduction: str = "weighted_sum",
        batch_norm: bool = False,
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
        )
        self._init_dnn(
            head,
            model_dir,
            config,
            warm_start_from,
            hidden_units=hidden_units,
            feature_columns=feature_columns,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            input_layer_partitioner=input_layer_partitioner,
        )


class DNNRegressor(DNNBase):
    """A regressor over a feed-forward neural network.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; `SUM` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.DNNRegressor`.

    Args:
        hidden_units: widths of the hidden layers, e.g. `[64, 32]`.
        feature_columns: the feature columns the model reads.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        label_dimension: number of regression targets per example.
        weight_column: name or numeric column of per-example weights.
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        activation_fn: activation of the hidden layers.
        dropout: probability of dropping a hidden unit in training (None: no dropout).
        input_layer_partitioner: partitioner of the input layer variables.
        config: a `RunConfig`.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        loss_reduction: how per-example losses reduce to the training loss.
        batch_norm: batch normalization after each hidden layer.

    Example:
        >>> est = tf.compat.v1.estimator.DNNRegressor(  # doctest: +SKIP
        ...     hidden_units=[16,
        ...     8],
        ...     feature_columns=[x],
        ...     label_dimension=1,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        hidden_units: Sequence[int],
        feature_columns: FeatureColumns,
        model_dir: str | os.PathLike[str] | None = None,
        label_dimension: int = 1,
        weight_column: str | KeyedColumn | None = None,
        optimizer: OptimizerArg = "Adagrad",
        activation_fn: Callable[..., object] | str = tf.nn.relu,
        dropout: float | None = None,
        input_layer_partitioner: Callable[..., object] | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        loss_reduction: str = "weighted_sum",
        batch_norm: bool = False,
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
        self._init_dnn(
            head,
            model_dir,
            config,
            warm_start_from,
            hidden_units=hidden_units,
            feature_columns=feature_columns,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            input_layer_partitioner=input_layer_partitioner,
        )


class DNNEstimator(DNNBase):
    """A feed-forward neural network over a given head.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; the head sets the loss
    reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.DNNEstimator`.

    Args:
        head: a head from `tf.estimator.BinaryClassHead` / `MultiClassHead` / `RegressionHead`.
        hidden_units: widths of the hidden layers, e.g. `[64, 32]`.
        feature_columns: the feature columns the model reads.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        activation_fn: activation of the hidden layers.
        dropout: probability of dropping a hidden unit in training (None: no dropout).
        input_layer_partitioner: partitioner of the input layer variables.
        config: a `RunConfig`.
        warm_start_from: checkpoint path or `WarmStartSettings` to start from.
        batch_norm: batch normalization after each hidden layer.

    Example:
        >>> est = tf.compat.v1.estimator.DNNEstimator(  # doctest: +SKIP
        ...     hidden_units=[16,
        ...     8],
        ...     feature_columns=[x],
        ...     head=tf.estimator.MultiClassHead(3),
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        head: Head,
        hidden_units: Sequence[int],
        feature_columns: FeatureColumns,
        model_dir: str | os.PathLike[str] | None = None,
        optimizer: OptimizerArg = "Adagrad",
        activation_fn: Callable[..., object] | str = tf.nn.relu,
        dropout: float | None = None,
        input_layer_partitioner: Callable[..., object] | None = None,
        config: RunConfig | None = None,
        warm_start_from: str | os.PathLike[str] | object | None = None,
        batch_norm: bool = False,
    ) -> None:
        head = base.check_head(head, v2=False)
        self._init_dnn(
            head,
            model_dir,
            config,
            warm_start_from,
            hidden_units=hidden_units,
            feature_columns=feature_columns,
            optimizer=optimizer,
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            input_layer_partitioner=input_layer_partitioner,
        )
