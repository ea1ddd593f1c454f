"""TF 1.x session programs: graph mode switched on at the program's entry.

A module that builds TF 1.x graph-mode code outside any ``with graph.as_default():``
block (``tf.placeholder``, ``tf.Session`` / ``InteractiveSession``, variable
initializers, ``tf.gradients``, ``tf.train.Saver``; at module level also a ``tf.train``
optimizer, whose ``minimize`` takes a tensor there) fails at once on
TF 2 in eager mode, whatever its names resolve to. As TensorFlow's migration guide
prescribes, the upgrade calls ``tf.compat.v1.disable_v2_behavior()`` right after the
module's TensorFlow import, when the module is a program (such code at module level,
or an ``if __name__ == "__main__":`` entry) that constructs no Estimator and turns
nothing off itself. A module with such code only inside functions and no entry is left
as it is: the program that calls them gets the switch. Estimator modules are
left alone (tfport's Estimator builds its own graphs; ``serving_input_fn``'s
``tf.placeholder`` runs there), and a ``tf.app.run`` main alone is no sign.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import libcst as cst
import libcst.matchers as m

from tfport.upgrade._base import Pass
from tfport.upgrade._estimator import match as estimator_match
from tfport.upgrade._names import Aliases, dotted, module_path, tf_path
from tfport.upgrade._report import INFO

# TF 1.x names (spelled `tf.x`) that fail in eager mode wherever they are called.
GRAPH_ONLY = frozenset(
    {
        "tf.placeholder",
        "tf.sparse_placeholder",
        "tf.Session",
        "tf.InteractiveSession",
        "tf.global_variables_initializer",
        "tf.local_variables_initializer",
        "tf.initialize_all_variables",
        "tf.initialize_local_variables",
        "tf.variables_initializer",
        "tf.tables_initializer",
        "tf.get_default_session",
        "tf.gradients",
        "tf.train.Saver",
        "tf.train.MonitoredTrainingSession",
        "tf.train.MonitoredSession",
        "tf.train.SingularMonitoredSession",
        "tf.train.start_queue_runners",
        "tf.summary.merge_all",
        "tf.summary.FileWriter",
    }
)
# Graph building that fails in eager mode at module level (in a function it may be
# traced into a graph, e.g. by an Estimator or a tf.function): a TF 1.x optimizer's
# `minimize(loss)` takes a tensor there.
MODULE_LEVEL = ("tf.train.",)
MODULE_LEVEL_SUFFIX = "Optimizer"
SWITCHES = ("tf.disable_v2_behavior", "tf.disable_eager_execution")
CALL = "tf.compat.v1.disable_v2_behavior"
_MAIN = m.If(
    test=m.Comparison(
        left=m.Name("__name__"), comparisons=[m.ComparisonTarget(comparator=m.SimpleString())]
    )
)


def _v1(canonical: str) -> str:
    """``tf.compat.v1.x`` -> ``tf.x`` (TF 1.x's spelling)."""
    v1 = "tf.compat.v1."
    return "tf." + canonical[len(v1) :] if canonical.startswith(v1) else canonical


@dataclasses.dataclass
class Signs:
    """What a module holds: graph-mode signs (TF 1.x name, at module level), an entry,
    an Estimator, a switch of its own."""

    found: list[tuple[str, bool]] = dataclasses.field(default_factory=list)
    estimator: bool = False
    switched: bool = False
    main: bool = False

    def needs_switch(self) -> bool:
        """True when the upgrade inserts the switch (see the module's docstring)."""
        if self.estimator or self.switched or not self.found:
            return False
        return self.main or any(top for _, top in self.found)

    def text(self) -> str:
        """``'tf.placeholder', 'tf.Session'``: the first three names, in order."""
        names = list(dict.fromkeys(name for name, _ in self.found))
        return ", ".join(f"'{name}'" for name in names[:3]) + (", ..." if len(names) > 3 else "")


class _Finder(cst.CSTVisitor):
    def __init__(self, aliases: Aliases) -> None:
        super().__init__()
        self.aliases = aliases
        self.signs = Signs()
        self._depth = 0  # function / class / lambda bodies
        self._graph = 0  # `with ....as_default():` blocks

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._depth += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._depth -= 1

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._depth += 1

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._depth -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._depth += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._depth -= 1

    def visit_With(self, node: cst.With) -> None:
        self._graph += _as_default(node)

    def leave_With(self, original_node: cst.With) -> None:
        self._graph -= _as_default(original_node)

    def visit_If(self, node: cst.If) -> None:
        if self._depth == 0 and m.matches(node, _MAIN):
            self.signs.main = True

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return self._ref(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._ref(node)

    def _ref(self, node: cst.Attribute | cst.Name) -> bool:
        canonical = self.aliases.canonical(node)
        if canonical is None:
            text = dotted(node) or ""
            if text.startswith(("tfport.estimator", "tfport.keras")):  # rewritten already
                self.signs.estimator = True
                return False
            return True
        if estimator_match(canonical) is not None:
            self.signs.estimator = True
        name = _v1(canonical)
        if name in SWITCHES:
            self.signs.switched = True
        elif self._graph == 0 and self._is_sign(name):
            self.signs.found.append((name, self._depth == 0))
        return False

    def _is_sign(self, name: str) -> bool:
        if name in GRAPH_ONLY:
            return True
        return (
            self._depth == 0
            and name.startswith(MODULE_LEVEL)
            and name.endswith(MODULE_LEVEL_SUFFIX)
        )


def _as_default(node: cst.With) -> int:
    call = m.Call(func=m.Attribute(attr=m.Name("as_default")))
    return int(any(m.matches(item.item, call) for item in node.items))


def find_signs(module: cst.Module, aliases: Aliases) -> Signs:
    """The graph-mode signs of `module` (canonical names spelled as TF 1.x's ``tf.x``).

    Example:
        >>> from tfport.upgrade._names import collect_aliases
        >>> src = "import tensorflow as tf\\nx = tf.compat.v1.placeholder(tf.float32)\\n"
        >>> module = cst.parse_module(src)
        >>> signs = find_signs(module, collect_aliases(module))
        >>> signs.text(), signs.needs_switch()
        ("'tf.placeholder'", True)
    """
    finder = _Finder(aliases)
    module.visit(finder)
    return finder.signs


def _switch_line(stmt: cst.CSTNode) -> str | None:
    """The switch statement spelled with the TensorFlow name `stmt` binds, or None."""
    for node in m.findall(stmt, m.Import() | m.ImportFrom()):
        if isinstance(node, cst.ImportFrom):
            base = None if node.relative else tf_path(module_path(node.module))
            if base == "tf.compat" and not isinstance(node.names, cst.ImportStar):
                for alias in node.names:
                    if module_path(alias.name) == "v1":
                        return f"{alias.evaluated_alias or 'v1'}.disable_v2_behavior()"
            continue
        if not isinstance(node, cst.Import):
            continue
        for alias in node.names:
            path = tf_path(module_path(alias.name))
            if path is None:
                continue
            if alias.asname is None:
                return "tensorflow.compat.v1.disable_v2_behavior()"
            if path in ("tf", "tf.compat.v1"):
                prefix = ".compat.v1" if path == "tf" else ""
                return f"{alias.evaluated_alias}{prefix}.disable_v2_behavior()"
    return None


class GraphModePass(Pass):
    """Calls ``tf.compat.v1.disable_v2_behavior()`` after the TF import of a TF 1.x program."""

    TRIGGERS: tuple[str, ...] | None = (
        "placeholder",
        "Session",
        "initializer",
        "gradients",
        "Saver",
        "summary",
        "Optimizer",
    )

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        signs = find_signs(updated_node, self.aliases)
        if not signs.needs_switch():
            return updated_node
        body = list(updated_node.body)
        found = [(i, text) for i, s in enumerate(body) if (text := _switch_line(s)) is not None]
        if found:
            index, lines = found[0][0] + 1, [found[0][1]]
        else:  # TensorFlow reached only through `from tensorflow import x`
            index = _after_header(body)
            lines = ["import tensorflow", "tensorflow.compat.v1.disable_v2_behavior()"]
        anchor = original_node.body[max(min(index, len(original_node.body)) - 1, 0)]
        self.report(
            anchor,
            INFO,
            f"Added {lines[-1]}: TF 1.x graph-mode code ({signs.text()}) runs on TF 2 only "
            "with TF 1.x behavior, as TensorFlow's migration guide prescribes",
        )
        new = [cst.parse_statement(line + "\n") for line in lines]
        return updated_node.with_changes(body=[*body[:index], *new, *body[index:]])


def _after_header(body: Sequence[cst.CSTNode]) -> int:
    index = 0
    if body and m.matches(body[0], m.SimpleStatementLine(body=[m.Expr(m.SimpleString())])):
        index = 1
    while index < len(body) and m.matches(
        body[index], m.SimpleStatementLine(body=[m.ImportFrom(module=m.Name("__future__"))])
    ):
        index += 1
    return index
