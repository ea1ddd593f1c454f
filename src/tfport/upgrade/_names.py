"""Resolving what a dotted expression means: `tf.x`, `v1.x`, `from tensorflow import x`.

Every rewrite works on *canonical* names: the dotted path an expression refers
to, spelled from ``tf`` (``import tensorflow as anything`` is ``tf``). Local
aliases come from imports anywhere in the module and from module-level
assignments such as ``v1 = tf.compat.v1``.
"""

from __future__ import annotations

import collections
import dataclasses

import libcst as cst
import libcst.matchers as m

TF = "tf"


def dotted(node: cst.CSTNode) -> str | None:
    """Returns ``"a.b.c"`` for a Name/Attribute chain, else None.

    Example:
        >>> dotted(cst.parse_expression("tf.estimator.Estimator"))
        'tf.estimator.Estimator'
    """
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        base = dotted(node.value)
        return None if base is None else f"{base}.{node.attr.value}"
    return None


def module_path(node: cst.BaseExpression | None) -> str:
    """Returns the dotted module of an ``import`` / ``from`` statement."""
    if node is None:
        return ""
    text = dotted(node)
    return text or ""


def tf_path(module: str) -> str | None:
    """Maps a Python module path to its canonical name (``tensorflow.x`` -> ``tf.x``)."""
    if module == "tensorflow":
        return TF
    if module.startswith("tensorflow."):
        return TF + module[len("tensorflow") :]
    return None


def build(path: str) -> cst.BaseExpression:
    """Builds the expression ``a.b.c`` for a dotted path.

    Example:
        >>> cst.Module([]).code_for_node(build("tfport.estimator.Estimator"))
        'tfport.estimator.Estimator'
    """
    parts = path.split(".")
    node: cst.BaseExpression = cst.Name(parts[0])
    for part in parts[1:]:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


@dataclasses.dataclass
class Aliases:
    """Local names bound to TensorFlow objects: local name -> canonical path."""

    names: dict[str, str] = dataclasses.field(default_factory=dict)

    def canonical(self, node: cst.CSTNode) -> str | None:
        """Returns the canonical path of a Name/Attribute chain, or None when not TF."""
        text = dotted(node)
        if text is None:
            return None
        root, _, rest = text.partition(".")
        base = self.names.get(root)
        if base is None:
            return None
        return _normalize(f"{base}.{rest}" if rest else base)

    def root_of(self, node: cst.CSTNode) -> str | None:
        """Returns the canonical path bound to the chain's root name."""
        while isinstance(node, cst.Attribute):
            node = node.value
        return self.names.get(node.value) if isinstance(node, cst.Name) else None

    def local_for(self, canonical: str) -> str | None:
        """Returns a local spelling of `canonical` (``tf.config`` -> ``tf.config``), if any."""
        best: tuple[int, str] | None = None
        for local, base in self.names.items():
            if canonical == base or canonical.startswith(base + "."):
                if best is None or len(base) > best[0]:
                    best = (len(base), local + canonical[len(base) :])
        return best[1] if best else None


def _normalize(path: str) -> str:
    """``tf.compat.v1.compat.v2.x`` -> ``tf.compat.v2.x`` (``tf`` may be compat.v1 itself).

    ``tf.compat.v1.contrib.x`` (TF 1.x code under a compat.v1 alias) is ``tf.contrib.x``.
    """
    while path.startswith(("tf.compat.v1.compat.", "tf.compat.v2.compat.")):
        path = "tf." + path[len("tf.compat.v1.") :]
    if path == "tf.compat.v1.contrib" or path.startswith("tf.compat.v1.contrib."):
        path = "tf." + path[len("tf.compat.v1.") :]
    return path


def collect_aliases(module: cst.Module) -> Aliases:
    """Finds the local names bound to TensorFlow modules and symbols.

    Example:
        >>> src = "import tensorflow as tf\\nv1 = tf.compat.v1\\n"
        >>> collect_aliases(cst.parse_module(src)).names
        {'tf': 'tf', 'v1': 'tf.compat.v1'}
    """
    aliases = Aliases()
    finder = _ImportFinder()
    module.visit(finder)
    for node in finder.imports:
        _add_import(aliases, node)
    for stmt in module.body:
        _add_assignment(aliases, stmt)
    return aliases


class _ImportFinder(cst.CSTVisitor):
    """Collects import statements anywhere, without walking into expressions."""

    def __init__(self) -> None:
        super().__init__()
        self.imports: list[cst.Import | cst.ImportFrom] = []

    def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
        self.imports.extend(s for s in node.body if isinstance(s, cst.Import | cst.ImportFrom))
        return False

    def visit_SimpleStatementSuite(self, node: cst.SimpleStatementSuite) -> bool:
        self.imports.extend(s for s in node.body if isinstance(s, cst.Import | cst.ImportFrom))
        return False


def _add_import(aliases: Aliases, node: cst.CSTNode) -> None:
    if isinstance(node, cst.Import):
        for alias in node.names:
            path = tf_path(module_path(alias.name))
            if path is None:
                continue
            if alias.asname is not None:
                aliases.names[_asname(alias)] = path
            else:  # `import tensorflow.x.y` binds `tensorflow`
                aliases.names["tensorflow"] = TF
        return
    assert isinstance(node, cst.ImportFrom)
    if node.relative or isinstance(node.names, cst.ImportStar):
        return
    base = tf_path(module_path(node.module))
    if base is None:
        return
    for alias in node.names:
        name = alias.name.value if isinstance(alias.name, cst.Name) else dotted(alias.name)
        local = _asname(alias) if alias.asname is not None else name
        if name and local:
            aliases.names[local] = f"{base}.{name}"


def _asname(alias: cst.ImportAlias) -> str:
    assert alias.asname is not None
    name = alias.asname.name
    return name.value if isinstance(name, cst.Name) else ""


def _add_assignment(aliases: Aliases, stmt: cst.CSTNode) -> None:
    if not m.matches(stmt, m.SimpleStatementLine(body=[m.Assign(targets=[m.AssignTarget()])])):
        return
    assign = stmt.body[0]  # type: ignore[attr-defined]  # the matcher checked it
    target = assign.targets[0].target
    if not isinstance(target, cst.Name):
        return
    path = aliases.canonical(assign.value)
    if path is not None:
        aliases.names[target.value] = path


class References:
    """Mixin for a libcst visitor or transformer: `on_ref` sees each TF-able reference.

    A reference is a Name/Attribute chain used as a value: attribute names, keywords,
    parameters and the names a ``def``/``class``/assignment binds are not references.
    `on_ref(node)` is called for the outermost chain first; it returns whether to visit the
    chain's parts too. The one place this rule lives: :mod:`._check` and :mod:`._contrib`
    use it.

    Example:
        >>> class Seen(References, cst.CSTVisitor):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.seen = []
        ...     def on_ref(self, node):
        ...         self.seen.append(dotted(node))
        ...         return False
        >>> finder = Seen()
        >>> _ = cst.parse_module("def f(a=tf.x):\\n    return g(k=tf.y.z)\\n").visit(finder)
        >>> finder.seen
        ['tf.x', 'g', 'tf.y.z']
    """

    def on_ref(self, node: cst.Attribute | cst.Name) -> bool:
        """Called for each reference; returns whether to visit its parts."""
        raise NotImplementedError

    def _not_refs(self) -> set[int]:
        if "_ref_skip" not in self.__dict__:
            self._ref_skip: set[int] = set()
        return self._ref_skip

    def visit_Arg(self, node: cst.Arg) -> None:
        if node.keyword is not None:
            self._not_refs().add(id(node.keyword))

    def visit_Param(self, node: cst.Param) -> None:
        self._not_refs().add(id(node.name))

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._not_refs().add(id(node.name))

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self._not_refs().add(id(node.name))

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._not_refs().add(id(node.target))

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        self._not_refs().add(id(node.attr))
        return self.on_ref(node)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) not in self._not_refs():
            self.on_ref(node)


class _NameCounter(cst.CSTVisitor):
    """Counts names used as values (not attribute names, keywords or imports)."""

    def __init__(self) -> None:
        super().__init__()
        self.counts: collections.Counter[str] = collections.Counter()

    def visit_Import(self, node: cst.Import) -> bool:
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        return False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        node.value.visit(self)
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        node.value.visit(self)
        return False

    def visit_Name(self, node: cst.Name) -> None:
        self.counts[node.value] += 1


def name_counts(node: cst.CSTNode) -> collections.Counter[str]:
    """Counts the names used as values in `node` (imports, `x.attr` and `kw=` names excluded).

    Example:
        >>> name_counts(cst.parse_module("f(config=config, x=a.config)\\n"))["config"]
        1
    """
    counter = _NameCounter()
    node.visit(counter)
    return counter.counts


def name_uses(node: cst.CSTNode, name: str) -> int:
    """Counts the uses of `name` in `node` as a value (see :func:`name_counts`)."""
    return name_counts(node)[name]
