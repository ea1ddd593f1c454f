"""Walks the legacy Estimator API with ``inspect`` and writes it as data.

Run it with the legacy venv's python (see legacy/README.md)::

    /path/to/legacy-venv/bin/python legacy/api_walk.py legacy/api/legacy_api.json

It visits ``tf.estimator``, ``tf.compat.v1.estimator`` (with every public submodule:
``experimental``, ``export``, ``inputs``, ``tpu``, ``tpu.experimental``),
``tf.keras.estimator`` and ``tf.compat.v1.keras.estimator`` and records, for every public
path: ``kind`` (module / class / function), ``namespace`` (``v1``, ``v2``, ``keras_v1``,
``keras_v2``), ``defined_in`` (the defining module), ``sig`` (``[name, kind, default
repr or null]`` triples) and, for classes, ``mro`` (class names) and ``members``
(every public name: ``method`` with ``sig``, ``property``, or ``attr`` with ``value``).
"""

from __future__ import annotations

import builtins
import inspect
import json
import os
import platform
import re
import sys
import types

ROOTS = (
    ("tf.estimator", "v2"),
    ("tf.compat.v1.estimator", "v1"),
    ("tf.keras.estimator", "keras_v2"),
    ("tf.compat.v1.keras.estimator", "keras_v1"),
)


def signature(obj: object) -> list | str:
    """``[name, kind, default repr or None]`` per parameter, or a ``<no signature ...>`` note."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError) as e:
        return f"<no signature: {type(e).__name__}: {e}>"
    return [
        [p.name, p.kind.name, None if p.default is inspect.Parameter.empty else _repr(p.default)]
        for p in sig.parameters.values()
    ]


def _repr(value: object) -> str:
    """repr() without memory addresses, so two walks of one stack give the same file."""
    return re.sub(r" at 0x[0-9a-fA-F]+", "", repr(value))


def class_signature(cls: type) -> list | str:
    """The constructor's parameters (without self / cls).

    Like ``inspect.signature``, the first pure-Python ``__new__`` or ``__init__`` along the
    MRO wins; a class that only inherits ``object.__init__`` takes no arguments, and one
    that inherits a builtin's ``__init__`` (exceptions) is named by that builtin.
    """
    for base in cls.__mro__:
        for name in ("__new__", "__init__"):
            method = inspect.getattr_static(base, name, None) if name in vars(base) else None
            if isinstance(method, staticmethod):
                method = method.__func__
            owner = getattr(method, "__qualname__", "").split(".")[0]
            if isinstance(getattr(builtins, owner, None), type):
                # TensorFlow's doc controls wrap builtins' __init__ / __new__ in Python
                # stubs named after them (object.__init__, RuntimeError.__new__).
                return [] if owner == "object" else f"<builtin __init__ of {owner}>"
            if inspect.isfunction(method):
                sig = signature(method)
                return sig[1:] if isinstance(sig, list) else sig
    if cls.__init__ is object.__init__:
        return []
    owner = next(c for c in cls.__mro__ if "__init__" in vars(c))
    return f"<builtin __init__ of {owner.__name__}>"


def member(cls: type, name: str) -> dict:
    """One public class member: method (with signature), property or attr (with repr)."""
    static = inspect.getattr_static(cls, name)
    builtin_slot = inspect.isgetsetdescriptor(static) or inspect.ismemberdescriptor(static)
    if isinstance(static, property) or (
        inspect.isdatadescriptor(static) and not inspect.isroutine(static) and not builtin_slot
    ):
        return {"mtype": "property"}
    value = getattr(cls, name)
    if inspect.isroutine(value):
        return {"mtype": "method", "sig": signature(value)}
    return {"mtype": "attr", "value": _repr(value)}


def describe(obj: object, namespace: str) -> dict | None:
    """The record of one public symbol (None for what is neither class nor function)."""
    if inspect.isclass(obj):
        return {
            "kind": "class",
            "namespace": namespace,
            "defined_in": obj.__module__,
            "mro": [c.__name__ for c in obj.__mro__],
            "sig": class_signature(obj),
            "members": {n: member(obj, n) for n in dir(obj) if not n.startswith("_")},
        }
    if callable(obj):
        return {
            "kind": "function",
            "namespace": namespace,
            "defined_in": getattr(obj, "__module__", None),
            "sig": signature(obj),
        }
    return None


def walk(path: str, module: types.ModuleType, namespace: str, out: dict) -> None:
    """Records MODULE at PATH, then its public members, recursing into submodules."""
    out[path] = {"kind": "module", "namespace": namespace}
    for name in dir(module):
        if name.startswith("_"):
            continue
        obj = getattr(module, name)
        if inspect.ismodule(obj):
            walk(f"{path}.{name}", obj, namespace, out)
        else:
            record = describe(obj, namespace)
            if record is not None:
                out[f"{path}.{name}"] = record


def resolve(path: str) -> types.ModuleType:
    """``"tf.compat.v1.estimator"`` -> the module object."""
    import tensorflow as tf

    obj = tf
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


def main(argv: list[str]) -> int:
    """Writes the walk to argv[0] (stdout without one)."""
    try:
        import tensorflow as tf
        import tensorflow_estimator
    except ImportError:
        print(
            "api_walk.py must run on the legacy stack (tensorflow-cpu==2.15.1 + "
            f"tensorflow-estimator==2.15.0). Received: python={sys.executable}",
            file=sys.stderr,
        )
        return 2
    symbols: dict = {}
    for path, namespace in ROOTS:
        walk(path, resolve(path), namespace, symbols)
    data = {
        "meta": {
            "TF_USE_LEGACY_KERAS": os.environ.get("TF_USE_LEGACY_KERAS"),
            "impl": "legacy",
            "python": platform.python_version(),
            "tensorflow": tf.__version__,
            "tensorflow_estimator": getattr(tensorflow_estimator, "__version__", "?"),
        },
        "symbols": symbols,
    }
    text = json.dumps(data, indent=1, sort_keys=True)
    if argv:
        with open(argv[0], "w") as f:
            f.write(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
