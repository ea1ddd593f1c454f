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
from typing import TypeAlias

import numpy as np

from tfport.keras._modelfn._static import BATCH as BATCH  # re-exported: _ops is the table
from tfport.keras._modelfn._static import MAX_INLINE as MAX_INLINE
from tfport.keras._modelfn._static import PASS as PASS
from tfport.keras._modelfn._static import Refused as Refused
from tfport.keras._modelfn._static import TfOp as TfOp
from tfport.keras._modelfn._static import TfTensor as TfTensor
from tfport.keras._modelfn._static import batch_source, has_batch, int_list, static, subscript
from tfport.keras._modelfn._static import literal as literal

Handler: TypeAlias = Callable[[TfOp, list[str]], str]

_MODEL_FN_CALLER = os.path.join("_engine", "calls.py")  # where tfport calls a model_fn

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
    "ZerosLike": "ops.zeros_like",
    "OnesLike": "ops.ones_like",
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


def line_of(op: TfOp) -> str:
    """`file:line` of the model_fn line that built `op`, '' when no user code did.

    Example:
        >>> line_of(graph.get_operation_by_name("hidden/MatMul"))  # doctest: +SKIP
        'train.py:12'
    """
    path, line, _ = source_line(op)
    return f"{os.path.basename(path)}:{line}" if path else ""


class Comments:
    """Writes `# file:line: code` into `lines` for an op whose model_fn line differs from
    the last one written; calling it returns the op's `file:line` (report.json's `line`).

    Example:
        >>> comment = Comments(lines)  # doctest: +SKIP
        >>> comment(op)  # doctest: +SKIP
        'train.py:12'
    """

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.where = ("", 0)

    def __call__(self, op: TfOp) -> str:
        path, line, code = source_line(op)
        if path and (path, line) != self.where:
            self.where = (path, line)
            self.lines.append(f"# {os.path.basename(path)}:{line}: {code}")
        return f"{os.path.basename(path)}:{line}" if path else ""


def _statement(path: str, line: int, most: int = 6) -> str:
    """The source line, joined with the next ones while its brackets are open."""
    text = linecache.getline(path, line).strip()
    for extra in range(1, most):
        if sum(text.count(c) for c in "([{") <= sum(text.count(c) for c in ")]}"):
            break
        text += " " + linecache.getline(path, line + extra).strip()
    text = " ".join(text.split()).replace("( ", "(")
    return text.replace(", )", ")").replace(" )", ")")


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
    values = int_list(op.inputs[index], "axis")
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


def _expand_dims(op: TfOp, args: list[str]) -> str:
    axis = _axis(op, 1)
    if isinstance(axis, list) and len(axis) != 1:
        raise Refused("an expand_dims of several axes")
    return f"ops.expand_dims({args[0]}, {axis[0] if isinstance(axis, list) else axis!r})"


def _one_hot(op: TfOp, args: list[str]) -> str:
    depth = int_list(op.inputs[1], "depth")[0]
    on, off = (static(t) for t in op.inputs[2:4])
    if on is None or off is None or float(on) != 1 or float(off) != 0:
        raise Refused("a one-hot with values other than 1 and 0 (multiply it instead)")
    dtype = op.outputs[0].dtype.name
    return f"ops.one_hot({args[0]}, {depth}, axis={op.get_attr('axis')}, dtype={dtype!r})"


def _slice(op: TfOp, args: list[str]) -> str:
    begin, size = int_list(op.inputs[1], "begin"), int_list(op.inputs[2], "size")
    parts = [f"{b}:" + ("" if n == -1 else str(b + n)) for b, n in zip(begin, size)]
    return f"{args[0]}[{', '.join(parts)}]"


def _fill(op: TfOp, args: list[str]) -> str:
    """`tf.fill`/`tf.ones` as `np.full`; a batch-sized first dimension is written as 1
    when every reader broadcasts it against a batch-sized input (BERT's attention mask)."""
    shape = static(op.inputs[0])
    dims = None if shape is None else list(np.asarray(shape, dtype=object).reshape(-1))
    if dims is None or any(d == BATCH for d in dims[1:]):
        raise Refused("its shape depends on the data")
    out = op.outputs[0]
    if dims and dims[0] == BATCH:
        readers = out.consumers()
        if not readers or not all(_broadcasts_batch(reader, out) for reader in readers):
            raise Refused("its shape holds the batch size, and a reader does not broadcast it")
        dims[0] = 1
    shape_text = repr(tuple(int(d) for d in dims))
    return f"np.full({shape_text}, {args[0]}, dtype={out.dtype.name!r})"


def _broadcasts_batch(reader: TfOp, tensor: TfTensor) -> bool:
    """Whether `reader` is elementwise with an input of `tensor`'s rank and batch size."""
    others = [t for t in reader.inputs if t.name != tensor.name]
    if reader.type not in BINARY or len(others) != 1 or others[0].shape.rank != tensor.shape.rank:
        return False
    return bool(others[0].shape.rank) and others[0].shape.as_list()[0] is None


def _range(op: TfOp, args: list[str]) -> str:
    """`tf.range` with constant bounds as a constant; `tf.range(start, batch_size, delta)`
    as a cumulative sum of ones over the batch of the tensor it was measured on."""
    if not args:
        return literal(op.outputs[0])
    start, delta = static(op.inputs[0]), static(op.inputs[2])
    if start is None or delta is None or has_batch(start) or has_batch(delta):
        raise Refused("its start or step depends on the data")
    source = batch_source(op.inputs[1])
    rank = source.shape.rank if source is not None else None
    if not rank:
        raise Refused("its limit is the batch size of a tensor of unknown rank")
    dtype = op.outputs[0].dtype.name
    column = args[0] + "[:" + ", 0" * (rank - 1) + "]"
    ones = f"ops.ones_like({column}, dtype={dtype!r})"
    text = f"ops.subtract(ops.cumsum({ones}, axis=0), 1)"
    if delta.item() != 1:
        text = f"ops.multiply({text}, {delta.item()!r})"
    return text if start.item() == 0 else f"ops.add({text}, {start.item()!r})"


def _gather(op: TfOp, args: list[str]) -> str:
    if op.get_attr("batch_dims") != 0:
        raise Refused("a gather with batch_dims")
    return f"ops.take({args[0]}, {args[1]}, axis={_axis(op, 2)!r})"


def _gather_nd(op: TfOp, args: list[str]) -> str:
    """`tf.gather_nd` as `ops.take` of the params flattened over the indexed dimensions, at
    the flat index `i0 * stride0 + i1 * stride1 + ...` (their sizes past the first known)."""
    params, indices = op.inputs[:2]
    depth = indices.shape[-1] if indices.shape.rank else None
    dims = params.shape.as_list() if params.shape.rank else None
    if depth is None or dims is None or None in dims[1:]:
        raise Refused("its index depth or the sizes it indexes are not known")
    flat = f"{args[1]}[..., {depth - 1}]"
    stride = 1
    for axis in range(depth - 2, -1, -1):
        stride *= int(dims[axis + 1])
        flat = f"ops.add(ops.multiply({args[1]}[..., {axis}], {stride}), {flat})"
    rows = f"ops.reshape({args[0]}, {(-1, *dims[depth:])!r})"
    return f"ops.take({rows}, {flat}, axis=0)"


def _einsum(op: TfOp, args: list[str]) -> str:
    equation = op.get_attr("equation")
    equation = equation.decode() if isinstance(equation, bytes) else equation
    return f"ops.einsum({equation!r}, {', '.join(args)})"


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
    "ExpandDims": _expand_dims,
    "Squeeze": _squeeze,
    "Pack": lambda op, a: f"ops.stack([{', '.join(a)}], axis={op.get_attr('axis')!r})",
    "Transpose": lambda op, a: f"ops.transpose({a[0]}, {tuple(int_list(op.inputs[1], 'perm'))!r})",
    "StridedSlice": lambda op, a: _strided_slice(op, a[0]),
    "Mean": _reduce,
    "Sum": _reduce,
    "Max": _reduce,
    "Min": _reduce,
    "Prod": _reduce,
    "SelectV2": lambda op, a: f"ops.where({a[0]}, {a[1]}, {a[2]})",
    "OneHot": _one_hot,
    "Slice": _slice,
    "Fill": _fill,
    "Range": _range,
    "GatherV2": _gather,
    "ResourceGather": lambda op, a: f"ops.take({a[0]}, {a[1]}, axis=0)",  # a shared table
    "Einsum": _einsum,
    "GatherNd": _gather_nd,
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
    "OneHot": (1, 2, 3),
    "Slice": (1, 2),
    "Fill": (0,),
    "GatherV2": (2,),
}


def data_inputs(op: TfOp) -> list[TfTensor]:
    """The op's inputs that carry data (not its axis, shape or slice bounds)."""
    inputs = list(op.inputs)
    if op.type == "ConcatV2":
        return inputs[:-1]
    if op.type == "Range":  # no data, or the tensor whose batch size is its limit
        source = batch_source(inputs[1])
        return [] if static(op.outputs[0]) is not None or source is None else [source]
    skip = STATIC_INPUTS.get(op.type, ())
    return [t for i, t in enumerate(inputs) if i not in skip]


def _strided_slice(op: TfOp, arg: str) -> str:
    index = subscript(op)
    if isinstance(index, str):
        return f"{arg}{index}"
    text, axes = index  # new axes: inserted after the slice
    text = f"{arg}{text}"
    for axis in axes:
        text = f"ops.expand_dims({text}, {axis})"
    return text


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
    if kind == "Erfc":  # tf.nn.gelu(approximate=False) writes 0.5 * x * erfc(-x / sqrt(2))
        return f"ops.subtract(1.0, ops.erf({args[0]}))", "ops.erf"
    if kind in BINARY:
        return f"{BINARY[kind]}({args[0]}, {args[1]})", BINARY[kind]
    if kind == "ConcatV2":
        axis = _axis(op, len(op.inputs) - 1)
        return f"ops.concatenate([{', '.join(args)}], axis={axis!r})", "ops.concatenate"
    if kind in OTHER:
        text = OTHER[kind](op, args)
        return text, text.split("(")[0] if text.startswith(("ops.", "np.")) else "getitem"
    raise Refused(f"TensorFlow op {kind} has no keras.ops form in tfport's table")
