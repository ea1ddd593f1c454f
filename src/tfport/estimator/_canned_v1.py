"""v1 canned estimators, found by `tfport.estimator.v1` (`tf.compat.v1.estimator`).

Example:
    >>> from tfport.estimator import v1
    >>> v1.DNNClassifier  # doctest: +SKIP
"""

from __future__ import annotations

from tfport._src.canned.estimators_v1 import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
    DNNClassifier,
    DNNEstimator,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
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
