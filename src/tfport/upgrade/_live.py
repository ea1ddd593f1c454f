"""`tfport run` of TF 1.x code: what `tfport upgrade` would write, run in memory.

The script, and every module it imports from its own folder, runs as the upgrade would
write it (``tf.placeholder`` -> ``tf.compat.v1.placeholder``, ``tf.contrib`` names ->
:mod:`tfport.compat.contrib`, ``keep_dims=``, graph mode for session programs, ...);
nothing is written to disk (no ``__pycache__`` of upgraded code either). A file whose
every name resolves, the usual Estimator script, runs byte for byte as written: a fast
check with :mod:`ast` decides whether the (slower) upgrade is needed at all, and the
upgrade itself leaves code that runs as it is. A file the upgrade cannot handle (a
syntax error, say) runs as written, so Python reports its error as usual.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import inspect
import io
import linecache
import os
import runpy
import sys
import tokenize
import types
from collections.abc import Iterator, Sequence

from tfport.upgrade._graphmode import GRAPH_ONLY

ModuleSpec = importlib.machinery.ModuleSpec
_GRAPH_NAMES = frozenset(name.rsplit(".", 1)[1] for name in GRAPH_ONLY)
_MISSING = object()


def _tf_bindings(tree: ast.AST) -> Iterator[tuple[str, str, ast.AST]]:
    """(local name, dotted `tensorflow...` path, node) of every TensorFlow import."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "tensorflow":
                    local = alias.asname or "tensorflow"
                    yield local, alias.name if alias.asname else "tensorflow", node
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            if node.module.split(".")[0] == "tensorflow":
                for alias in node.names:
                    yield alias.asname or alias.name, f"{node.module}.{alias.name}", node


def _import(name: str) -> object:
    try:
        if importlib.util.find_spec(name) is None:
            return _MISSING
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 - a module that fails does not resolve
        return _MISSING


def _resolve(path: str) -> object:
    """The object a dotted `tensorflow...` path names, or `_MISSING`.

    Attribute by attribute while the object is a module (a submodule not yet imported is
    imported, as the user's ``import`` would); a class or a value ends the walk.
    """
    parts = path.split(".")
    obj = sys.modules.get(parts[0]) or _import(parts[0])
    name = parts[0]
    for part in parts[1:]:
        if not isinstance(obj, types.ModuleType):
            return obj
        name += "." + part
        try:
            found = getattr(obj, part, _MISSING)
        except Exception:  # noqa: BLE001 - lazy loaders fail in many ways
            found = _MISSING
        obj = _import(name) if found is _MISSING else found
        if obj is _MISSING:
            return _MISSING
    return obj


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else f"{base}.{node.attr}"
    return None


def _takes(obj: object, keywords: list[str]) -> bool:
    if not keywords or not inspect.isfunction(obj):
        return True
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return True
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return all(name in params for name in keywords)


def needs_upgrade(code: str) -> bool:
    """A fast check: may `tfport upgrade` change `code` (TensorFlow already imported)?

    True when a TensorFlow name of `code` does not resolve on the installed TensorFlow
    (with tfport installed), a call passes a keyword its TensorFlow function does not
    take (``keep_dims=``), or TF 1.x graph-mode names appear outside an Estimator module.
    False for code that cannot be parsed (it runs as written, and fails as Python says).

    Example:
        >>> needs_upgrade("import tensorflow as tf\\nx = tf.placeholder(tf.float32)\\n")
        True
        >>> needs_upgrade("import os\\n")
        False
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    bound: dict[str, str] = {}
    for local, path, _ in _tf_bindings(tree):
        if _resolve(path) is _MISSING:
            return True
        bound[local] = path
    if not bound:
        return False
    for stmt in getattr(tree, "body", []):  # `tf = tf.compat.v1`
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], _dotted(stmt.value) or ""
            root, _, rest = value.partition(".")
            if isinstance(target, ast.Name) and root in bound:
                bound[target.id] = f"{bound[root]}.{rest}" if rest else bound[root]
    # Graph-mode names in an Estimator module run inside the Estimator's graphs.
    graph_names = frozenset() if "estimator" in code.lower() else _GRAPH_NAMES
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute | ast.Call):
            text = _dotted(node.func if isinstance(node, ast.Call) else node)
            root, _, rest = (text or "").partition(".")
            if root not in bound:
                continue
            if rest.rsplit(".", 1)[-1] in graph_names:
                return True
            obj = _resolve(f"{bound[root]}.{rest}" if rest else bound[root])
            if obj is _MISSING:
                return True
            if isinstance(node, ast.Call):
                if not _takes(obj, [k.arg for k in node.keywords if k.arg]):
                    return True
    return False


def _read(path: str) -> str:
    with open(path, "rb") as f:
        raw = f.read()
    encoding = tokenize.detect_encoding(io.BytesIO(raw).readline)[0]
    return raw.decode(encoding)


def live_code(path: str) -> str | None:
    """What `tfport upgrade` would write for the file `path`, or None to run it as written.

    Example:
        >>> live_code(__file__) is None  # tfport's own code needs nothing
        True
    """
    from tfport.upgrade._codemods import upgrade_source

    try:
        code = _read(path)
        if not needs_upgrade(code):
            return None
        result = upgrade_source(code, path)
    except Exception:  # noqa: BLE001 - the original runs and reports its own error
        return None
    return None if result.runs_as_is or result.code == code else result.code


# The upgraded text of every file run from memory, by path.
_UPGRADED: dict[str, list[str]] = {}
_DISK_UPDATECACHE = linecache.updatecache


def _compile(code: str, path: str) -> types.CodeType:
    # Tracebacks, `inspect` and autograph see the lines that run (the upgraded ones).
    _UPGRADED[path] = code.splitlines(True)
    linecache.updatecache = _updatecache
    _updatecache(path)
    return compile(code, path, "exec", dont_inherit=True)


def _updatecache(filename: str, module_globals: dict[str, object] | None = None) -> list[str]:
    """`linecache.updatecache`, which re-reads a file from disk, but an upgraded file's
    lines stay the upgraded ones.

    Autograph calls it before it reads a function's source (on replicas every model_fn
    runs through autograph, and `tf.function` too); from disk, a function's line number
    in the upgraded code (shifted by the lines the upgrade inserted) would name another
    function of the file, and autograph would convert that one in its place.
    """
    lines = _UPGRADED.get(filename)
    if lines is None:
        return _DISK_UPDATECACHE(filename, module_globals)
    linecache.cache[filename] = (sum(map(len, lines)), None, lines, filename)
    return lines


class _Loader(importlib.machinery.SourceFileLoader):
    """Loads a module from its upgraded text; never reads or writes bytecode caches."""

    def __init__(self, fullname: str, path: str, code: str) -> None:
        super().__init__(fullname, path)
        self._code = code

    def get_code(self, fullname: str) -> types.CodeType:
        return _compile(self._code, self.path)

    def get_source(self, fullname: str) -> str:
        return self._code


class UpgradingFinder(importlib.abc.MetaPathFinder):
    """Finds the Python modules under `root` (not installed packages) and upgrades them."""

    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] == "tfport":
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
            return None
        origin = os.path.realpath(spec.origin)
        if not origin.startswith(self.root + os.sep) or "-packages" + os.sep in origin:
            return None
        code = live_code(spec.origin)
        if code is None:
            return None
        spec.loader = _Loader(fullname, spec.origin, code)
        return spec


def install_finder(root: str) -> UpgradingFinder:
    """Makes imports of the modules under `root` run upgraded (first on `sys.meta_path`).

    Example:
        >>> finder = install_finder("scripts")  # doctest: +SKIP
    """
    finder = UpgradingFinder(root)
    sys.meta_path.insert(0, finder)
    return finder


def run_script(path: str) -> None:
    """Runs the script `path` as ``__main__``, upgraded in memory where it needs it.

    Like :func:`runpy.run_path` (which runs a script that needs nothing, as written);
    ``__file__`` is `path`, and ``__main__`` is restored afterwards.

    Example:
        >>> run_script("tf1_program.py")  # doctest: +SKIP
    """
    code = live_code(path)
    if code is None:
        runpy.run_path(path, run_name="__main__")
        return
    main = types.ModuleType("__main__")
    main.__dict__.update(__file__=path, __builtins__=builtins, __cached__=None)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main
    try:
        exec(_compile(code, path), main.__dict__)  # noqa: S102 - the user's own script
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved
