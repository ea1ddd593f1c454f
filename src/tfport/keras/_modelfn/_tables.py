"""Partitioned embedding tables and kernels -> one Keras weight.

`tf.nn.embedding_lookup(parts, ids)` over a partitioned variable routes each id to a part
(`DynamicPartition`), gathers there and stitches the rows back (`ParallelDynamicStitch`),
then reshapes them to `ids.shape + [dim]`. That region is one `layers.Embedding` whose
weight is the parts merged in id order: which part and row each id reads is computed by
running the graph's own routing ops on every id (so the `mod` and `div` strategies, and
any part sizes, give the order TensorFlow uses). A partitioned variable read whole (a
partitioned `dense` kernel: the concatenation of its parts) is that variable's checkpoint
value, read as any variable is (`_parts.whole_of`).

Example:
    >>> partitioned_lookup(walk, graph.get_operation_by_name("embedding_lookup"))  # doctest: +SKIP
    True
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfport.keras._modelfn._layers import emit
from tfport.keras._modelfn._ops import TfOp, TfTensor, line_of
from tfport.keras._modelfn._parts import (
    handle_of,
    row_spec,
    rows_of,
    whole_of,
    whole_parts,
    whole_reads,
)
from tfport.keras._modelfn._walk import Walk

# the ops of `embedding_lookup` over several parts, both strategies (max_norm is not here)
_LOOKUP_OPS = {
    "Reshape", "Size", "Range", "FloorMod", "FloorDiv", "AddV2", "Sub", "Maximum", "Less",
    "Select", "SelectV2", "Cast", "DynamicPartition", "ResourceGather", "GatherV2",
    "ParallelDynamicStitch", "DynamicStitch", "Shape", "ConcatV2", "Identity", "StridedSlice",
}  # fmt: skip


def _region(last: TfOp, start: TfTensor, handles: set[str]) -> dict[str, TfOp] | None:
    """The ops computing `last` from `start` and the part variables; None when anything
    else feeds them (another input, another variable)."""
    found: dict[str, TfOp] = {}
    stack = [last]
    while stack:
        op = stack.pop()
        if op.name in found or op.type == "Const" or op.name in handles:
            continue
        if op.type == "ReadVariableOp" and op.inputs[0].op.name in handles:
            continue
        if op.type not in _LOOKUP_OPS:
            return None
        found[op.name] = op
        stack.extend(t.op for t in op.inputs if t.name != start.name)
    return found


def _read_outside(walk: Walk, region: dict[str, TfOp], last: TfOp) -> bool:
    for op in region.values():
        if op.name != last.name and any(
            r.name not in region for t in op.outputs for r in walk.readers(t)
        ):
            return True
    return False


@dataclasses.dataclass
class Routing:
    """Where `embedding_lookup` over the parts of `whole` reads each id: `order[i]` is the
    row of the whole (the parts concatenated, as the checkpoint holds it) that id i reads."""

    whole: str
    handles: list[TfOp]  # the parts, in order
    sizes: list[int]  # their rows
    dim: int
    flat: TfTensor  # the ids, flattened
    order: np.ndarray

    def add_parts(self, walk: Walk) -> None:
        """Records each part with the ids whose rows it holds, in its row order."""
        offsets = np.cumsum([0, *self.sizes])
        for i, handle in enumerate(self.handles):
            held = np.argsort(self.order)[offsets[i] : offsets[i + 1]].tolist()
            walk.plan.add_part(handle.name, self.whole, row_spec(held), [self.sizes[i], self.dim])

    @property
    def in_order(self) -> bool:
        """Whether id i reads row i of the whole (the `div` strategy)."""
        return bool((self.order == np.arange(len(self.order))).all())


def routing(walk: Walk, stitch: TfOp) -> Routing | None:
    """How the lookup ending at `stitch` (ParallelDynamicStitch) routes ids to the parts
    of one partitioned variable: the graph's own routing ops run on every id."""
    from tfport._common.tfenv import import_tf

    n = len(stitch.inputs) // 2
    positions, gathers = stitch.inputs[:n], [t.op for t in stitch.inputs[n:]]
    if n < 2 or any(g.type not in ("ResourceGather", "GatherV2") for g in gathers):
        return None
    handles = [handle_of(g.inputs[0]) for g in gathers]
    parts = [h for h in handles if h is not None]
    whole = whole_parts(parts) if len(parts) == n else None
    shapes = [rows_of(h) for h in parts]
    route = gathers[0].inputs[1].op
    if whole is None or any(s is None or len(s) != 2 for s in shapes):
        return None
    if route.type != "DynamicPartition" or positions[0].op.type != "DynamicPartition":
        return None
    flat = _flat_ids(positions[0].op)
    if flat is None or not flat.dtype.is_integer:
        return None
    sizes = [int(s[0]) for s in shapes if s is not None]
    tf = import_tf()
    ids = np.arange(sum(sizes), dtype=flat.dtype.as_numpy_dtype)
    try:
        with tf.compat.v1.Session(graph=walk.traced.graph) as session:
            row, part = session.run([route.inputs[0], route.inputs[1]], {flat: ids})
    except (tf.errors.OpError, ValueError, TypeError):
        return None  # the routing depends on more than the ids (variable shapes)
    part, row = np.asarray(part, np.int64), np.asarray(row, np.int64)
    if part.min() < 0 or part.max() >= n or (row < 0).any() or (row >= np.take(sizes, part)).any():
        return None
    order = np.cumsum([0, *sizes])[part] + row  # the whole's row each id reads
    if sorted(order.tolist()) != list(range(len(ids))):
        return None
    return Routing(whole, parts, sizes, int(shapes[0][1]) if shapes[0] else 0, flat, order)


def partitioned_lookup(walk: Walk, stitch: TfOp) -> bool:
    """One Embedding for `embedding_lookup` over the parts of a partitioned variable;
    another lookup's stitch (positions from a DynamicPartition) is refused here, saying
    what it is (the ops before it would be refused first, for less clear reasons)."""
    positions = stitch.inputs[: len(stitch.inputs) // 2]
    if not positions or any(t.op.type != "DynamicPartition" for t in positions):
        return False  # not a lookup: refused as an op with no Keras form
    found = routing(walk, stitch)
    last = walk.only_user(stitch.outputs[0], "Reshape")
    region = None
    if found is not None and last is not None and found.flat.op.type == "Reshape":
        ids = found.flat.op.inputs[0]
        region = _region(last, ids, {h.name for h in found.handles})
    if found is None or last is None or region is None or _read_outside(walk, region, last):
        raise walk.refuse(
            stitch,
            "an embedding_lookup over several tables that is not one partitioned variable "
            "looked up as is (its parts in order, static shapes, rows not transformed by "
            "max_norm, the result read only reshaped)",
        )
    ops = [op for op in walk.traced.graph.get_operations() if op.name in region]
    size = f"{len(found.order)}, {found.dim}"

    def write() -> None:
        weights = [(found.whole, "embeddings")]
        layer = emit(walk, "Embedding", size, ids, weights, ops, last.outputs[0])
        if not found.in_order:
            walk.plan.reorder_rows(layer, found.order.tolist())

    found.add_parts(walk)
    walk.defer(ops, write)
    return True


def _flat_ids(positions: TfOp) -> TfTensor | None:
    """The flat ids of a lookup from its positions' partitioning: `range(size(flat))`."""
    counter = positions.inputs[0].op
    if counter.type != "Range" or counter.inputs[1].op.type != "Size":
        return None
    return counter.inputs[1].op.inputs[0]


def partitioned_whole(walk: Walk, op: TfOp) -> bool:
    """A partitioned variable read whole (its parts concatenated on axis 0, or its one
    part, then the `Identity` named after it): not written; its readers read the
    variable's value. Matched at the ConcatV2 or at the Identity of one part."""
    identity = op
    if op.type == "ConcatV2":
        readers = walk.readers(op.outputs[0])
        identity = readers[0] if len(readers) == 1 else op
    whole = whole_of(identity.outputs[0])
    reads = whole_reads(identity.outputs[0])
    if whole is None or reads is None:
        return False
    offset = 0
    for t in reads:
        handle = handle_of(t)
        shape = None if handle is None else rows_of(handle)
        if handle is None or not shape:
            return False
        rows = list(range(offset, offset + shape[0]))
        walk.plan.add_part(handle.name, whole, row_spec(rows), list(shape))
        offset += shape[0]
    line = line_of(identity)  # no comment line: nothing is written here
    for done in {op.name: op, identity.name: identity}.values():
        walk.done.add(done.name)
        walk.record(done, f"the partitioned variable {whole!r} read whole", line)
    return True


REGIONS = {
    "ParallelDynamicStitch": partitioned_lookup,
    "ConcatV2": partitioned_whole,
    "Identity": partitioned_whole,
}
