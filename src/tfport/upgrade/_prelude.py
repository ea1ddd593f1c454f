"""Makes an upgraded file import tfport, and call `tfport.install()`, before TensorFlow.

Decision: a file that uses `tfport.*` names or `tf.compat.v1.layers` gets, right
before its first top-level TensorFlow import (else after the docstring and
``__future__`` imports)::

    import tfport  # tfport upgrade: keep this before TensorFlow is imported
    tfport.install()
    import tfport.estimator  # and/or .estimator.tpu, .estimator.v1, .keras, .compat.contrib

`tfport.install()` must run before TensorFlow is imported: it sets
`TF_USE_LEGACY_KERAS=1` (what `tf.compat.v1.layers` and Keras 2 `tf.keras` need
on TF 2.21) and makes any `tf.estimator` the rewrites could not see resolve to
tfport. Putting it just before the TF import (not at the very top) keeps any
environment the file sets up first. Nothing is added twice.
"""

from __future__ import annotations

from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from tfport.upgrade._base import Pass
from tfport.upgrade._names import Aliases, dotted, module_path, tf_path
from tfport.upgrade._report import INFO

V1_LAYERS = "tf.compat.v1.layers"
COMMENT = "# tfport upgrade: keep this before TensorFlow is imported"
# Longest first: a chain `tfport.estimator.tpu.X` needs `import tfport.estimator.tpu`.
SUBMODULES = (
    "tfport.estimator.tpu",
    "tfport.estimator.v1",
    "tfport.estimator",
    "tfport.keras",
    "tfport.compat.contrib",
)
_INSTALL = m.SimpleStatementLine(
    body=[m.Expr(value=m.Call(func=m.Attribute(value=m.Name("tfport"), attr=m.Name("install"))))]
)


class _Needs(cst.CSTVisitor):
    def __init__(self, aliases: Aliases) -> None:
        super().__init__()
        self.aliases = aliases
        self.modules: set[str] = set()
        self.install = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        text = dotted(node) or ""
        for sub in SUBMODULES:
            if text == sub or text.startswith(sub + "."):
                self.modules.add(sub)
                self.install = True
                return False
        canonical = self.aliases.canonical(node) or ""
        if canonical == V1_LAYERS or canonical.startswith(V1_LAYERS + "."):
            self.install = True
            return False
        return True

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        module = module_path(node.module)
        if module == "tfport" or module.startswith("tfport."):
            self.install = True
        elif not isinstance(node.names, cst.ImportStar) and not node.relative:
            names = [f"{module}.{module_path(alias.name)}" for alias in node.names]
            self.install |= any(map(_is_v1_layers, names))
        return False

    def visit_Import(self, node: cst.Import) -> bool:
        self.install |= any(_is_v1_layers(module_path(alias.name)) for alias in node.names)
        return False


def _is_v1_layers(module: str) -> bool:
    canonical = tf_path(module) or ""
    return canonical == V1_LAYERS or canonical.startswith(V1_LAYERS + ".")


def _imports_tf(stmt: cst.CSTNode) -> bool:
    """True when `stmt` imports tensorflow or tfport (the prelude goes before both)."""
    for node in m.findall(stmt, m.Import() | m.ImportFrom()):
        names = [module_path(a.name) for a in node.names] if isinstance(node, cst.Import) else []
        if isinstance(node, cst.ImportFrom) and not node.relative:
            names = [module_path(node.module)]
        if any(n.split(".")[0] in ("tensorflow", "tfport") for n in names):
            return True
    return False


def _imported(stmt: cst.CSTNode) -> set[str]:
    found: set[str] = set()
    for node in m.findall(stmt, m.Import()):
        found.update(module_path(a.name) for a in node.names if a.asname is None)  # type: ignore[attr-defined]
    return found


class PreludePass(Pass):
    """Inserts the tfport imports and `tfport.install()` where the file needs them."""

    TRIGGERS = ("tfport", "layers")

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        needs = _Needs(self.aliases)
        updated_node.visit(needs)
        body = list(updated_node.body)
        top = [s for s in body if not m.matches(s, m.If() | m.Try())]
        have = set().union(*map(_imported, top)) if top else set()
        has_install = any(m.matches(s, _INSTALL) for s in body)
        lines = []
        if needs.install and not has_install:
            lines += ["import tfport", "tfport.install()"]
        lines += [f"import {sub}" for sub in sorted(needs.modules) if sub not in have]
        if not lines:
            return updated_node
        index = self._position(body, has_install)
        if index < len(body):
            self.report(original_node.body[index], INFO, "Added " + "; ".join(lines))
        if lines[0] == "import tfport":
            lines[0] += "  " + COMMENT
        new = [cst.parse_statement(line + "\n") for line in lines]
        if index < len(body):  # comments above the TF import now sit above the prelude
            new[0] = new[0].with_changes(leading_lines=body[index].leading_lines)
            body[index] = body[index].with_changes(leading_lines=[])
        return updated_node.with_changes(body=[*body[:index], *new, *body[index:]])

    @staticmethod
    def _position(body: Sequence[cst.CSTNode], has_install: bool) -> int:
        if has_install:
            return 1 + max(i for i, s in enumerate(body) if m.matches(s, _INSTALL))
        for index, stmt in enumerate(body):
            if _imports_tf(stmt):
                return index
        index = 0
        if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
            index = 1
        while index < len(body) and m.matches(
            body[index], m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name("__future__"))])
        ):
            index += 1
        return index
