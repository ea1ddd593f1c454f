"""Outputs whose size TensorFlow's shape inference already knows, held to `--max-memory`.

The scan cannot bound ops whose output size is computed at run time (`Fill` of a packed
shape, `AsString`'s width); once the graph is imported, TensorFlow's shape inference has
often computed it. An op whose static output is over the run's memory budget is refused
before anything runs, so such a graph never grows towards the limit; what shape inference
cannot see stays held by the address-space cap (:func:`tfport._common.sandbox.limit_memory`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from tfport._common import sandbox
from tfport._common.errors import TfportInputError, message


class _Shape(Protocol):
    def is_fully_defined(self) -> bool: ...
    def num_elements(self) -> int | None: ...


class _DType(Protocol):
    size: int
    name: str


class _Tensor(Protocol):
    shape: _Shape
    dtype: _DType


class _Op(Protocol):
    name: str
    type: str
    outputs: list[_Tensor]
    inputs: list[_Tensor]

    def get_attr(self, name: str) -> object: ...


def output_bytes(op: _Op) -> int:
    """Bytes of `op`'s outputs whose shapes are fully known (strings: `AsString` counts
    its `width` per element, other strings count nothing); unknown shapes count 0.

    Example:
        >>> import tensorflow as tf  # doctest: +SKIP
        >>> g = tf.Graph()  # doctest: +SKIP
        >>> with g.as_default():  # doctest: +SKIP
        ...     op = tf.fill([1000, 1000], 1.0).op
        >>> output_bytes(op)  # doctest: +SKIP
        4000000
    """
    total = 0
    for out in op.outputs:
        if not out.shape.is_fully_defined():
            continue
        count = out.shape.num_elements() or 0
        if out.dtype.name == "string":
            width = op.get_attr("width") if op.type == "AsString" else 0
            total += count * max(int(width), 0) if isinstance(width, int) else 0
        else:
            total += count * out.dtype.size
    return total


def check_static_sizes(ops: Iterable[_Op], source: str, budget: int | None = None) -> None:
    """Refuses, before the graph runs, an op whose known output is over the memory budget
    (`budget`, else what `--max-memory` allowed this process; no budget: nothing checked).

    Example:
        >>> check_static_sizes([], "model.pb")
    """
    budget = sandbox.memory_budget() if budget is None else budget
    if budget is None:
        return
    for op in ops:
        nbytes = output_bytes(op)
        if nbytes > budget:
            raise TfportInputError(
                message(
                    f"{op.type} node {op.name!r} of {source} would make {nbytes} bytes, over "
                    f"what --max-memory {budget} allows",
                    "Raise --max-memory if the model is real",
                    max_memory=budget,
                )
            )
