"""The base of every rewrite pass: aliases, positions and report items."""

from __future__ import annotations

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from tfport.upgrade._names import Aliases, collect_aliases
from tfport.upgrade._report import ReportItem


class Pass(cst.CSTTransformer):
    """A libcst transformer that knows the module's TF aliases and records report items."""

    METADATA_DEPENDENCIES = (PositionProvider,)
    # The pass runs only when one of these appears in the source text (None: always).
    TRIGGERS: tuple[str, ...] | None = None

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


def run_pass(
    module: cst.Module, pass_type: type[Pass], code: str | None = None
) -> tuple[cst.Module, list[ReportItem]]:
    """Runs one pass over `module`; returns the new module and the pass's items.

    `code` (the module's text, if known) saves a code generation for the trigger check;
    a skipped pass returns `module` itself.

    Example:
        >>> run_pass(cst.parse_module("x = 1\\n"), Pass)[0].code
        'x = 1\\n'
    """
    if pass_type.TRIGGERS is not None:
        code = module.code if code is None else code
        if not any(word in code for word in pass_type.TRIGGERS):
            return module, []
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    transformer = pass_type(collect_aliases(wrapper.module))
    new = wrapper.visit(transformer)
    return new, transformer.items
