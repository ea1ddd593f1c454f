"""Text-format GraphDefs parsed piece by piece, with the limits checked while parsing.

protobuf's `text_format` is pure Python (about 1 MB/s) and parses a whole file
before anything can be checked, so a crafted 60 MB chain of 100,000 functions
would cost a minute before being refused. Here the text is cut at C speed into
its top-level fields (and the library into its functions); nodes are counted
before they are parsed, and each function's calls extend a running call-depth
bound, so an over-deep chain is refused after the first `max_depth` functions.

Example:
    >>> g = parse_graph_text(b'node { name: "a" op: "Const" }', "g.pbtxt", Limits())
    >>> g.node[0].op
    'Const'
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any

from google.protobuf import text_format

from tfport._common import protos
from tfport._common.errors import TfportInputError, message
from tfport._common.messages import FunctionDef, Message

_TOKENS = re.compile(rb'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*|[{}<>]')
_NAME = re.compile(rb"\s*([A-Za-z_][\w.]*|\[[^\]]*\])")
_BATCH = 4 << 20


@dataclasses.dataclass(frozen=True)
class Limits:
    """Work limits for parsing and scanning graphs; each is raisable by a CLI flag.

    Attributes:
        max_bytes: largest input file (protobuf's own limit is 2 GiB).
        max_nodes: nodes in the graph and all its functions.
        max_depth: function call depth and attribute nesting.
        max_const_bytes: `--verify` refuses to materialise a larger Const.

    Example:
        >>> Limits().max_depth
        1000
    """

    max_bytes: int = 2**31 - 1
    max_nodes: int = 10_000_000
    max_depth: int = 1000
    max_const_bytes: int = 1 << 30


def too_many_nodes(count: int, where: str, limits: Limits) -> TfportInputError:
    """The error for a graph over `limits.max_nodes`."""
    return TfportInputError(
        message(
            f"{where} has {count} or more nodes, over the limit of {limits.max_nodes}",
            "If the graph is real, raise the limit with --max-nodes",
            path=where,
        )
    )


def too_deep(where: str, limits: Limits, function: str) -> TfportInputError:
    """The error for call chains over `limits.max_depth`."""
    return TfportInputError(
        message(
            f"Functions of {where} call each other more than {limits.max_depth} levels deep "
            "(or recursively)",
            "If the graph is real, raise the limit with --max-depth",
            function=function,
        )
    )


def _fields(data: bytes, start: int, end: int, where: str) -> Iterator[tuple[bytes, int, int]]:
    """(field name, start, end) of each top-level field of the message text data[start:end]."""
    depth, begin = 0, start
    for match in _TOKENS.finditer(data, start, end):
        tok = match.group()
        if tok in (b"{", b"<"):
            depth += 1
        elif tok in (b"}", b">"):
            depth -= 1
            if depth < 0:
                raise _syntax(where, "unbalanced '}'")
            if depth == 0:
                name = _NAME.match(data, begin)
                yield (name.group(1) if name else b""), begin, match.end()
                begin = match.end()
    if depth:
        raise _syntax(where, "unbalanced '{'")
    if data[begin:end].strip():
        name = _NAME.match(data, begin)
        yield (name.group(1) if name else b""), begin, end


class _Invalid(Exception):
    """A syntax error in one piece; the whole text is re-parsed for the line:column."""


def _syntax(where: str, what: str) -> _Invalid:
    return _Invalid(what)


def _merge(text: bytes, msg: Message, where: str) -> None:
    try:
        text_format.Merge(text.decode("utf-8"), msg, descriptor_pool=protos.pool())
    except (UnicodeDecodeError, text_format.ParseError, RecursionError, ValueError) as err:
        raise _Invalid(str(err)) from None


class _Depths:
    """Longest known call chain below each function, updated as functions arrive."""

    def __init__(self, where: str, limits: Limits) -> None:
        self.where, self.limits = where, limits
        self.below: dict[str, int] = {}
        self.callers: dict[str, set[str]] = {}
        self.callees: dict[str, set[str]] = {}

    def add(self, name: str, callees: set[str]) -> None:
        self.callees[name] = callees
        for callee in callees:
            self.callers.setdefault(callee, set()).add(name)
        depth = 1 + max((self.below.get(c, 0) for c in callees), default=0)
        self._raise(name, depth)

    def _raise(self, name: str, depth: int) -> None:
        work = [(name, depth)]
        while work:
            fn, depth = work.pop()
            if depth <= self.below.get(fn, 0):
                continue
            if depth > self.limits.max_depth:
                raise too_deep(self.where, self.limits, fn)
            self.below[fn] = depth
            work.extend((caller, depth + 1) for caller in self.callers.get(fn, ()))


def _callees(function: FunctionDef) -> set[str]:
    found = set()
    for node in function.node_def:
        found.add(node.op)
        stack = list(node.attr.values())
        while stack:
            value = stack.pop()
            kind = value.WhichOneof("value")
            funcs = (
                [value.func] if kind == "func" else list(value.list.func) if kind == "list" else []
            )
            for func in funcs:
                found.add(func.name)
                stack.extend(func.attr.values())
    return found


def parse_graph_text(data: bytes, where: str, limits: Limits) -> Any:
    """Parses a text-format GraphDef field by field, refusing over-limit graphs early.

    Raises:
        TfportInputError: a syntax error (with its line:column), more than `max_nodes`
            nodes, call chains deeper than `max_depth`.
    """
    try:
        return _parse_pieces(data, where, limits)
    except _Invalid as err:
        # Errors are rare: parse the whole text once more for TensorFlow-like positions.
        protos.parse_text(data, protos.graph_def_class(), where, "GraphDef")
        raise TfportInputError(
            message(f"{where} is not a valid text-format GraphDef: {err}", None, path=where)
        ) from None


def _parse_pieces(data: bytes, where: str, limits: Limits) -> Any:
    graph = protos.graph_def_class()()
    function_cls = protos.message_class("tensorflow.FunctionDef")
    depths = _Depths(where, limits)
    nodes, batch, pending = 0, [], 0
    for name, start, end in _fields(data, 0, len(data), where):
        if name == b"library":
            graph.library.SetInParent()
            body = data.index(b"{", start) + 1 if b"{" in data[start:end] else end
            for sub, s, e in _fields(data, body, end - 1, where):
                if sub != b"function":
                    _merge(b"library { " + data[s:e] + b" }", graph, where)
                    continue
                function = function_cls()
                inner = data.find(b"{", s, e)
                _merge(data[inner + 1 : e - 1] if inner >= 0 else b"", function, where)
                nodes += len(function.node_def)
                if nodes > limits.max_nodes:
                    raise too_many_nodes(nodes, where, limits)
                depths.add(function.signature.name, _callees(function))
                graph.library.function.append(function)
            continue
        if name == b"node":
            nodes += 1
            if nodes > limits.max_nodes:
                raise too_many_nodes(nodes, where, limits)
        batch.append(data[start:end])
        pending += end - start
        if pending >= _BATCH:
            _merge(b"\n".join(batch), graph, where)
            batch, pending = [], 0
    if batch:
        _merge(b"\n".join(batch), graph, where)
    return graph
