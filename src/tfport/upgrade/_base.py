"""The base of every rewrite pass: aliases, positions and report items."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from tfport.upgrade._names import Aliases, collect_aliases
from tfport.upgrade._report import ReportItem


class Pass(cst.CSTTransformer):
    """A libcst transformer that knows the module's TF aliases and records report items."""

    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, aliases: Aliases) -> None:
        super().__init__()
        self.aliases = aliases
        self.items: list[ReportItem] = []

    def report(self, node: cst.CSTNode, level: str, message: str) -> None:
        """Records an item at `node`'s position (`node` must be an original node)."""
        try:
            start = self.get_metadata(PositionProvider, node).start
            line, col = start.line, start.column
        except KeyError:  # a node created by this pass
            line, col = 0, 0
        self.items.append(ReportItem(line, col, level, message))

    def tf_ref(self, path: str) -> cst.BaseExpression | None:
        """Builds a local reference to the canonical `path` (``tf.config.x``), or None."""
        from tfport.upgrade._names import build

        local = self.aliases.local_for(path)
        if local is None and path.startswith("tf.") and not path.startswith("tf.compat."):
            local = self.aliases.local_for("tf.compat.v1" + path[2:])
        return build(local) if local else None


def run_pass(module: cst.Module, pass_type: type[Pass]) -> tuple[cst.Module, list[ReportItem]]:
    """Runs one pass over `module`; returns the new module and the pass's items.

    Example:
        >>> run_pass(cst.parse_module("x = 1\\n"), Pass)[0].code
        'x = 1\\n'
    """
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    transformer = pass_type(collect_aliases(wrapper.module))
    new = wrapper.visit(transformer)
    return new, transformer.items
