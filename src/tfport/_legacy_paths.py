"""Legacy module paths (`tensorflow_estimator.python.estimator.*`, `tensorflow.python.estimator.*`).

`install()` registers one small module per legacy module (all 94 of tensorflow-estimator
2.15, under both prefixes) in `sys.modules`; each resolves its names to tfport's objects on
first use (`tfport._legacy_tree` says where), so nothing is imported until a name is read.
A name tfport does not provide raises one line saying so and what to use, for attribute
access and for `from ... import name` alike.
"""

from __future__ import annotations

import importlib
import sys
import types
from collections.abc import Callable
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import message
from tfport._legacy_tree import GLUE_ALIASES, GLUE_PATHS, NAMES, PATHS, VALUES, WHY

PREFIXES = ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator")


class LegacyImportError(ImportError):
    """A legacy private name or module tfport does not provide (one line, what to use)."""


def _resolve(source: str) -> Any:
    """The object of `"module"`, `"module:attr.path"` or `"module:factory()"`."""
    module_name, _, path = source.partition(":")
    obj: Any = importlib.import_module(module_name)
    call = path.endswith("()")
    for part in filter(None, path.removesuffix("()").split(".")):
        obj = getattr(obj, part)
    return obj() if call else obj


def _not_provided(module: str, attr: str, why: str | None) -> str:
    why = why or "it is a private name of the legacy module that tfport does not provide"
    return message(
        f"{module}.{attr} is not provided by tfport on TensorFlow 2.21: {why}",
        "Use the public tf.estimator / tf.compat.v1.estimator API",
        name=attr,
    )


class LegacyModule(types.ModuleType):
    """A legacy module path whose names resolve to tfport's on first use."""

    def __init__(self, name: str, suffix: str, sources: tuple[str, ...] | None = None) -> None:
        super().__init__(name, f"tfport's stand-in for legacy `{name}`.")
        self._suffix = suffix
        self._sources = PATHS.get(suffix, ()) if sources is None else sources
        self.__path__: list[str] = []  # a package: its submodules are found in sys.modules

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        value = self._lookup(attr)
        setattr(self, attr, value)
        return value

    def _lookup(self, attr: str) -> Any:
        named = NAMES.get(self._suffix, {}).get(attr)
        if named is not None:
            return _resolve(named)
        values = VALUES.get(self._suffix, {})
        if attr in values:
            return values[attr]
        for source in self._sources:
            try:
                holder = _resolve(source)
            except ModuleNotFoundError as e:
                if not source.startswith(e.name or "\0"):
                    raise
                continue  # a module another change provides, not there yet
            try:
                return getattr(holder, attr)
            except AttributeError:
                continue
        raise AttributeError(_not_provided(self.__name__, attr, WHY.get(self._suffix)))


def modules() -> dict[str, types.ModuleType]:
    """`{sys.modules key: module}` for every legacy path under both prefixes.

    Example:
        >>> "tensorflow_estimator.python.estimator.estimator" in modules()
        True
    """
    out: dict[str, types.ModuleType] = {}
    for prefix in PREFIXES:
        for suffix in PATHS:
            key = f"{prefix}.{suffix}" if suffix else prefix
            out[key] = LegacyModule(key, suffix)
        for suffix in (s for s in PATHS if s):
            parent, _, child = suffix.rpartition(".")
            holder = out[f"{prefix}.{parent}" if parent else prefix]
            setattr(holder, child, out[f"{prefix}.{suffix}"])
    out["tensorflow_estimator.python"] = LegacyModule("tensorflow_estimator.python", "-")
    out["tensorflow_estimator.python"].estimator = out[PREFIXES[0]]  # type: ignore[attr-defined]
    for key, sources in GLUE_PATHS.items():
        out[key] = LegacyModule(key, "-", sources)
    for key, suffix in GLUE_ALIASES.items():
        out[key] = out[f"{PREFIXES[1]}.{suffix}"]
    return out


def attach_glue(set_attr: Callable[[object, str, object], None], made: dict) -> None:
    """Makes TF 2.15's Estimator glue modules attributes of TensorFlow's packages.

    `set_attr(package, name, module)` (the installation's, so that uninstall undoes it)
    for `tensorflow.python.distribute.estimator_training` and the `tensorflow.python.tpu`
    stubs, where that package is loaded.

    Example:
        >>> attach_glue(handle.set, modules())  # doctest: +SKIP
    """
    packages = {"tensorflow.python.distribute": "distribute", "tensorflow.python.tpu": "tpu"}
    for key in (*GLUE_PATHS, *GLUE_ALIASES):
        parent, _, child = key.rpartition(".")
        if parent in packages and sys.modules.get(key) is made[key]:
            tf_internals.set_on_loaded_package(set_attr, packages[parent], child, made[key])


class GoneFinder:
    """A meta-path finder for legacy paths that are not registered: one line saying why.

    `from <legacy module> import _name` for a name tfport lacks reaches here (Python tries
    the name as a submodule) and gets tfport's line instead of Python's generic
    "cannot import name ... (unknown location)".
    """

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> None:
        for prefix in PREFIXES:
            if not fullname.startswith(prefix + "."):
                continue
            suffix = fullname[len(prefix) + 1 :]
            parent, _, child = suffix.rpartition(".")
            if parent in PATHS:
                module = f"{prefix}.{parent}" if parent else prefix
                raise LegacyImportError(_not_provided(module, child, WHY.get(parent)))
            raise LegacyImportError(
                message(
                    f"{fullname} is not a module of tensorflow-estimator 2.15",
                    "Import the public tf.estimator names instead",
                    module=fullname,
                )
            )
        return None
