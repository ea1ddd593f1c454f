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

_V1_CANNED = "tfport.estimator._canned.estimators_v1"


def __getattr__(name: str) -> Any:
    if name == "tpu":
        return importlib.import_module("tfport.estimator.tpu")
    if name == "experimental":
        return importlib.import_module("tfport.estimator.experimental")
    try:
        canned = importlib.import_module(_V1_CANNED)
    except ModuleNotFoundError:
        canned = None
    if canned is not None and hasattr(canned, name):
        return getattr(canned, name)
    return getattr(_core, name)


def __dir__() -> list[str]:
    canned = importlib.import_module(_V1_CANNED)
    return sorted(set(dir(_core)) | set(getattr(canned, "__all__", ())) | {"tpu"})
