"""Partitioned variables (`get_variable(..., partitioner=...)`): the parts `X/part_0`,
`X/part_1`, ... of one variable `X`, read whole (their concatenation on axis 0, as
`tf.compat.v1.layers.dense` reads a partitioned kernel) or row by row (`embedding_lookup`).

A TF1 Saver stores the parts as slices of `X`: the checkpoint holds `X` whole (its rows in
part order), so the Keras layer holds `X` and the report lists each part with its rows.

Example:
    >>> whole_of(graph.get_tensor_by_name("logits/kernel:0"))  # doctest: +SKIP
    'logits/kernel'
"""

from __future__ import annotations

import re

from tfport._common.types import Graph
from tfport.keras._modelfn._static import TfOp, TfTensor, static

_PART = re.compile(r"^(.+)/part_(\d+)$")


def part_of(name: str) -> tuple[str, int] | None:
    """(whole variable, part index) of a part's name `X/part_3`, else None.

    Example:
        >>> part_of("words/table/part_1")
        ('words/table', 1)
    """
    found = _PART.match(name)
    return (found.group(1), int(found.group(2))) if found else None


def handle_of(tensor: TfTensor) -> TfOp | None:
    """The resource variable (VarHandleOp) a tensor is, or is a read of."""
    op = tensor.op
    if op.type == "ReadVariableOp":
        op = op.inputs[0].op
    return op if op.type == "VarHandleOp" else None


def whole_parts(handles: list[TfOp]) -> str | None:
    """X when `handles` are the parts `X/part_0` ... `X/part_k` of X, in order."""
    found = [part_of(h.name) for h in handles]
    if not found or any(f is None for f in found):
        return None
    wholes = {f[0] for f in found if f is not None}
    if len(wholes) != 1 or [f[1] for f in found if f is not None] != list(range(len(found))):
        return None
    return wholes.pop()


def rows_of(handle: TfOp) -> list[int] | None:
    """The static shape of a resource variable, None when not fully known."""
    shape = handle.get_attr("shape")
    dims = [d.size for d in shape.dim] if hasattr(shape, "dim") else list(shape)
    return dims if all(isinstance(d, int) and d >= 0 for d in dims) else None


def whole_of(tensor: TfTensor) -> str | None:
    """X when `tensor` is the partitioned variable X read whole: the `Identity` named X
    of a `ConcatV2` on axis 0 of the reads of `X/part_0` ... `X/part_k`, in order, or of
    the read of `X/part_0` (a variable the partitioner left in one part).

    Example:
        >>> whole_of(graph.get_tensor_by_name("logits/bias:0"))  # doctest: +SKIP
        'logits/bias'
    """
    reads = whole_reads(tensor)
    if reads is None:
        return None
    handles = [handle_of(t) for t in reads]
    if any(t.op.type != "ReadVariableOp" for t in reads) or any(h is None for h in handles):
        return None
    whole = whole_parts([h for h in handles if h is not None])
    return whole if whole == tensor.op.name else None


def whole_reads(tensor: TfTensor) -> list[TfTensor] | None:
    """The tensors an `Identity` reads whole: a `ConcatV2` on axis 0's inputs, or its one
    input; None for any other tensor."""
    op = tensor.op
    if op.type != "Identity":
        return None
    source = op.inputs[0]
    if source.op.type != "ConcatV2":
        return [source]
    *reads, axis = source.op.inputs
    value = static(axis)
    return reads if value is not None and int(value) == 0 else None


def single_part(graph: Graph, variable: str) -> str | None:
    """X when `variable` is `X/part_0` and X has no other part (a partitioner's one
    part, which the checkpoint holds as X)."""
    found = part_of(variable)
    if found is None or found[1] != 0:
        return None
    names = {op.name for op in graph.get_operations() if op.type == "VarHandleOp"}
    return found[0] if f"{found[0]}/part_1" not in names else None


def row_spec(rows: list[int]) -> list[int]:
    """The rows of the whole a part holds, in its row order: `[start, stop]` (a block),
    `[start, stop, step]` (every step-th row, the `mod` strategy), else the row list.

    Example:
        >>> row_spec([1, 4, 7])
        [1, 8, 3]
    """
    if not rows:
        return []
    if len(rows) > 1:
        step = rows[1] - rows[0]
        if step > 0 and rows == list(range(rows[0], rows[-1] + 1, step)):
            return [rows[0], rows[-1] + 1] if step == 1 else [rows[0], rows[-1] + 1, step]
    return [rows[0], rows[0] + 1] if len(rows) == 1 else list(rows)
