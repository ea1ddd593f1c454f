"""`tfport.install()`: make `tf.estimator` & co. resolve to tfport in this process.

After it, `tf.estimator`, `tf.compat.v1.estimator`, `tf.compat.v2.estimator`,
`tf.keras.estimator.model_to_estimator` (tf_keras) and `import tensorflow_estimator`
all reach tfport, and `tf.compat.v1.layers` works (it needs tf_keras on TF 2.21).
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from tfport._common.tfenv import import_tf, prepare_environment

_installed = False


def install() -> None:
    """Installs tfport's Estimator API into `tensorflow` (idempotent).

    Example:
        >>> install()
        >>> import tensorflow as tf
        >>> tf.estimator.ModeKeys.TRAIN
        'train'
    """
    global _installed
    if _installed:
        return
    prepare_environment()
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    tf = import_tf()
    import tfport.estimator as estimator
    from tfport.estimator import v1 as estimator_v1

    _set(tf, "estimator", estimator)
    _set(tf.compat.v2, "estimator", estimator)
    _set(tf.compat.v1, "estimator", estimator_v1)
    sys.modules.setdefault("tensorflow.estimator", estimator)
    sys.modules.setdefault("tensorflow_estimator", _estimator_package(estimator, estimator_v1))
    _arrange_v1_layers(tf)
    _patch_keras_estimator()
    from tfport.estimator import tpu

    _set(tf.compat.v1.tpu, "CrossShardOptimizer", tpu.CrossShardOptimizer)
    _installed = True


def _set(module: Any, name: str, value: Any) -> None:
    try:
        setattr(module, name, value)
    except (AttributeError, TypeError):
        object.__setattr__(module, name, value)
    wrapped = getattr(module, "_tfmw_wrapped_module", None)
    if wrapped is not None:
        setattr(wrapped, name, value)


def _estimator_package(estimator: Any, estimator_v1: Any) -> Any:
    import types

    package = types.ModuleType("tensorflow_estimator")
    package.estimator = estimator
    package.compat = types.SimpleNamespace(v1=types.SimpleNamespace(estimator=estimator_v1))
    return package


def _arrange_v1_layers(tf: Any) -> None:
    """Points `tf.compat.v1.layers` at tf_keras's TF1 layers if the lazy route fails."""
    try:
        tf.compat.v1.layers.dense  # noqa: B018 - probing the lazy loader
        return
    except (AttributeError, ImportError):
        pass
    try:
        layers = importlib.import_module("tf_keras.api._v1.keras.__internal__.legacy.layers")
    except ImportError:  # pragma: no cover - tf_keras is a dependency
        return
    _set(tf.compat.v1, "layers", layers)


def _patch_keras_estimator() -> None:
    """Routes tf_keras's `estimator.model_to_estimator` (a stub on 2.21) to tfport's."""
    from tfport.keras import model_to_estimator

    for name in (
        "tf_keras.api._v2.keras.estimator",
        "tf_keras.api._v1.keras.estimator",
        "tf_keras.estimator",
    ):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        module.model_to_estimator = model_to_estimator
