"""Checks an upgraded source text, without running it, for names TF 2.21 cannot resolve.

Every reference spelled from TensorFlow (``tf.x.y``, ``v1.x``, ``import
tensorflow.x``, ``from tensorflow.x import y``) and from tfport is resolved:
`tf.contrib.*` and `tf.flags` / `tf.app.flags` statically; with `resolve`,
every other name against the installed TensorFlow API (attribute by attribute
while the object is a module; a class or a value ends the check; names the `tf` API
does not export, such as ``tensorflow.core.protobuf.*_pb2`` or ``tensorflow.python.ops.*``,
in the module of that path) and tfport. A call of a resolved function with a keyword
it does not take (TF 1.x's ``keep_dims=``) does not run either.
A file with any unresolved name needs manual work.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import types

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from tfport.upgrade._contrib_table import manual_fix
from tfport.upgrade._estimator import match as estimator_match
from tfport.upgrade._estimator import provided
from tfport.upgrade._names import Aliases, References, collect_aliases, dotted, module_path, tf_path
from tfport.upgrade._report import ERROR, ReportItem

_REMOVED = {
    "tf.contrib": None,
    "tf.flags": "use tf.compat.v1.flags (absl flags)",
    "tf.app.flags": "use tf.compat.v1.flags (absl flags)",
}


def _static_fix(canonical: str) -> str | None:
    for prefix, fix in _REMOVED.items():
        if canonical == prefix or canonical.startswith(prefix + "."):
            return fix or manual_fix(canonical)
    return None


class _Resolver:
    def __init__(self, resolve: bool) -> None:
        self.tf = None
        if resolve:
            from tfport._common.tfenv import import_tf

            self.tf = import_tf()
        self._cache: dict[str, bool] = {}

    def version(self) -> str:
        return getattr(self.tf, "__version__", "2.21")

    def api(self, canonical: str) -> bool:
        if canonical not in self._cache:
            self._cache[canonical] = self._api(canonical)
        return self._cache[canonical]

    def _api(self, canonical: str) -> bool:
        found = estimator_match(canonical)
        if found is not None:  # tf.estimator and friends resolve to tfport after install()
            return self.tf is None or provided(found[1])
        if self.tf is None:
            return True
        return self.obj(canonical) is not _MISSING

    def obj(self, canonical: str) -> object:
        """The object `canonical` names (walking modules; a class or value ends the walk).

        A name the `tf` API does not export (``tf.core.protobuf.x_pb2.Y``,
        ``tf.python.ops.array_ops.x``) is looked up in the module of that path, imported by
        name as the user's code would import it.
        """
        if self.tf is None:
            return _MISSING
        parts = canonical.split(".")[1:]
        found = _walk(self.tf, parts)
        for cut in range(len(parts), 0, -1) if found is _MISSING else ():
            name = "tensorflow." + ".".join(parts[:cut])
            if self.module(name):
                try:
                    module = importlib.import_module(name)
                except Exception:  # noqa: BLE001 - a module that fails does not resolve
                    return _MISSING
                return _walk(module, parts[cut:])
        return found

    def module(self, name: str) -> bool:
        if self.tf is None:
            return True
        try:
            return importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            return False


_MISSING = object()


def _walk(obj: object, parts: list[str]) -> object:
    for part in parts:
        if not isinstance(obj, types.ModuleType):
            return obj
        try:
            obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - lazy loaders fail in many ways
            return _MISSING
    return obj


def _bad_keywords(obj: object, call: cst.Call) -> list[str]:
    """The keywords of `call` that the function `obj` does not take."""
    if not inspect.isfunction(obj):
        return []
    try:
        params = inspect.signature(obj).parameters
    except (TypeError, ValueError):
        return []
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return []
    names = [arg.keyword.value for arg in call.args if arg.keyword is not None]
    return [name for name in names if name not in params]


class _Checker(References, cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, aliases: Aliases, resolver: _Resolver, tfport_names: dict[str, str]) -> None:
        super().__init__()
        self.aliases = aliases
        self.resolver = resolver
        self.tfport_names = tfport_names
        self.items: list[ReportItem] = []

    def _add(self, node: cst.CSTNode, name: str, fix: str | None = None, what: str = "") -> None:
        start = self.get_metadata(PositionProvider, node).start
        fix = fix or _static_fix(name) or "it was removed; use its tf.compat.v1 or TF 2 form"
        verb = "call does not run" if what == "call" else "does not resolve"
        text = f"'{name}' {verb} on TensorFlow {self.resolver.version()}: {fix}"
        self.items.append(ReportItem(start.line, start.column, ERROR, text))

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            name = module_path(alias.name)
            canonical = tf_path(name)
            if canonical is not None:
                self._check_tf(alias, canonical, modules=[name])
            elif name.startswith("tfport.") and not provided(name):
                self._add(alias, name, "this tfport has no such module")
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        if node.relative or isinstance(node.names, cst.ImportStar):
            return False
        base = module_path(node.module)
        canonical = tf_path(base)
        for alias in node.names:
            name = module_path(alias.name)
            if canonical is not None:
                full = f"{canonical}.{name}"
                self._check_tf(alias, full, modules=[f"{base}.{name}"], parent=base)
            elif base.split(".")[0] == "tfport" and not provided(f"{base}.{name}"):
                self._add(alias, f"{base}.{name}", "this tfport does not provide it")
        return False

    def _check_tf(
        self, node: cst.CSTNode, canonical: str, modules: list[str], parent: str = ""
    ) -> None:
        fix = _static_fix(canonical)
        if fix is not None:
            self._add(node, canonical, fix)
            return
        if self.resolver.api(canonical) or any(map(self.resolver.module, modules)):
            return
        if parent and self.resolver.module(parent) and self._has(parent, canonical):
            return
        self._add(node, canonical)

    @staticmethod
    def _has(parent: str, canonical: str) -> bool:
        try:
            return hasattr(importlib.import_module(parent), canonical.rsplit(".", 1)[1])
        except Exception:  # noqa: BLE001 - a module that fails to import does not resolve
            return False

    def visit_Call(self, node: cst.Call) -> None:
        canonical = self.aliases.canonical(node.func)
        if canonical is None or self.resolver.tf is None or estimator_match(canonical):
            return
        bad = _bad_keywords(self.resolver.obj(canonical), node)
        if bad:
            v1 = "tf.compat.v1." + canonical[len("tf.") :]
            fix = f"use {v1} (TF 1.x's arguments)" if self.resolver.api(v1) else "rename it"
            keywords = ", ".join(f"{name}=" for name in bad)
            self._add(node, canonical, f"it takes no {keywords} here; {fix}", what="call")

    def on_ref(self, node: cst.Attribute | cst.Name) -> bool:
        canonical = self.aliases.canonical(node)
        if canonical is not None:
            fix = _static_fix(canonical)
            if fix is not None or not self.resolver.api(canonical):
                self._add(node, canonical, fix)
            return False
        text = dotted(node)
        if text is None:
            return True
        root, _, rest = text.partition(".")
        base = self.tfport_names.get(root)
        if base is not None and rest and self.resolver.tf is not None:
            if not provided(f"{base}.{rest}"):
                self._add(node, f"{base}.{rest}", "this tfport does not provide it")
            return False
        return isinstance(node, cst.Attribute)


def _tfport_names(module: cst.Module) -> dict[str, str]:
    """Local names bound to tfport modules (``import tfport``, ``x = tfport.compat.contrib``)."""
    names: dict[str, str] = {}
    for stmt in module.body:
        if not isinstance(stmt, cst.SimpleStatementLine):
            continue
        for small in stmt.body:
            if isinstance(small, cst.Import):
                for alias in small.names:
                    name = module_path(alias.name)
                    if name.split(".")[0] == "tfport":
                        local = alias.evaluated_alias or name.split(".")[0]
                        names[local] = name if alias.asname else "tfport"
            elif isinstance(small, cst.Assign) and len(small.targets) == 1:
                target, value = small.targets[0].target, dotted(small.value) or ""
                if isinstance(target, cst.Name) and value.split(".")[0] in names:
                    head, _, rest = value.partition(".")
                    names[target.value] = names[head] + (f".{rest}" if rest else "")
    return names


def unresolved_names(code: str, *, resolve: bool = True) -> tuple[ReportItem, ...]:
    """Finds the references in `code` that cannot resolve on the installed TensorFlow / tfport.

    Args:
        code: an (upgraded) Python source text.
        resolve: resolve names against the installed TensorFlow (imports it); False checks
            only for `tf.contrib` and `tf.flags`.

    Returns:
        ERROR items at the positions in `code`, in order.

    Example:
        >>> src = "import tensorflow as tf\\nx = tf.contrib.slim\\n"
        >>> unresolved_names(src, resolve=False)[0].format("a.py").split(" does ")[0]
        "a.py:2:4: ERROR: 'tf.contrib.slim'"
    """
    wrapper = MetadataWrapper(cst.parse_module(code))
    checker = _Checker(
        collect_aliases(wrapper.module), _Resolver(resolve), _tfport_names(wrapper.module)
    )
    wrapper.visit(checker)
    return tuple(sorted(checker.items))
