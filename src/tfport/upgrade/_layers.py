"""`tf.layers.*` -> `tf.compat.v1.layers.*`.

On TF 2.21 `tf.compat.v1.layers` exists only when `tf_keras` is installed and
`TF_USE_LEGACY_KERAS=1` is set before TensorFlow is imported; the prelude pass
(:mod:`tfport.upgrade._prelude`) makes the upgraded file call
`tfport.install()` before its TensorFlow import, which arranges that.
"""

from __future__ import annotations

from typing import TypeGuard

import libcst as cst

from tfport.upgrade._base import Pass
from tfport.upgrade._names import build, dotted
from tfport.upgrade._report import INFO

OLD = "tf.layers"
NEW = "tf.compat.v1.layers"


def _is_old(canonical: str | None) -> TypeGuard[str]:
    return canonical is not None and (canonical == OLD or canonical.startswith(OLD + "."))


class LayersPass(Pass):
    """Rewrites `tf.layers` references and imports to `tf.compat.v1.layers`."""

    TRIGGERS = ("layers",)

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return not _is_old(self.aliases.canonical(node))

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        canonical = self.aliases.canonical(original_node)
        if not _is_old(canonical) or _is_old(self.aliases.root_of(original_node)):
            return updated_node
        target = NEW + canonical[len(OLD) :]
        local = self.aliases.local_for(target)
        if local is None:
            return updated_node
        self.report(original_node, INFO, f"Renamed '{canonical}' to '{target}'")
        return build(local)

    def leave_ImportFrom(
        self, original_node: cst.ImportFrom, updated_node: cst.ImportFrom
    ) -> cst.ImportFrom:
        module = dotted(updated_node.module) if updated_node.module else None
        if module == "tensorflow.layers" or (module or "").startswith("tensorflow.layers."):
            new = "tensorflow.compat.v1" + (module or "")[len("tensorflow") :]
        elif module == "tensorflow" and _only_layers(updated_node):
            new = "tensorflow.compat.v1"
        else:
            return updated_node
        self.report(original_node, INFO, f"Import from '{module}' -> '{new}'")
        return updated_node.with_changes(module=build(new))


def _only_layers(node: cst.ImportFrom) -> bool:
    if isinstance(node.names, cst.ImportStar):
        return False
    return [alias.evaluated_name for alias in node.names] == ["layers"]
