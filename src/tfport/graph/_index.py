"""Small GraphDef helpers: node lookup, tensor-name parsing, ancestor closures, sinks."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from tfport._common import protos
from tfport._common.errors import TfportInputError, message
from tfport._common.messages import GraphDef, NodeDef, TensorShapeProto

# Node names never hold '^' or ':' (TensorFlow's name rule), so a whole list of inputs
# ("^ctrl", "name:1", "name") maps to node names with two C-speed passes.
_OUTPUT_INDEX = re.compile(r":[^\n]*")


# Control-flow internals: never a model output on their own.
_PLUMBING = frozenset(
    "Switch RefSwitch Merge RefMerge Enter RefEnter Exit RefExit NextIteration "
    "RefNextIteration LoopCond ControlTrigger".split()
)
# An unread Identity of these is a branch/loop tap (a Switch output may be dead).
_BRANCH_SOURCES = frozenset(
    "Switch RefSwitch While StatelessWhile If StatelessIf Case StatelessCase".split()
)


class GraphIndex:
    """One pass over a GraphDef's nodes: names, ops and the set of node names that are read.

    Walking protobuf fields from Python costs about a microsecond each; every later
    question (histogram, placeholders, sinks, dangling inputs, safety) uses these lists.
    """

    def __init__(self, graph_def: GraphDef, data: bytes | None = None) -> None:
        self.graph_def = graph_def
        canonical = graph_def.SerializeToString()  # each field once: protobuf's own reading
        self.nbytes = len(canonical if data is None else data)
        bulk = protos.scan_nodes(canonical, len(graph_def.node))
        if data is not None and data != canonical:
            check_same_reading(data, bulk)
        if bulk is None:
            names, ops, inputs = _walk(graph_def)
        else:
            names, ops, inputs = bulk
        self.names, self.ops = names, ops
        joined = _OUTPUT_INDEX.sub("", "\n".join(inputs).replace("^", ""))
        self.consumed = set(joined.split("\n")) if inputs else set()
        self.name_set = set(names)

    def _positions(self, wanted: set[str]) -> list[tuple[int, str]]:
        """(position, name) of the nodes named in `wanted`, in graph order."""
        return _sorted_positions(self.names, wanted)

    def placeholders(self, with_default: bool = False) -> list[NodeDef]:
        """The Placeholder nodes (and PlaceholderWithDefault ones when asked)."""
        wanted = {"Placeholder", "PlaceholderWithDefault"} if with_default else {"Placeholder"}
        return [self.graph_def.node[i] for i, op in enumerate(self.ops) if op in wanted]

    def sinks(self, no_output_ops: frozenset[str]) -> list[str]:
        """Names of the nodes nobody reads that produce a value (the likely outputs).

        Loop and branch plumbing nobody reads (v1 ``Switch``/``Exit``..., the
        ``Identity`` nodes TF adds after ``While``/``If`` or on a ``Switch`` branch) is
        left out: it is no model output, and a dead branch cannot even be fetched.
        """
        skip = no_output_ops | _PLUMBING | {"Const", "Placeholder", "PlaceholderWithDefault"}
        unread = self.name_set - self.consumed
        found = [(i, n) for i, n in self._positions(unread) if self.ops[i] not in skip]
        identities = {i: n for i, n in found if self.ops[i] in ("Identity", "IdentityN")}
        if not identities:
            return [n for _, n in found]
        sources = {i: input_node(self.graph_def.node[i].input[0]) for i in identities
                   if self.graph_def.node[i].input}  # fmt: skip
        wanted = set(sources.values())
        source_ops = {n: op for n, op in zip(self.names, self.ops, strict=True) if n in wanted}
        return [
            n
            for i, n in found
            if i not in sources
            or not (source_ops.get(sources[i]) in _BRANCH_SOURCES or n.startswith(sources[i] + "/"))
        ]


def _sorted_positions(names: list[str], wanted: set[str]) -> list[tuple[int, str]]:
    if len(wanted) <= 16:  # list.index scans at C speed
        return sorted((names.index(n), n) for n in wanted)
    return [(i, n) for i, n in enumerate(names) if n in wanted]


def _walk(graph_def: GraphDef) -> tuple[list[str], list[str], list[str]]:
    names: list[str] = []
    ops: list[str] = []
    inputs: list[str] = []
    for node in graph_def.node:
        names.append(node.name)
        ops.append(node.op)
        inputs.extend(node.input)
    return names, ops, inputs


_LAST: list[GraphIndex] = []


def check_same_reading(data: bytes, bulk: tuple[list[str], list[str], list[str]] | None) -> None:
    """Refuses a binary GraphDef one of whose NodeDefs writes its name or op more than
    once: TensorFlow keeps the last value, a reader of every value sees more.

    Args:
        data: the GraphDef's bytes as given.
        bulk: :func:`protos.scan_nodes` of protobuf's own serialization of them.

    Raises:
        TfportInputError: the first such node, with the values it writes.

    Example:
        >>> check_same_reading(graph_def.SerializeToString(), None)  # doctest: +SKIP
    """
    if bulk is not None:
        raw = protos.scan_nodes(data, len(bulk[0]))
        if raw is not None and raw[0] == bulk[0] and raw[1] == bulk[1]:
            return
    # a node without name or op reads as "" both ways: the caller refuses it by that
    odd = [
        (i, names, ops) for i, names, ops in protos.odd_nodes(data) if max(len(names), len(ops)) > 1
    ]
    if not odd:
        return
    position, names, ops = odd[0]
    parts = [f"its {field} {len(values)} times ({', '.join(values)})"
             for field, values in (("name", names), ("op", ops)) if len(values) > 1]  # fmt: skip
    what = " and ".join(parts)
    runs = f"; TensorFlow would run it as {ops[-1]}" if ops else ""
    raise TfportInputError(
        message(
            f"Node {position} ({names[-1] if names else 'unnamed'!r}) of the GraphDef writes "
            f"{what}{runs}",
            "tfport refuses NodeDefs whose fields are written twice or left out (readers "
            "disagree on what such a node runs); re-export the graph with TensorFlow",
            node=names[-1] if names else "",
            ops=ops,
        )
    )


def index(graph_def: GraphDef, data: bytes | None = None) -> GraphIndex:
    """Returns the GraphIndex of `graph_def` (the last one is cached).

    Args:
        graph_def: the GraphDef message.
        data: its binary serialization when at hand (saves re-serializing it).
    """
    if _LAST and _LAST[0].graph_def is graph_def:
        return _LAST[0]
    _LAST[:] = [GraphIndex(graph_def, data)]
    return _LAST[0]


def node_map(graph_def: GraphDef) -> dict[str, NodeDef]:
    """Returns {node name: NodeDef}."""
    return {node.name: node for node in graph_def.node}


def input_node(tensor: str) -> str:
    """Returns the node name of a NodeDef input: '^a' -> 'a', 'a:1' -> 'a', 'a' -> 'a'.

    Example:
        >>> input_node("^scope/a:1")
        'scope/a'
    """
    name = tensor[1:] if tensor.startswith("^") else tensor
    head, sep, tail = name.rpartition(":")
    return head if sep and tail.isdigit() else name


def tensor_name(name: str) -> str:
    """Returns a full tensor name: 'a' -> 'a:0', 'a:1' -> 'a:1'.

    Example:
        >>> tensor_name("probabilities")
        'probabilities:0'
    """
    head, sep, tail = name.rpartition(":")
    return name if sep and head and tail.isdigit() else name + ":0"


def closure(nodes: Mapping[str, NodeDef], seeds: Iterable[str]) -> set[str]:
    """Returns the names of the seed nodes and all their ancestors (data and control inputs)."""
    seen: set[str] = set()
    stack = [input_node(s) for s in seeds]
    while stack:
        name = stack.pop()
        if name in seen or name not in nodes:
            continue
        seen.add(name)
        stack.extend(input_node(i) for i in nodes[name].input)
    return seen


def shape_of(shape: TensorShapeProto) -> list[int | None] | None:
    """Returns a TensorShapeProto as a list (None for unknown sizes), or None for unknown rank."""
    if shape.unknown_rank:
        return None
    return [d.size if d.size >= 0 else None for d in shape.dim]
