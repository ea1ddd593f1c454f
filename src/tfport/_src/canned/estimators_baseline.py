"""Baseline estimators (v1 and v2): logits are a learned bias, whatever the features.

Example:
    >>> est = V2BaselineClassifier(n_classes=3)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._src.canned import base
from tfport._src.canned.base import CannedEstimator
from tfport._src.canned.model_fns import baseline_model_fn

SUM = "weighted_sum"
SUM_OVER_BATCH_SIZE = "sum_over_batch_size"


class V1BaselineClassifier(CannedEstimator):
    """v1 baseline classifier: learns the class prior (Ftrl 0.3)."""

    def __init__(
        self,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        loss_reduction: Any = SUM,
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=False
        )
        super().__init__(
            **base.make(baseline_model_fn, model_dir, config, None, head=head, optimizer=optimizer)
        )


class V1BaselineRegressor(CannedEstimator):
    """v1 baseline regressor: learns the label mean (Ftrl 0.3)."""

    def __init__(
        self,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        loss_reduction: Any = SUM,
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=False)
        super().__init__(
            **base.make(baseline_model_fn, model_dir, config, None, head=head, optimizer=optimizer)
        )


class V1BaselineEstimator(CannedEstimator):
    """v1 baseline with a user-given (v1) head."""

    def __init__(
        self, head: Any, model_dir: Any = None, optimizer: Any = "Ftrl", config: Any = None
    ) -> None:
        super().__init__(
            **base.make(
                baseline_model_fn,
                model_dir,
                config,
                None,
                head=base.check_head(head, False),
                optimizer=optimizer,
            )
        )


class V2BaselineClassifier(CannedEstimator):
    """v2 baseline classifier (Keras Ftrl 0.3)."""

    def __init__(
        self,
        model_dir: Any = None,
        n_classes: int = 2,
        weight_column: Any = None,
        label_vocabulary: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
    ) -> None:
        head = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=True
        )
        super().__init__(
            **base.make(baseline_model_fn, model_dir, config, None, head=head, optimizer=optimizer)
        )


class V2BaselineRegressor(CannedEstimator):
    """v2 baseline regressor (Keras Ftrl 0.3)."""

    def __init__(
        self,
        model_dir: Any = None,
        label_dimension: int = 1,
        weight_column: Any = None,
        optimizer: Any = "Ftrl",
        config: Any = None,
        loss_reduction: Any = SUM_OVER_BATCH_SIZE,
    ) -> None:
        head = base.regression_head(label_dimension, weight_column, loss_reduction, v2=True)
        super().__init__(
            **base.make(baseline_model_fn, model_dir, config, None, head=head, optimizer=optimizer)
        )


class V2BaselineEstimator(CannedEstimator):
    """v2 baseline with a user-given head."""

    def __init__(
        self, head: Any, model_dir: Any = None, optimizer: Any = "Ftrl", config: Any = None
    ) -> None:
        super().__init__(
            **base.make(
                baseline_model_fn,
                model_dir,
                config,
                None,
                head=base.check_head(head, True),
                optimizer=optimizer,
            )
        )
