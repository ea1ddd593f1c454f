"""Values known when tracing a model_fn's graph: constants, shapes and what is computed
from them (the batch dimension as `BATCH`), as numpy values and as model.py source.

Example:
    >>> static(graph.get_tensor_by_name("Reshape/shape:0"))  # doctest: +SKIP
    array(['batch', 8], dtype=object)
"""

from __future__ import annotations

from typing import Any, TypeAlias

import numpy as np

TfOp: TypeAlias = Any  # a tf.Operation of the traced graph
TfTensor: TypeAlias = Any

BATCH = "batch"  # the batch dimension in a static shape value
MAX_INLINE = 1024  # constants up to this many elements are written into model.py
PASS = ("Identity", "StopGradient", "Snapshot", "PreventGradient")
# scalar arithmetic on shape values (BERT's `batch_size * seq_length`)
_ARITHMETIC = {
    "Mul": lambda a, b: a * b,
    "AddV2": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "FloorDiv": lambda a, b: a // b,
}


class Refused(Exception):
    """An op with no Keras 3 form here (the message says why)."""


def static(tensor: TfTensor) -> Any:
    """The value of a tensor known when tracing (constants, shapes, their slices and scalar
    arithmetic), the batch dimension (or a product with it) as `BATCH`; None when it
    depends on the data."""
    op = tensor.op
    if op.type == "Const":
        return _const(op)
    if op.type == "Shape":
        dims = op.inputs[0].shape.as_list()
        if any(d is None for d in dims[1:]):
            return None
        return np.array([BATCH, *dims[1:]], dtype=object)
    if op.type in PASS or op.type == "Cast":
        return static(op.inputs[0])
    if op.type == "Pack":
        parts = [static(t) for t in op.inputs]
        return None if any(p is None for p in parts) else np.array(parts, dtype=object)
    if op.type == "ConcatV2":
        parts = [static(t) for t in op.inputs[:-1]]
        if any(p is None for p in parts):
            return None
        return np.concatenate([np.asarray(p, dtype=object).reshape(-1) for p in parts])
    if op.type in _ARITHMETIC and len(op.inputs) == 2:
        parts = [static(t) for t in op.inputs]
        if any(p is None or np.ndim(p) != 0 for p in parts):
            return None
        if any(has_batch(p) for p in parts):
            return np.array(BATCH, dtype=object)  # batch * 8: known when the batch is
        return np.asarray(_ARITHMETIC[op.type](*parts))
    if op.type == "Range":
        bounds = [static(t) for t in op.inputs]
        if any(b is None or has_batch(b) for b in bounds):
            return None
        return np.arange(*bounds, dtype=op.outputs[0].dtype.as_numpy_dtype)
    if op.type == "StridedSlice":
        value = static(op.inputs[0])
        if value is None:
            return None
        index = subscript(op, as_tuple=True)
        return None if index is None else np.asarray(value, dtype=object)[index]
    return None


def _const(op: TfOp) -> np.ndarray:
    from tfport._common.tfenv import import_tf

    return np.asarray(import_tf().make_ndarray(op.get_attr("value")))


def int_list(tensor: TfTensor, what: str) -> list:
    value = static(tensor)
    if value is None or any(v == BATCH for v in np.asarray(value, dtype=object).reshape(-1)):
        raise Refused(f"its {what} depends on the data (only constants convert)")
    return [int(v) for v in np.asarray(value).reshape(-1)]


def literal(tensor: TfTensor) -> str:
    """A constant as source: a Python number, or `np.array(...)` when small enough."""
    value = static(tensor)
    if value is None:
        raise Refused("a value computed from the data where a constant is expected")
    value = np.asarray(value)
    if value.dtype == object:
        if any(v == BATCH for v in value.reshape(-1)):
            raise Refused("a value built from the batch size")
        value = value.astype(tensor.dtype.as_numpy_dtype)
    if value.ndim == 0:
        item = value.item()
        return repr(item.decode() if isinstance(item, bytes) else item)
    if value.size > MAX_INLINE:
        raise Refused(f"a constant of {value.size} elements (over {MAX_INLINE})")
    return f"np.array({value.tolist()!r}, dtype={value.dtype.name!r})"


def _mask(op: TfOp, name: str, i: int) -> bool:
    return bool(op.get_attr(name) & (1 << i))


def subscript(op: TfOp, as_tuple: bool = False) -> Any:
    """A StridedSlice's index: Python source (`[:, None]`) or, as_tuple, the tuple."""
    begin, end, strides = (static(t) for t in op.inputs[1:4])
    if begin is None or end is None or strides is None:
        if as_tuple:
            return None
        raise Refused("its slice bounds depend on the data")
    parts: list = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides, strict=True)):
        if _mask(op, "ellipsis_mask", i):
            parts.append(Ellipsis)
        elif _mask(op, "new_axis_mask", i):
            parts.append(None)
        elif _mask(op, "shrink_axis_mask", i):
            parts.append(int(b))
        else:
            start = None if _mask(op, "begin_mask", i) else int(b)
            stop = None if _mask(op, "end_mask", i) else int(e)
            parts.append(slice(start, stop, None if int(s) == 1 else int(s)))
    if as_tuple:
        return tuple(parts)
    if None not in parts:
        return _brackets(parts)
    # a new axis (`x[None]`): Keras tensors take no None index; ops.expand_dims after
    if Ellipsis in parts:
        raise Refused("a new axis beside an ellipsis in one slice")
    kept = [p for p in parts if p is not None]
    axes, out = [], 0
    for part in parts:
        if part is None or isinstance(part, slice):
            if part is None:
                axes.append(out)
            out += 1
    return _brackets(kept), axes


def _brackets(parts: list) -> str:
    """`[...]` of an index; a lone slice as a tuple (`[1:,]`: Keras tensors take no bare
    slice), nothing for slices that keep everything."""
    if all(p == slice(None) for p in parts):
        return ""
    text = ", ".join(_index_source(p) for p in parts)
    return f"[{text},]" if len(parts) == 1 and isinstance(parts[0], slice) else f"[{text}]"


def _index_source(part: object) -> str:
    if part is Ellipsis:
        return "..."
    if isinstance(part, slice):
        text = ("" if part.start is None else str(part.start)) + ":"
        text += "" if part.stop is None else str(part.stop)
        return text + ("" if part.step is None else f":{part.step}")
    return repr(part)


def has_batch(value: object) -> bool:
    """Whether a static value holds the batch size (`BATCH`), alone or in an array."""
    return any(isinstance(v, str) for v in np.asarray(value, dtype=object).reshape(-1))


def batch_source(tensor: TfTensor) -> TfTensor | None:
    """The tensor whose batch size `tensor` is (`tf.shape(t)[0]`), if it is one."""
    op = tensor.op
    if op.type != "StridedSlice" or op.inputs[0].op.type != "Shape":
        return None
    index = subscript(op, as_tuple=True)
    return op.inputs[0].op.inputs[0] if index == (0,) else None
