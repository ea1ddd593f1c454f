"""Finds unsafe ops anywhere in a graph: main graph, function library, loop/cond bodies.

Every function of the library is scanned, reachable or not. A function is
reached through a node whose op is the function's name or through a function
attribute (``While.body``, ``If.then_branch``, ``PartitionedCall.f``, nested
``NameAttrList``s...). Recursive functions, over-deep call chains, over-deep
attributes and oversized graphs are refused; the walk is iterative, so the time
and memory it takes are linear in the size of the graph.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator

from tfport._common.errors import TfportInputError, message
from tfport._common.messages import FunctionDef, GraphDef, NodeDef
from tfport.graph import _index, _ops

MAX_CALL_DEPTH = 1000
MAX_NODES = 10_000_000
# Safe ops whose function attributes TensorFlow instantiates (a primitive op name works too).
FUNC_ATTR_OPS = frozenset(
    "PartitionedCall StatefulPartitionedCall While StatelessWhile If StatelessIf Case "
    "StatelessCase For RemoteCall SymbolicGradient".split()
)
GRAPH = "graph"
ROOT = "\x00graph"  # the main graph in the call graph; no function can be named so


@dataclasses.dataclass(frozen=True)
class Finding:
    """An op that is not on the allow-list.

    Attributes:
        node: the node's name.
        op: its op type.
        where: "graph" or "function:<name>".
        via: how that function is reached, e.g. "graph/while (While.body)"; None when unused.
        role: for SavedModels, what runs the node: "signature", "saver", "init" or "other".
        blocking: whether it stops conversion (init ops never run; saver ops are expected).
    """

    node: str
    op: str
    where: str
    via: str | None
    role: str
    blocking: bool


@dataclasses.dataclass
class Scan:
    """Result of :func:`scan`: findings and the function library's call structure."""

    findings: list[Finding]
    calls: dict[str, list[tuple[str, str, str]]]  # referrer -> [(node, attr, function)]
    via: dict[str, str]

    @property
    def blocking(self) -> list[Finding]:
        return [f for f in self.findings if f.blocking]


def scan(
    graph_def: GraphDef,
    allow: Iterable[str] = (),
    roles: dict[str, str] | None = None,
    trust: bool = False,
    max_depth: int = MAX_CALL_DEPTH,
    max_nodes: int = MAX_NODES,
    init_runs: bool = False,
    loaded: Iterable[str] = (),
) -> Scan:
    """Lists every op of `graph_def` (and its function library) that is not allowed.

    Args:
        graph_def: a GraphDef message (TF's or tfport's TF-free class).
        allow: more op types to accept.
        roles: node name -> role for SavedModels ("signature", "saver", "init", "other").
        trust: accept everything (findings are still listed, none blocks).
        max_depth: deepest function call chain and attribute nesting accepted.
        max_nodes: most nodes (graph and functions) accepted.
        init_runs: the caller runs the init ops (TensorFlow's loader does): they block
            like signature ops, and a function both an init op and the saver reach takes
            the init role.
        loaded: functions the loader itself may run, whatever the graph says (a TF2
            SavedModel's object graph names them): they take the "signature" role, so no
            saver or init exemption applies to them or to anything they reach.

    Functions sharing an ``api_implements`` attribute are one: Grappler's implementation
    selector may run any of them where the graph calls one, so each takes the most
    important role of the group.

    Returns:
        A :class:`Scan`.

    Raises:
        TfportInputError: recursive functions, nesting or sizes over the limits.

    Example:
        >>> scan(graph_def).blocking  # doctest: +SKIP
        []
    """
    allowed = _ops.SAFE_OPS | frozenset(allow)
    library = {f.signature.name: f for f in graph_def.library.function}
    _check_size(graph_def, max_nodes)
    primitive: list[tuple[str, str, str, str]] = []
    calls = _call_graph(graph_def, library, primitive, max_depth)
    _check_recursion(calls, max_depth)
    via = _first_referrers(calls)
    groups = _implementations(library)
    fn_roles = _function_roles(calls, roles or {}, init_runs, tuple(loaded), groups)
    findings = []
    ops = _index.index(graph_def).ops
    unsafe = []
    if set(ops) - allowed:
        unsafe = [graph_def.node[i] for i, op in enumerate(ops) if op not in allowed]
    functions = _all_nodes(graph_def, with_graph=False)
    for where, node in itertools.chain(((GRAPH, n) for n in unsafe), functions):
        if node.op in allowed or node.op in library:
            continue
        fname = where[len("function:") :] if where != GRAPH else None
        role = (roles or {}).get(node.name, "other") if fname is None else fn_roles[fname]
        blocking = not trust and _blocks(role, node.op, init_runs)
        findings.append(Finding(node.name, node.op, where, via.get(fname or ""), role, blocking))
    for where, node_name, attr, op in primitive:
        if op in allowed:
            continue
        fname = where[len("function:") :] if where != GRAPH else None
        role = (roles or {}).get(node_name, "other") if fname is None else fn_roles[fname]
        blocking = not trust and _blocks(role, op, init_runs)
        findings.append(
            Finding(node_name, op, where, f"{where}/{node_name} ({attr})", role, blocking)
        )
    return Scan(findings, calls, via)


def _blocks(role: str, op: str, init_runs: bool = False) -> bool:
    if role == "init":
        return init_runs
    return not (role == "saver" and op in _ops.SAVER_OPS)


def _check_size(graph_def: GraphDef, max_nodes: int) -> None:
    total = len(graph_def.node) + sum(len(f.node_def) for f in graph_def.library.function)
    if total > max_nodes:
        raise TfportInputError(
            message(
                f"The graph has {total} nodes, over the limit of {max_nodes}",
                "If the graph is real, raise the limit with --max-nodes",
                nodes=total,
            )
        )


def _all_nodes(graph_def: GraphDef, with_graph: bool = True) -> Iterator[tuple[str, NodeDef]]:
    if with_graph:
        for node in graph_def.node:
            yield GRAPH, node
    for function in graph_def.library.function:
        where = "function:" + function.signature.name
        for node in function.node_def:
            yield where, node


def _call_graph(
    graph_def: GraphDef,
    library: dict[str, FunctionDef],
    primitive: list[tuple[str, str, str, str]],
    max_depth: int,
) -> dict[str, list[tuple[str, str, str]]]:
    if ROOT in library:
        raise TfportInputError(message("A function name holds a NUL character", name=ROOT))
    calls: dict[str, list[tuple[str, str, str]]] = {ROOT: []}
    for name in library:
        calls[name] = []
    if library:
        nodes = _all_nodes(graph_def)
    else:  # only the nodes that can call something
        ops = _index.index(graph_def).ops
        nodes = ((GRAPH, graph_def.node[i]) for i, op in enumerate(ops) if op in FUNC_ATTR_OPS)
    for where, node in nodes:
        referrer = ROOT if where == GRAPH else where[len("function:") :]
        for ref in _node_refs(node, library, max_depth):
            if ref[2] in library:
                calls[referrer].append(ref)
            elif ref[2]:
                primitive.append((where, *ref))
    for grad in graph_def.library.gradient:
        if grad.function_name in library and grad.gradient_func in library:
            calls[grad.function_name].append(("(gradient)", "gradient", grad.gradient_func))
    return calls


def _node_refs(
    node: NodeDef, library: dict[str, FunctionDef], max_depth: int
) -> Iterator[tuple[str, str, str]]:
    """(node, attr, name) of each function the node calls (library or primitive op)."""
    if node.op in library:
        yield node.name, "op", node.op
    stack = [(key, value, 1) for key, value in node.attr.items()]
    while stack:
        key, value, depth = stack.pop()
        if depth > max_depth:
            raise TfportInputError(
                message(
                    f"Node {node.name!r} nests function attributes deeper than {max_depth}",
                    "If the graph is real, raise the limit with --max-depth",
                    node=node.name,
                )
            )
        kind = value.WhichOneof("value")
        funcs = [value.func] if kind == "func" else list(value.list.func) if kind == "list" else []
        for func in funcs:
            yield node.name, f"{node.op}.{key}", func.name
            stack.extend((key, v, depth + 1) for v in func.attr.values())


def _check_recursion(calls: dict[str, list[tuple[str, str, str]]], max_depth: int) -> None:
    """Refuses call cycles and call chains deeper than `max_depth` (iterative DFS)."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    for root in calls:
        if state.get(root):
            continue
        path = [root]
        iters = [iter(calls[root])]
        state[root] = 1
        while iters:
            step = next(iters[-1], None)
            if step is None:
                state[path.pop()] = 2
                iters.pop()
                continue
            callee = step[2]
            if state.get(callee) == 1:
                cycle = path[path.index(callee) :] + [callee]
                raise TfportInputError(
                    message(
                        "The function library is recursive: " + " -> ".join(cycle),
                        "tfport refuses recursive functions (they may never terminate)",
                        function=callee,
                    )
                )
            if state.get(callee) == 2:
                continue
            if len(path) >= max_depth:
                raise TfportInputError(
                    message(
                        f"Functions call each other more than {max_depth} levels deep",
                        "If the graph is real, raise the limit with --max-depth",
                        function=callee,
                    )
                )
            state[callee] = 1
            path.append(callee)
            iters.append(iter(calls[callee]))


def _first_referrers(calls: dict[str, list[tuple[str, str, str]]]) -> dict[str, str]:
    via: dict[str, str] = {}
    for referrer, refs in calls.items():
        for node, attr, callee in refs:
            where = GRAPH if referrer == ROOT else referrer
            via.setdefault(callee, f"{where}/{node} ({attr})")
    return via


def _implementations(library: dict[str, FunctionDef]) -> dict[str, list[str]]:
    """Function -> every function sharing its ``api_implements`` (itself included)."""
    by_api: dict[bytes, list[str]] = {}
    for name, function in library.items():
        if "api_implements" in function.attr:
            api = function.attr["api_implements"].s
            if api:
                by_api.setdefault(api, []).append(name)
    return {name: group for group in by_api.values() if len(group) > 1 for name in group}


def _function_roles(
    calls: dict[str, list[tuple[str, str, str]]],
    roles: dict[str, str],
    init_runs: bool = False,
    loaded: tuple[str, ...] = (),
    groups: dict[str, list[str]] | None = None,
) -> dict[str, str]:
    """A function takes the most important role of the nodes that reach it; `loaded`
    functions (and what they reach) are "signature"; a function reached brings every
    function of its `groups` (an implementation Grappler may swap in)."""
    order = ("signature", "other") + (("init", "saver") if init_runs else ("saver", "init"))
    result: dict[str, str] = {}
    groups = groups or {}
    for role in order:
        stack = [callee for node, _, callee in calls[ROOT] if roles.get(node, "other") == role]
        if role == "signature":
            stack.extend(name for name in loaded if name in calls)
        while stack:
            name = stack.pop()
            if name in result:
                continue
            result[name] = role
            stack.extend(callee for _, _, callee in calls[name])
            stack.extend(groups.get(name, ()))
    for name in calls:
        result.setdefault(name, "other")
    return result
