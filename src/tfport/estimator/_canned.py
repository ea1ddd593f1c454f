"""v2 canned estimators and heads, re-exported by `tfport.estimator` (`tf.estimator`).

Example:
    >>> from tfport.estimator import _canned
    >>> _canned.DNNClassifier  # doctest: +SKIP
"""

from __future__ import annotations

from tfport._src.canned.estimators_v2 import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
    BinaryClassHead,
    DNNClassifier,
    DNNEstimator,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
    MultiClassHead,
    RegressionHead,
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
