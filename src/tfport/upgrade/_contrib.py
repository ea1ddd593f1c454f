"""What is left of `tf.contrib` after the other rewrites: report items, unused imports dropped.

`tf.contrib` is gone since TF 2.0; `tf_upgrade_v2` suggests TensorFlow Addons,
itself end of life since 2024. tfport maps the TPUEstimator family (see
:mod:`tfport.upgrade._estimator`); every other use becomes an ERROR item with its
line, and imports from `tensorflow.contrib` that nothing uses any more are removed.
"""

from __future__ import annotations

import libcst as cst

from tfport.upgrade._base import Pass
from tfport.upgrade._names import module_path, name_counts, tf_path
from tfport.upgrade._report import ERROR, INFO

PREFIX = "tf.contrib"


def _is_contrib(canonical: str | None) -> bool:
    return canonical is not None and (canonical == PREFIX or canonical.startswith(PREFIX + "."))


def _message(canonical: str) -> str:
    return (
        f"'{canonical}' was removed with tf.contrib and tfport has no mapping; rewrite it by hand"
    )


class ContribPass(Pass):
    """Reports remaining `tf.contrib` uses and drops unused `tensorflow.contrib` imports."""

    TRIGGERS = ("contrib",)

    def visit_Module(self, node: cst.Module) -> None:
        self._used = set(name_counts(node))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        canonical = self.aliases.canonical(node)
        if not _is_contrib(canonical) or _is_contrib(self.aliases.root_of(node)):
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
    def _rebuild(node, keep: list[cst.ImportAlias]):
        if len(keep) == len(node.names):
            return node
        if not keep:
            return cst.RemovalSentinel.REMOVE
        keep[-1] = keep[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return node.with_changes(names=keep)
