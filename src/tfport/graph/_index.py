"""Small GraphDef helpers: node lookup, tensor-name parsing, ancestor closures, sinks."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any


def node_map(graph_def: Any) -> dict[str, Any]:
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


def closure(nodes: dict[str, Any], seeds: Iterable[str]) -> set[str]:
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


def consumed(graph_def: Any) -> set[str]:
    """Returns the names of the nodes some other node reads."""
    return {input_node(i) for node in graph_def.node for i in node.input}


def shape_of(shape: Any) -> list[int | None] | None:
    """Returns a TensorShapeProto as a list (None for unknown sizes), or None for unknown rank."""
    if shape.unknown_rank:
        return None
    return [d.size if d.size >= 0 else None for d in shape.dim]


def placeholders(graph_def: Any, with_default: bool = False) -> list[Any]:
    """Returns the Placeholder nodes (and PlaceholderWithDefault ones when asked)."""
    ops = {"Placeholder", "PlaceholderWithDefault"} if with_default else {"Placeholder"}
    return [node for node in graph_def.node if node.op in ops]


def sinks(graph_def: Any, no_output_ops: frozenset[str]) -> list[Any]:
    """Returns the nodes nobody reads that produce a value (the likely outputs)."""
    used = consumed(graph_def)
    skip = no_output_ops | {"Const", "Placeholder", "PlaceholderWithDefault"}
    return [node for node in graph_def.node if node.name not in used and node.op not in skip]
