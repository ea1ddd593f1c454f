"""v1 Baseline estimators of `tf.compat.v1.estimator`: classes with the legacy signatures over
the shared family base.

Example:
    >>> from tfport.estimator._canned.baseline_v1 import BaselineClassifier
    >>> BaselineClassifier.__name__
    'BaselineClassifier'
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfport.estimator._canned import base
from tfport.estimator._canned.families import BaselineBase

if TYPE_CHECKING:
    from tfport._common.types import KeyedColumn, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head

__all__ = ["BaselineClassifier", "BaselineRegressor", "BaselineEstimator"]


class BaselineClassifier(BaselineBase):
    """A classifier that ignores the features and learns the class prior (a bias per class).

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; `SUM` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.BaselineClassifier`.

    Args:
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        n_classes: number of label classes (2: binary).
        weight_column: name or numeric column of per-example weights.
        label_vocabulary: the string labels, in class-id order (labels are ids if None).
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        config: a `RunConfig`.
        loss_reduction: how per-example losses reduce to the training loss.

    Example:
        >>> est = tf.compat.v1.estimator.BaselineClassifier(  # doctest: +SKIP
        ...     model_dir="/tmp/m",
        ...     n_classes=3,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        n_classes: int = 2,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerArg = "Ftrl",
        config: RunConfig | None = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
        )
        self._init_baseline(
            head,
            model_dir,
            config,
            None,
            optimizer=optimizer,
        )


class BaselineRegressor(BaselineBase):
    """A regressor that ignores the features and learns the mean label.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; `SUM` loss reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.BaselineRegressor`.

    Args:
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        label_dimension: number of regression targets per example.
        weight_column: name or numeric column of per-example weights.
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        config: a `RunConfig`.
        loss_reduction: how per-example losses reduce to the training loss.

    Example:
        >>> est = tf.compat.v1.estimator.BaselineRegressor(  # doctest: +SKIP
        ...     model_dir="/tmp/m",
        ...     label_dimension=1,
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        model_dir: str | os.PathLike[str] | None = None,
        label_dimension: int = 1,
        weight_column: str | KeyedColumn | None = None,
        optimizer: OptimizerArg = "Ftrl",
        config: RunConfig | None = None,
        loss_reduction: str = "weighted_sum",
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
        self._init_baseline(
            head,
            model_dir,
            config,
            None,
            optimizer=optimizer,
        )


class BaselineEstimator(BaselineBase):
    """A baseline (a learned bias, features ignored) over a given head.

    `tf.compat.v1.estimator` (v1): `tf.compat.v1.train` optimizers; the head sets the loss
    reduction.
    Graph, variable names and checkpoints are those of TF 2.15's
    `tf.compat.v1.estimator.BaselineEstimator`.

    Args:
        head: a head from `tf.estimator.BinaryClassHead` / `MultiClassHead` / `RegressionHead`.
        model_dir: directory for checkpoints and summaries (a temporary one if None).
        optimizer: an optimizer instance or name (`'Adagrad'`, `'Adam'`, `'Ftrl'`, ...).
        config: a `RunConfig`.

    Example:
        >>> est = tf.compat.v1.estimator.BaselineEstimator(  # doctest: +SKIP
        ...     model_dir="/tmp/m",
        ...     head=tf.estimator.MultiClassHead(3),
        ... )
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        head: Head,
        model_dir: str | os.PathLike[str] | None = None,
        optimizer: OptimizerArg = "Ftrl",
        config: RunConfig | None = None,
    ) -> None:
        head = base.check_head(head, v2=False)
        self._init_baseline(
            head,
            model_dir,
            config,
            None,
            optimizer=optimizer,
        )
