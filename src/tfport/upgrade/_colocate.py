"""`with tf.colocate_with(x):` blocks removed, their body kept (TF 2 places ops itself)."""

from __future__ import annotations

import libcst as cst

from tfport.upgrade._base import Pass
from tfport.upgrade._report import INFO, WARNING

NAMES = ("tf.colocate_with", "tf.compat.v1.colocate_with", "tf.compat.v2.colocate_with")


class ColocatePass(Pass):
    """Removes `colocate_with` context managers; the block's statements stay in place."""

    TRIGGERS = ("colocate_with",)

    def _is_colocate(self, item: cst.WithItem) -> bool:
        call = item.item
        return isinstance(call, cst.Call) and self.aliases.canonical(call.func) in NAMES

    def leave_With(
        self, original_node: cst.With, updated_node: cst.With
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        if updated_node.asynchronous is not None:
            return updated_node
        items = [item for item in updated_node.items if not self._is_colocate(item)]
        if len(items) == len(updated_node.items):
            return updated_node
        if any(item.asname for item in updated_node.items if self._is_colocate(item)):
            self.report(
                original_node, WARNING, "colocate_with(...) as NAME kept: remove it by hand"
            )
            return updated_node
        self.report(original_node, INFO, "Removed 'colocate_with' block (body kept)")
        if items:
            items[-1] = items[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return updated_node.with_changes(items=items)
        return _unwrap(updated_node)


def _unwrap(node: cst.With) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement]:
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        return cst.SimpleStatementLine(
            body=body.body,
            leading_lines=node.leading_lines,
            trailing_whitespace=body.trailing_whitespace,
        )
    statements = list(body.body)
    first = statements[0]
    statements[0] = first.with_changes(
        leading_lines=[*node.leading_lines, *first.leading_lines]  # type: ignore[attr-defined]
    )
    return cst.FlattenSentinel(statements)  # type: ignore[arg-type]  # a block's statements
