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

_MISSING = object()


class Installation:
    """What `install()` changed, so that `uninstall()` can put it back.

    Attributes:
        changes: `(module, name, previous value or _MISSING)` in the order they were made.
        modules: `{sys.modules key: previous entry or _MISSING}`.

    Example:
        >>> handle = install()
        >>> handle.active
        True
    """

    def __init__(self) -> None:
        self.changes: list[tuple[Any, str, Any]] = []
        self.modules: dict[str, Any] = {}
        self.active = False

    def set(self, module: Any, name: str, value: Any) -> None:
        """Sets `module.name = value`, remembering the previous value."""
        self.changes.append((module, name, module.__dict__.get(name, _MISSING)))
        _set(module, name, value)

    def add_module(self, key: str, module: Any) -> None:
        """Adds `sys.modules[key]` unless present, remembering what was there."""
        if key in sys.modules:
            return
        self.modules[key] = _MISSING
        sys.modules[key] = module

    def restore(self) -> None:
        """Undoes every change, newest first."""
        for module, name, previous in reversed(self.changes):
            if previous is _MISSING:
                _delete(module, name)
            else:
                _set(module, name, previous)
        for key, previous in self.modules.items():
            if previous is _MISSING:
                sys.modules.pop(key, None)
            else:
                sys.modules[key] = previous
        self.changes.clear()
        self.modules.clear()
        self.active = False


_current: list[Installation] = []


def install() -> Installation:
    """Installs tfport's Estimator API into `tensorflow` (idempotent); returns the handle.

    `TF_USE_LEGACY_KERAS=1` is set before TensorFlow is imported (Keras 2 behind
    `tf.keras`, needed by `tf.compat.v1.layers`); that choice cannot be undone once
    TensorFlow is imported, not even by `uninstall()`.

    Example:
        >>> handle = install()
        >>> import tensorflow as tf
        >>> tf.estimator.ModeKeys.TRAIN
        'train'
    """
    if _current:
        return _current[0]
    prepare_environment()
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    tf = import_tf()
    import tfport.estimator as estimator
    from tfport.estimator import tpu
    from tfport.estimator import v1 as estimator_v1

    handle = Installation()
    handle.set(tf, "estimator", estimator)
    handle.set(tf.compat.v2, "estimator", estimator)
    handle.set(tf.compat.v1, "estimator", estimator_v1)
    handle.add_module("tensorflow.estimator", estimator)
    handle.add_module("tensorflow_estimator", _estimator_package(estimator, estimator_v1))
    _arrange_v1_layers(handle, tf)
    _patch_keras_estimator(handle)
    _add_graph_optimizer_methods(handle)
    handle.set(tf.compat.v1.tpu, "CrossShardOptimizer", tpu.CrossShardOptimizer)
    handle.active = True
    _current.append(handle)
    return handle


def uninstall() -> bool:
    """Undoes `install()`: `tf.estimator` & co. are gone again. Returns whether it was installed.

    Example:
        >>> _ = install()
        >>> uninstall()
        True
    """
    if not _current:
        return False
    _current.pop().restore()
    return True


def _set(module: Any, name: str, value: Any) -> None:
    try:
        setattr(module, name, value)
    except (AttributeError, TypeError):
        object.__setattr__(module, name, value)
    wrapped = getattr(module, "_tfmw_wrapped_module", None)
    if wrapped is not None:
        setattr(wrapped, name, value)


def _delete(module: Any, name: str) -> None:
    for target in (module, getattr(module, "_tfmw_wrapped_module", None)):
        if target is None:
            continue
        try:
            delattr(target, name)
        except (AttributeError, TypeError):
            target.__dict__.pop(name, None)


def _estimator_package(estimator: Any, estimator_v1: Any) -> Any:
    import types

    package = types.ModuleType("tensorflow_estimator")
    package.estimator = estimator
    package.compat = types.SimpleNamespace(v1=types.SimpleNamespace(estimator=estimator_v1))
    return package


def _arrange_v1_layers(handle: Installation, tf: Any) -> None:
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
    handle.set(tf.compat.v1, "layers", layers)


def _add_graph_optimizer_methods(handle: Installation) -> None:
    """`get_updates`/`get_gradients` on tf_keras's optimizers (the TF2 guide's model_fn)."""
    from tfport.keras import graph_optimizer_methods

    for cls, name, fn in graph_optimizer_methods():
        handle.set(cls, name, fn)


def _patch_keras_estimator(handle: Installation) -> None:
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
        handle.set(module, "model_to_estimator", model_to_estimator)
