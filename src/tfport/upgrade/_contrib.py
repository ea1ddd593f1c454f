"""`tf.contrib` and `tf.flags`: rewrites to TF 2.21 / tfport, report items for the rest.

`tf.contrib` is gone since TF 2.0; `tf_upgrade_v2` suggests TensorFlow Addons,
itself end of life since 2024, and leaves `tf.flags` alone. Before `tf_upgrade_v2`,
:class:`ContribRewritePass` rewrites every name of
:mod:`tfport.upgrade._contrib_table` (TPUEstimator names: see
:mod:`tfport.upgrade._estimator`). After it, :class:`ContribPass` reports each
remaining use as an ERROR item with the manual fix, and removes imports from
`tensorflow.contrib` that nothing uses any more.
"""

from __future__ import annotations

from typing import TypeGuard, TypeVar

import libcst as cst

from tfport.upgrade._base import Pass
from tfport.upgrade._contrib_table import lookup, manual_fix
from tfport.upgrade._names import (
    Aliases,
    References,
    build,
    dotted,
    module_path,
    name_counts,
    tf_path,
)
from tfport.upgrade._report import ERROR, INFO

_ImportT = TypeVar("_ImportT", cst.Import, cst.ImportFrom)

PREFIX = "tf.contrib"


def _is_contrib(canonical: str | None) -> TypeGuard[str]:
    return canonical is not None and (canonical == PREFIX or canonical.startswith(PREFIX + "."))


def _message(canonical: str) -> str:
    return f"'{canonical}' does not exist on TF 2.21 and has no rewrite: {manual_fix(canonical)}"


class ContribRewritePass(References, Pass):
    """Rewrites `tf.contrib.*` / `tf.flags` names that have a TF 2.21 or tfport equivalent."""

    TRIGGERS = ("contrib", "flags")

    def __init__(self, aliases: Aliases) -> None:
        super().__init__(aliases)
        self._targets: dict[cst.CSTNode, tuple[str, str]] = {}
        self._assigned: set[str] = set()

    def visit_Module(self, node: cst.Module) -> None:
        for stmt in node.body:  # `flags = tf.flags`: the assignment is rewritten, not each use
            if isinstance(stmt, cst.SimpleStatementLine) and isinstance(stmt.body[0], cst.Assign):
                for target in stmt.body[0].targets:
                    if isinstance(target.target, cst.Name):
                        self._assigned.add(target.target.value)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def on_ref(self, node: cst.Attribute | cst.Name) -> bool:
        canonical = self.aliases.canonical(node)
        if canonical is None:
            return True
        root = (dotted(node) or "").split(".")[0]
        if root in self._assigned and isinstance(node, cst.Attribute):
            root_path = self.aliases.names.get(root)
            if root_path is not None and lookup(root_path) is not None:
                return False  # its assignment is rewritten instead
        target = lookup(canonical)
        if target is None:
            return not _is_contrib(canonical)  # leave unmapped contrib for ContribPass
        self._targets[node] = (canonical, target)
        return False

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return self._replace(original_node, updated_node)

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        return self._replace(original_node, updated_node)

    def _replace(
        self, original: cst.Attribute | cst.Name, updated: cst.BaseExpression
    ) -> cst.BaseExpression:
        if original not in self._targets:
            return updated
        canonical, target = self._targets[original]
        new = build(target) if target.startswith("tfport.") else self.tf_ref(target)
        if new is None:
            fix = f"import tensorflow as tf and use {target}"
            self.report(original, ERROR, f"'{canonical}' does not exist on TF 2.21: {fix}")
            return updated
        self.report(original, INFO, f"Renamed '{canonical}' to '{target}'")
        return new


class ContribPass(Pass):
    """Reports remaining `tf.contrib` uses and drops unused `tensorflow.contrib` imports."""

    TRIGGERS = ("contrib",)

    def visit_Module(self, node: cst.Module) -> None:
        self._used = set(name_counts(node))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        # Each use is reported with its full name (`contrib_opt.LARSOptimizer` is
        # 'tf.contrib.opt.LARSOptimizer'), through a `tensorflow.contrib` alias too.
        canonical = self.aliases.canonical(node)
        if not _is_contrib(canonical):
            return True
        self.report(node, ERROR, _message(canonical))
        return False

    def leave_Import(
        self, original_node: cst.Import, updated_node: cst.Import
    ) -> cst.Import | cst.RemovalSentinel:
        keep = [a for a in updated_node.names if self._keep(original_node, a, module_path(a.name))]
        return self._rebuild(updated_node, keep)

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        if isinstance(updated_node.names, cst.ImportStar) or updated_node.relative:
            return updated_node
        base = module_path(updated_node.module)
        keep = [
            a
            for a in updated_node.names
            if self._keep(original_node, a, f"{base}.{module_path(a.name)}")
        ]
        return self._rebuild(updated_node, keep)

    def _keep(self, node: cst.CSTNode, alias: cst.ImportAlias, module: str) -> bool:
        canonical = tf_path(module)
        local = alias.evaluated_alias
        if local is None and isinstance(node, cst.ImportFrom):
            local = alias.evaluated_name
        if not _is_contrib(canonical):
            return True
        if local is None or local in self._used:
            self.report(node, ERROR, _message(canonical))
            return True
        self.report(node, INFO, f"Removed the unused import of '{canonical}'")
        return False

    @staticmethod
    def _rebuild(node: _ImportT, keep: list[cst.ImportAlias]) -> _ImportT | cst.RemovalSentinel:
        if len(keep) == len(node.names):  # type: ignore[arg-type]  # never a star import
            return node
        if not keep:
            return cst.RemovalSentinel.REMOVE
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(names=keep)
