"""`tfport.install()`: make `tf.estimator` & co. resolve to tfport in this process.

After it, `tf.estimator`, `tf.compat.v1.estimator`, `tf.compat.v2.estimator` (and the
nested `tf.compat.vX.compat.vY.estimator`),
`tf.keras.estimator.model_to_estimator` (tf_keras) and `import tensorflow_estimator`
all reach tfport, and `tf.compat.v1.layers` works (it needs tf_keras on TF 2.21).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.tfenv import filter_autograph_warnings, import_tf, prepare_environment
from tfport._common.types import KerasModel, TFModule

if TYPE_CHECKING:
    from tfport.estimator import RunConfig

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

    def set(self, module: object, name: str, value: object) -> None:
        """Sets `module.name = value`, remembering the previous value."""
        self.changes.append((module, name, module.__dict__.get(name, _MISSING)))
        _set(module, name, value)

    def add_module(self, key: str, module: ModuleType) -> None:
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
    TensorFlow is imported, not even by `uninstall()`. TensorFlow's UserWarnings that point
    into its autograph code (notices from a model_fn on replicas) are not shown from then
    on (`tfenv.filter_autograph_warnings`; `uninstall()` leaves that too).

    Example:
        >>> handle = install()
        >>> import tensorflow as tf
        >>> tf.estimator.ModeKeys.TRAIN
        'train'
    """
    filter_autograph_warnings()
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
    _add_nested_compat_aliases(handle, tf, estimator, estimator_v1)
    handle.add_module("tensorflow.estimator", estimator)
    package = _estimator_package(estimator, estimator_v1)
    handle.add_module("tensorflow_estimator", package)
    _add_legacy_paths(handle, package)
    _arrange_v1_layers(handle, tf)
    _patch_keras_estimator(handle)
    _add_graph_optimizer_methods(handle)
    handle.set(tf.compat.v1.tpu, "CrossShardOptimizer", tpu.CrossShardOptimizer)
    resolver = tpu.cluster_resolver_class()  # '' / None off TPU: the local machine
    for resolvers in (tf.distribute.cluster_resolver, tf.compat.v1.distribute.cluster_resolver):
        handle.set(resolvers, "TPUClusterResolver", resolver)
    for name, cls in tpu.OPTIMIZATION_PARAMETERS.items():
        if not hasattr(tf.compat.v1.tpu.experimental, name):  # gone in TF 2.21
            handle.set(tf.compat.v1.tpu.experimental, name, cls)
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


def _add_nested_compat_aliases(handle: Installation, tf: TFModule, v2: object, v1: object) -> None:
    """`tf.compat.vX.compat.vY.estimator` for X, Y in (1, 2), as TF's own tree has them."""
    for outer in (tf.compat.v1, tf.compat.v2):
        compat = getattr(outer, "compat", None)
        for version, target in (("v1", v1), ("v2", v2)):
            inner = getattr(compat, version, None)
            if inner is not None:
                handle.set(inner, "estimator", target)


def _set(module: object, name: str, value: object) -> None:
    try:
        setattr(module, name, value)
    except (AttributeError, TypeError):
        object.__setattr__(module, name, value)
    tf_internals.set_in_wrapped_module(module, name, value)


def _delete(module: Any, name: str) -> None:
    try:
        delattr(module, name)
    except (AttributeError, TypeError):
        module.__dict__.pop(name, None)
    tf_internals.delete_from_wrapped_module(module, name)


def _estimator_package(estimator: object, estimator_v1: object) -> Any:
    import types

    package: Any = types.ModuleType("tensorflow_estimator")
    package.__path__ = []
    package.estimator = estimator
    package.compat = types.SimpleNamespace(v1=types.SimpleNamespace(estimator=estimator_v1))
    return package


def _add_legacy_paths(handle: Installation, package: object) -> None:
    """`tensorflow_estimator.python.estimator.*` and `tensorflow.python.estimator.*` modules."""
    from tfport import _legacy_paths

    made = _legacy_paths.modules()
    for key, module in made.items():
        handle.add_module(key, module)
    _legacy_paths.attach_glue(handle.set, made)
    handle.set(package, "python", sys.modules["tensorflow_estimator.python"])
    estimator = sys.modules["tensorflow.python.estimator"]
    tf_internals.set_on_loaded_package(handle.set, "", "estimator", estimator)
    handle.set(sys, "meta_path", [_legacy_paths.GoneFinder(), *sys.meta_path])


def _arrange_v1_layers(handle: Installation, tf: TFModule) -> None:
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


def model_to_estimator_v2(
    keras_model: KerasModel | None = None,
    keras_model_path: str | os.PathLike[str] | None = None,
    custom_objects: Mapping[str, object] | None = None,
    model_dir: str | os.PathLike[str] | None = None,
    config: RunConfig | None = None,
    checkpoint_format: str = "checkpoint",
    metric_names_map: Mapping[str, str] | None = None,
    export_outputs: Mapping[str, type] | None = None,
) -> Any:
    """`tf.keras.estimator.model_to_estimator` (v2 Estimator, object-based checkpoints).

    Example:
        >>> est = model_to_estimator_v2(keras_model=model)  # doctest: +SKIP
    """
    from tfport.keras import model_to_estimator

    return model_to_estimator(
        keras_model=keras_model,
        keras_model_path=keras_model_path,
        custom_objects=custom_objects,
        model_dir=model_dir,
        config=config,
        checkpoint_format=checkpoint_format,
        use_v2_estimator=True,
        metric_names_map=metric_names_map,
        export_outputs=export_outputs,
    )


def model_to_estimator_v1(
    keras_model: KerasModel | None = None,
    keras_model_path: str | os.PathLike[str] | None = None,
    custom_objects: Mapping[str, object] | None = None,
    model_dir: str | os.PathLike[str] | None = None,
    config: RunConfig | None = None,
    checkpoint_format: str = "saver",
    metric_names_map: Mapping[str, str] | None = None,
    export_outputs: Mapping[str, type] | None = None,
) -> Any:
    """`tf.compat.v1.keras.estimator.model_to_estimator` (`checkpoint_format='saver'`).

    Example:
        >>> est = model_to_estimator_v1(keras_model=model)  # doctest: +SKIP
    """
    from tfport.keras import model_to_estimator

    return model_to_estimator(
        keras_model=keras_model,
        keras_model_path=keras_model_path,
        custom_objects=custom_objects,
        model_dir=model_dir,
        config=config,
        checkpoint_format=checkpoint_format,
        use_v2_estimator=False,
        metric_names_map=metric_names_map,
        export_outputs=export_outputs,
    )


def _patch_keras_estimator(handle: Installation) -> None:
    """Routes tf_keras's `estimator.model_to_estimator` (a stub on 2.21) to tfport's."""
    for name, fn in (
        ("tf_keras.api._v2.keras.estimator", model_to_estimator_v2),
        ("tf_keras.api._v1.keras.estimator", model_to_estimator_v1),
        ("tf_keras.estimator", model_to_estimator_v2),
    ):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        handle.set(module, "model_to_estimator", fn)
