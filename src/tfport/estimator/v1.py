"""`tfport.estimator.v1`: what `tf.compat.v1.estimator` held (v1 canned estimators, tpu).

Example:
    >>> from tfport.estimator import v1
    >>> v1.ModeKeys.EVAL
    'eval'
"""

from __future__ import annotations

import importlib
from typing import Any

import tfport.estimator as _core
from tfport.estimator._canned.estimators_v1 import (
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

# The v1 canned estimators; every other name is `tfport.estimator`'s (see `__getattr__`).
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


def __getattr__(name: str) -> Any:
    if name == "tpu":
        return importlib.import_module("tfport.estimator.tpu")
    if name == "experimental":
        return importlib.import_module("tfport.estimator.experimental")
    return getattr(_core, name)


def __dir__() -> list[str]:
    return sorted(set(dir(_core)) | set(__all__) | {"tpu"})
