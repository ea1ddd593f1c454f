"""`inspect` of a binary GraphDef in bounded memory: the file is read in blocks, never whole.

A parsed GraphDef costs about nine times its wire size in protobuf memory (upb keeps
every NodeDef and its attr map as objects), and Python lists of every name, op and
input cost another three. `summarize` instead walks the top-level fields of the file
one block at a time: each block of NodeDefs is decoded (all fields, so a corrupt node
is still noticed) and reduced at once to what the report needs, then dropped:

- node count and op histogram;
- the block's names as one string, the names no node of the block reads, and the
  names it reads from other blocks (resolved at the end: outputs are the nodes nobody
  reads, a name read but never defined is a dangling input);
- an op per node (interned: one pointer each), the first input of Identity nodes;
- a small "sparse" GraphDef holding the versions and only the nodes the
  report and the safety scan look into (placeholders, function callers, unsafe ops).

Whenever the stream is not the plain case (a function library, unknown top-level
fields, a truncated or corrupt file, nodes without name or op, dangling inputs, too
many nodes), `summarize` returns None and the caller takes the full-parse
path, which gives the exact report or error message it always gave.
"""

from __future__ import annotations

import collections
import dataclasses
import itertools
import operator
import os
import re
import sys
from collections.abc import Iterator
from typing import Any, BinaryIO

from google.protobuf import message as pb_message

from tfport._common import protos
from tfport._common.messages import LiteNodes
from tfport.graph import _index, _ops, _safety
from tfport.graph._textstream import Limits

BLOCK = 1 << 20
_NODE_TAG = 0x0A  # field 1 (node), length-delimited
# GraphDef's other fields: library=2, version=3 (varint), versions=4, debug_info=5.
_OTHER_FIELDS = {(3, 0), (4, 2), (5, 2)}
_OUTPUT_INDEX = re.compile(r":[^\n]*")
_IDENTITY = frozenset({"Identity", "IdentityN"})
_KEEP = _safety.FUNC_ATTR_OPS | {"Placeholder", "PlaceholderWithDefault"}
_intern = sys.intern


class _Fallback(Exception):
    """The stream is not the plain case: use the full parse."""


@dataclasses.dataclass
class Summary:
    """What `inspect` reports about a binary GraphDef, gathered block by block.

    Attributes:
        nodes: node count.
        nbytes: file size.
        histogram: op -> count, in first-seen order.
        sparse: a GraphDef with versions and only the nodes the report looks into.
        sinks: names of the nodes nobody reads that produce a value, in graph order.
    """

    nodes: int
    nbytes: int
    histogram: collections.Counter[str]
    sparse: Any
    sinks: list[str]


def summarize(path: str, limits: Limits) -> Summary | None:
    """Summarizes the binary GraphDef at `path`, or returns None (use the full parse).

    Example:
        >>> summarize("frozen.pb", Limits()).nodes  # doctest: +SKIP
        9
    """
    try:
        size = os.path.getsize(path)
        if size > limits.max_bytes or size == 0:
            return None
        with open(path, "rb") as f:
            return _Reducer(limits).run(f, size)
    except (_Fallback, OSError, pb_message.DecodeError, ValueError, RecursionError):
        return None


class _Reducer:
    """Reduces each block of nodes as it comes; no table of all the names is ever built.

    Inputs are resolved within their block first (graphs read mostly nearby nodes);
    names read across blocks are collected in `remote` and checked at the end against
    the compact per-block name lists.
    """

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.blobs: list[str] = []  # each block's names, "\n"-joined
        self.ops: list[str] = []  # interned: one pointer per node
        self.histogram: collections.Counter[str] = collections.Counter()
        self.unread: list[tuple[int, str]] = []  # (position, name) not read in its block
        self.remote: set[str] = set()  # names read from another block
        self.first_input: dict[int, str] = {}  # Identity position -> its first input
        self.sparse = protos.graph_def_class()()
        self.rest = bytearray()  # the non-node fields, parsed at the end in file order

    def run(self, f: BinaryIO, size: int) -> Summary:
        lite, full = protos._lite_graph_class(), protos.graph_def_class()
        for region in _regions(f, self.rest):
            parsed = full.FromString(region)  # validates every field of every node
            canonical = parsed.SerializeToString()  # each field once, as protobuf reads it
            merged = lite.FromString(canonical).node
            if bytes(region) != canonical:
                as_given = lite.FromString(region).node
                if list(as_given.op) != list(merged.op) or list(as_given.name) != list(merged.name):
                    raise _Fallback  # a node writes its op or name twice: the full path refuses
            self._reduce(memoryview(canonical), len(parsed.node), merged)
            if len(self.ops) > self.limits.max_nodes:
                raise _Fallback
        self.sparse.MergeFromString(bytes(self.rest))
        if not self.ops or self.sparse.library.function:
            raise _Fallback
        if self.remote:
            found: set[str] = set()
            for blob in self.blobs:
                found.update(self.remote.intersection(blob.split("\n")))
            if len(found) != len(self.remote):
                raise _Fallback  # dangling: the full path names the node
        hist = self.histogram
        return Summary(len(self.ops), size, hist, self.sparse, self._sinks())

    def _reduce(self, region: memoryview, count: int, merged: LiteNodes) -> None:
        names, ops = list(merged.name), list(map(_intern, merged.op))
        blob = "\n".join(names)
        if len(names) != count or len(ops) != count or blob.count("\n") != count - 1:
            raise _Fallback  # a node without name or op, or a name with a newline
        base = len(self.ops)
        self.blobs.append(blob)
        self.ops.extend(ops)
        self.histogram.update(ops)
        kinds = set(ops)
        if kinds - _ops.SAFE_OPS or kinds & (_KEEP | _IDENTITY):
            self._keep(region, base, ops)
        inputs = merged.input
        text = _OUTPUT_INDEX.sub("", "\n".join(inputs).replace("^", "")) if inputs else ""
        consumed = set(text.split("\n")) if inputs else set()
        unread = itertools.compress(
            zip(itertools.count(base), names), map(operator.not_, map(consumed.__contains__, names))
        )
        self.unread.extend(unread)
        if consumed:
            self.remote |= consumed.difference(names)

    def _keep(self, region: memoryview, base: int, ops: list[str]) -> None:
        """Copies the nodes the report looks into to `sparse`; Identity first inputs."""
        raw = protos.raw_graph_class().FromString(region).node
        for j, op in enumerate(ops):
            if op in _IDENTITY or op in _KEEP or op not in _ops.SAFE_OPS:
                node = self.sparse.node.add()
                node.MergeFromString(raw[j])
                if op in _IDENTITY:
                    if node.input:
                        self.first_input[base + j] = node.input[0]
                    if op not in _KEEP:
                        del self.sparse.node[-1]

    def _sinks(self) -> list[str]:
        """Like :meth:`GraphIndex.sinks`: nodes nobody reads that produce a value."""
        from tfport.graph._index import _BRANCH_SOURCES, _PLUMBING

        skip = _ops.NO_OUTPUT_OPS | _PLUMBING | {"Const", "Placeholder", "PlaceholderWithDefault"}
        ops, remote = self.ops, self.remote
        unread = [(i, n) for i, n in self.unread if n not in remote]
        if len({n for _, n in unread}) != len(unread):
            raise _Fallback  # an unread name defined twice: the full path decides
        found = [(i, n) for i, n in unread if ops[i] not in skip]
        sources = {
            i: _index.input_node(self.first_input[i])
            for i, _ in found
            if ops[i] in _IDENTITY and i in self.first_input
        }
        if not sources:
            return [n for _, n in found]
        wanted = set(sources.values())
        source_ops: dict[str, str] = {}
        base = 0
        for blob in self.blobs:
            names = blob.split("\n")
            if not wanted.isdisjoint(names):
                source_ops.update((n, ops[base + j]) for j, n in enumerate(names) if n in wanted)
            base += len(names)
        return [
            n
            for i, n in found
            if i not in sources
            or not (source_ops.get(sources[i]) in _BRANCH_SOURCES or n.startswith(sources[i] + "/"))
        ]


def _regions(f: BinaryIO, rest: bytearray) -> Iterator[memoryview]:
    """Yields runs of whole fields from the file, about a block at a time.

    Non-node fields are also copied to `rest`. Raises _Fallback on anything but a
    well-framed GraphDef (unknown fields, a truncated last field).
    """
    buf, want = b"", BLOCK
    while True:
        more = f.read(want)
        buf = buf + more if buf else more
        pos, n, need = 0, len(buf), 0
        safe, tag = n - 130, _NODE_TAG  # a node under 128 bytes from before `safe` fits
        while pos < n:
            while pos < safe:  # the common case, kept to a few bytecodes per node
                length = buf[pos + 1]
                if length >= 0x80 or buf[pos] != tag:
                    break
                pos += 2 + length
            if pos >= n:
                break
            if buf[pos] == _NODE_TAG:
                length, p = _varint(buf, pos + 1, n)
                end = p + length
                if p < 0 or end > n:
                    need = 16 if p < 0 else end - n
                    break
                pos = end
                continue
            field_end = _other_field(buf, pos, n, rest)
            if field_end < 0:
                need = -field_end
                break
            pos = field_end
        if pos:
            with memoryview(buf) as view:
                yield view[:pos]
        if not more:
            if pos < n:
                raise _Fallback  # truncated
            return
        buf = buf[pos:]
        want = max(BLOCK, need)


def _varint(buf: bytes | memoryview, pos: int, n: int) -> tuple[int, int]:
    """(value, position after it); position -1 when the bytes end first."""
    value, shift = 0, 0
    while pos < n:
        byte = buf[pos]
        value |= (byte & 0x7F) << shift
        pos += 1
        if byte < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            raise _Fallback
    return 0, -1


def _other_field(buf: bytes, pos: int, n: int, rest: bytearray) -> int:
    """Copies the non-node field at `pos` to `rest`; returns its end, or -(bytes missing)."""
    key, p = _varint(buf, pos, n)
    if p < 0:
        return -16
    field = (key >> 3, key & 7)
    if field not in _OTHER_FIELDS:
        raise _Fallback  # the library, or a field a GraphDef does not have
    value, end = _varint(buf, p, n)
    if end < 0:
        return -16
    if field[1] == 2:
        end += value
        if end > n:
            return -(end - n)
    rest += buf[pos:end]
    return end
