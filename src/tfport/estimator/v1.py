"""`tfport.estimator.v1`: what `tf.compat.v1.estimator` held (v1 canned estimators, tpu).

Example:
    >>> from tfport.estimator import v1
    >>> v1.ModeKeys.EVAL
    'eval'
"""

import importlib as _importlib
import typing as _typing

import tfport.estimator as _core
from tfport._common import canned as _registry

# The v1 canned estimators; every other name is `tfport.estimator`'s (see `__getattr__`).
__all__ = [  # `_registry.FAMILY`'s names, served from their homes (v1 classes)
    "BaselineClassifier",  # noqa: F822 - lazy, via __getattr__
    "BaselineEstimator",  # noqa: F822 - lazy, via __getattr__
    "BaselineRegressor",  # noqa: F822 - lazy, via __getattr__
    "DNNClassifier",  # noqa: F822 - lazy, via __getattr__
    "DNNEstimator",  # noqa: F822 - lazy, via __getattr__
    "DNNLinearCombinedClassifier",  # noqa: F822 - lazy, via __getattr__
    "DNNLinearCombinedEstimator",  # noqa: F822 - lazy, via __getattr__
    "DNNLinearCombinedRegressor",  # noqa: F822 - lazy, via __getattr__
    "DNNRegressor",  # noqa: F822 - lazy, via __getattr__
    "LinearClassifier",  # noqa: F822 - lazy, via __getattr__
    "LinearEstimator",  # noqa: F822 - lazy, via __getattr__
    "LinearRegressor",  # noqa: F822 - lazy, via __getattr__
]


_SUBMODULES = {
    "tpu": "tfport.estimator.tpu",
    "experimental": "tfport.estimator.experimental_v1",  # v1 names (issue 15)
    "inputs": "tfport.estimator.inputs",
}


def __getattr__(name: str) -> _typing.Any:
    if name in _registry.FAMILY:
        return getattr(_importlib.import_module(_registry.home(name, v1=True)), name)
    if name in _SUBMODULES:
        return _importlib.import_module(_SUBMODULES[name])
    if name in _core.__all__:
        return getattr(_core, name)
    raise AttributeError(f"module 'tfport.estimator.v1' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(_core.__all__) | set(__all__) | set(_SUBMODULES))
