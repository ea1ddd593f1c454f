"""TensorFlow graph ops -> Keras 3 source: `keras.ops` calls, static values, source lines.

Each handler gets the op and the Python expressions of its data inputs and returns the
expression of its (first) output, or raises `Refused` with the reason.

Example:
    >>> UNARY["Relu"]
    'ops.relu'
"""

from __future__ import annotations

import linecache
import os
from collections.abc import Callable
from typing import Any, TypeAlias

import numpy as np

TfOp: TypeAlias = Any  # a tf.Operation of the traced graph
TfTensor: TypeAlias = Any
Handler: TypeAlias = Callable[[TfOp, list[str]], str]

_MODEL_FN_CALLER = os.path.join("_engine", "calls.py")  # where tfport calls a model_fn
BATCH = "batch"  # the batch dimension in a static shape value
MAX_INLINE = 1024  # constants up to this many elements are written into model.py

UNARY = {
    "Relu": "ops.relu",
    "Relu6": "ops.relu6",
    "Elu": "ops.elu",
    "Selu": "ops.selu",
    "Sigmoid": "ops.sigmoid",
    "Tanh": "ops.tanh",
    "Softplus": "ops.softplus",
    "Softsign": "ops.soft_sign",
    "Exp": "ops.exp",
    "Log": "ops.log",
    "Sqrt": "ops.sqrt",
    "Rsqrt": "ops.rsqrt",
    "Square": "ops.square",
    "Abs": "ops.abs",
    "Neg": "ops.negative",
    "Erf": "ops.erf",
    "Floor": "ops.floor",
    "Ceil": "ops.ceil",
    "Sign": "ops.sign",
    "Reciprocal": "ops.reciprocal",
    "LogicalNot": "ops.logical_not",
}
BINARY = {
    "AddV2": "ops.add",
    "Add": "ops.add",
    "BiasAdd": "ops.add",
    "Sub": "ops.subtract",
    "Mul": "ops.multiply",
    "RealDiv": "ops.divide",
    "Maximum": "ops.maximum",
    "Minimum": "ops.minimum",
    "Pow": "ops.power",
    "FloorDiv": "ops.floor_divide",
    "Equal": "ops.equal",
    "NotEqual": "ops.not_equal",
    "Greater": "ops.greater",
    "GreaterEqual": "ops.greater_equal",
    "Less": "ops.less",
    "LessEqual": "ops.less_equal",
    "LogicalAnd": "ops.logical_and",
    "LogicalOr": "ops.logical_or",
}
REDUCE = {
    "Mean": "ops.mean",
    "Sum": "ops.sum",
    "Max": "ops.max",
    "Min": "ops.min",
    "Prod": "ops.prod",
}
PASS = ("Identity", "StopGradient", "Snapshot", "PreventGradient")
# activations a Dense layer takes as its `activation` argument (Keras 3 names)
ACTIVATIONS = {
    "Relu": "relu",
    "Relu6": "relu6",
    "Elu": "elu",
    "Selu": "selu",
    "Sigmoid": "sigmoid",
    "Tanh": "tanh",
    "Softplus": "softplus",
    "Softsign": "softsign",
}


class Refused(Exception):
    """An op with no Keras 3 form here (the message says why)."""


def source_line(op: TfOp) -> tuple[str, int, str]:
    """(file, line, code) of the deepest user frame that built `op` (not TF, Keras, tfport).

    Example:
        >>> source_line(graph.get_operation_by_name("hidden/MatMul"))  # doctest: +SKIP
        ('/src/train.py', 12, 'net = tf.compat.v1.layers.dense(features, 16)')
    """
    package = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    stdlib = os.path.dirname(os.__file__)
    frames = list(op.traceback or ())
    calls = [i for i, f in enumerate(frames) if f.filename.endswith(_MODEL_FN_CALLER)]
    frames = frames[calls[-1] + 1 :] if calls else frames  # below the model_fn call only
    for frame in reversed(frames):
        name = frame.filename
        if "site-packages" in name or name.startswith((package, stdlib)) or name.startswith("<"):
            continue
        return name, frame.lineno, _statement(name, frame.lineno)
    return "", 0, ""


def _statement(path: str, line: int, most: int = 6) -> str:
    """The source line, joined with the next ones while its brackets are open."""
    text = linecache.getline(path, line).strip()
    for extra in range(1, most):
        if sum(text.count(c) for c in "([{") <= sum(text.count(c) for c in ")]}"):
            break
        text += " " + linecache.getline(path, line + extra).strip()
    text = " ".join(text.split()).replace("( ", "(")
    return text.replace(", )", ")").replace(" )", ")")


def static(tensor: TfTensor) -> Any:
    """The value of a tensor known when tracing (constants, shapes and their slices), the
    batch dimension as `BATCH`; None when it depends on the data."""
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
    if op.type == "StridedSlice":
        value = static(op.inputs[0])
        if value is None:
            return None
        index = _subscript(op, as_tuple=True)
        return None if index is None else np.asarray(value, dtype=object)[index]
    return None


def _const(op: TfOp) -> np.ndarray:
    from tfport._common.tfenv import import_tf

    return np.asarray(import_tf().make_ndarray(op.get_attr("value")))


def _int_list(tensor: TfTensor, what: str) -> list:
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


def _subscript(op: TfOp, as_tuple: bool = False) -> Any:
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
    return "[" + ", ".join(_index_source(p) for p in parts) + "]"


def _index_source(part: object) -> str:
    if part is Ellipsis:
        return "..."
    if isinstance(part, slice):
        text = ("" if part.start is None else str(part.start)) + ":"
        text += "" if part.stop is None else str(part.stop)
        return text + ("" if part.step is None else f":{part.step}")
    return repr(part)


def _matmul(op: TfOp, args: list[str]) -> str:
    a, b = args
    adj = ("transpose_a", "transpose_b") if op.type == "MatMul" else ("adj_x", "adj_y")
    if op.get_attr(adj[0]):
        a = f"ops.swapaxes({a}, -1, -2)"
    if op.get_attr(adj[1]):
        b = f"ops.swapaxes({b}, -1, -2)"
    return f"ops.matmul({a}, {b})"


def _reshape(op: TfOp, args: list[str]) -> str:
    shape = static(op.inputs[1])
    if shape is None:
        raise Refused("its target shape depends on the data")
    dims = [-1 if d == BATCH else int(d) for d in np.asarray(shape, dtype=object).reshape(-1)]
    if dims.count(-1) > 1:
        raise Refused("its target shape has two unknown dimensions")
    return f"ops.reshape({args[0]}, {tuple(dims)!r})"


def _axis(op: TfOp, index: int) -> int | list:
    values = _int_list(op.inputs[index], "axis")
    return values[0] if np.ndim(static(op.inputs[index])) == 0 else values


def _reduce(op: TfOp, args: list[str]) -> str:
    axis = _axis(op, 1)
    axis_text = repr(tuple(axis)) if isinstance(axis, list) else repr(axis)
    keep = bool(op.get_attr("keep_dims"))
    return f"{REDUCE[op.type]}({args[0]}, axis={axis_text}, keepdims={keep})"


def _argmax(op: TfOp, args: list[str]) -> str:
    fn = "ops.argmax" if op.type == "ArgMax" else "ops.argmin"
    out = op.outputs[0].dtype.name
    return f"ops.cast({fn}({args[0]}, axis={_axis(op, 1)!r}), {out!r})"


def _squeeze(op: TfOp, args: list[str]) -> str:
    dims = list(op.get_attr("squeeze_dims"))
    if not dims:
        raise Refused("a squeeze of every size-1 dimension (name the axis)")
    return f"ops.squeeze({args[0]}, axis={tuple(dims)!r})"


OTHER: dict[str, Handler] = {
    "MatMul": _matmul,
    "BatchMatMulV2": _matmul,
    "Reshape": _reshape,
    "Softmax": lambda op, a: f"ops.softmax({a[0]}, axis=-1)",
    "LogSoftmax": lambda op, a: f"ops.log_softmax({a[0]}, axis=-1)",
    "SquaredDifference": lambda op, a: f"ops.square(ops.subtract({a[0]}, {a[1]}))",
    "Cast": lambda op, a: f"ops.cast({a[0]}, {op.outputs[0].dtype.name!r})",
    "ArgMax": _argmax,
    "ArgMin": _argmax,
    "ExpandDims": lambda op, a: f"ops.expand_dims({a[0]}, {_axis(op, 1)!r})",
    "Squeeze": _squeeze,
    "Pack": lambda op, a: f"ops.stack([{', '.join(a)}], axis={op.get_attr('axis')!r})",
    "Transpose": lambda op, a: f"ops.transpose({a[0]}, {tuple(_int_list(op.inputs[1], 'perm'))!r})",
    "StridedSlice": lambda op, a: f"{a[0]}{_subscript(op)}",
    "Mean": _reduce,
    "Sum": _reduce,
    "Max": _reduce,
    "Min": _reduce,
    "Prod": _reduce,
    "SelectV2": lambda op, a: f"ops.where({a[0]}, {a[1]}, {a[2]})",
}
# inputs that are static arguments (axis, shape, ...), not data, per op type (ConcatV2:
# its last input)
STATIC_INPUTS = {
    "Reshape": (1,),
    "ArgMax": (1,),
    "ArgMin": (1,),
    "ExpandDims": (1,),
    "Transpose": (1,),
    "StridedSlice": (1, 2, 3),
    "Mean": (1,),
    "Sum": (1,),
    "Max": (1,),
    "Min": (1,),
    "Prod": (1,),
}


def data_inputs(op: TfOp) -> list[TfTensor]:
    """The op's inputs that carry data (not its axis, shape or slice bounds)."""
    inputs = list(op.inputs)
    if op.type == "ConcatV2":
        return inputs[:-1]
    skip = STATIC_INPUTS.get(op.type, ())
    return [t for i, t in enumerate(inputs) if i not in skip]


def expression(op: TfOp, args: list[str]) -> tuple[str, str]:
    """(source of the op's output, the `keras.ops` call it maps to) or Refused.

    Example:
        >>> expression(relu_op, ["x"])  # doctest: +SKIP
        ('ops.relu(x)', 'ops.relu')
    """
    kind = op.type
    if kind in PASS:  # also dropout in PREDICT mode (an Identity)
        return args[0], "identity (nothing written)"
    if len(op.outputs) != 1:
        raise Refused(f"{kind} has {len(op.outputs)} outputs")
    if kind in UNARY:
        return f"{UNARY[kind]}({args[0]})", UNARY[kind]
    if kind in BINARY:
        return f"{BINARY[kind]}({args[0]}, {args[1]})", BINARY[kind]
    if kind == "ConcatV2":
        axis = _axis(op, len(op.inputs) - 1)
        return f"ops.concatenate([{', '.join(args)}], axis={axis!r})", "ops.concatenate"
    if kind in OTHER:
        text = OTHER[kind](op, args)
        return text, text.split("(")[0] if text.startswith("ops.") else "getitem"
    raise Refused(f"TensorFlow op {kind} has no keras.ops form in tfport's table")
