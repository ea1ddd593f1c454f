"""v2 canned estimators (`tf.estimator.*`): Keras optimizers, SUM_OVER_BATCH_SIZE loss,
and the head factories.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3,
    ...                     optimizer="Adam")  # doctest: +SKIP
"""

from __future__ import annotations

from tfport.estimator._canned.baseline_v2 import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
)
from tfport.estimator._canned.combined_v2 import (
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
)
from tfport.estimator._canned.dnn_v2 import (
    DNNClassifier,
    DNNEstimator,
    DNNRegressor,
)
from tfport.estimator._canned.linear_v2 import (
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
)
from tfport.estimator._heads.head_api import (
    BinaryClassHead,
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
