"""v1 canned estimators (`tf.compat.v1.estimator.*`): v1 optimizers, SUM loss, partitioners.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3)
    ... # doctest: +SKIP
"""

from __future__ import annotations

from tfport.estimator._canned.baseline_v1 import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from tfport.estimator._canned.combined_v1 import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from tfport.estimator._canned.dnn_v1 import (
    DNNClassifier,
    DNNEstimator,
    DNNRegressor,
)
from tfport.estimator._canned.linear_v1 import (
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
)

__all__ = [
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNClassifier",
    "DNNEstimator",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
]
