"""Convolutions other than Conv2D as built-in Keras layers: Conv1D (`tf.nn.conv1d` is a
Conv2D between ExpandDims and Squeeze), Conv3D, DepthwiseConv2D and SeparableConv2D (a
depthwise convolution then a 1x1 Conv2D), each with its bias and activation.

Example:
    >>> conv3d(walk, graph.get_operation_by_name("conv/Conv3D"))  # doctest: +SKIP
    True
"""

from __future__ import annotations

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._layers import bias_and_activation, emit, is_variable, padding_of
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._walk import Walk, variable_name

_LAST_CHANNEL = (b"NHWC", "NHWC", b"NDHWC", "NDHWC")


def _spatial(op: TfOp, name: str) -> list[int] | None:
    """The op's strides or dilations over its spatial axes (None: not 1 on the others)."""
    values = [int(v) for v in op.get_attr(name)]
    return values[1:-1] if values[0] == values[-1] == 1 else None


def _args(head: str, padding: str, strides: list[int], dilations: list[int]) -> str:
    args = f"{head}, padding={padding!r}"
    if set(strides) != {1}:
        args += f", strides={tuple(strides)!r}"
    if set(dilations) != {1}:
        args += f", dilation_rate={tuple(dilations)!r}"
    return args


def _tail(walk: Walk, last: TfTensor) -> tuple[list[str], list[TfOp], TfTensor, str]:
    """(bias variable, fused ops, last tensor, `activation`/`use_bias` arguments)."""
    bias, fused, last, activation = bias_and_activation(walk, last)
    extra = (f", activation={activation!r}" if activation else "") + f", use_bias={bool(bias)}"
    return bias, fused, last, extra


def _plain(op: TfOp) -> tuple[str, list, list] | None:
    """(padding, spatial strides, dilations) of a channels-last SAME/VALID convolution."""
    padding = padding_of(op)
    strides, dilations = _spatial(op, "strides"), _spatial(op, "dilations")
    if op.get_attr("data_format") not in _LAST_CHANNEL:
        return None
    if padding is None or strides is None or dilations is None:
        return None
    return padding, strides, dilations


def _by_variable(walk: Walk, op: TfOp) -> tuple[TfTensor, TfTensor, str, list, list] | None:
    """(input, kernel, padding, strides, dilations) of a convolution of a written input by
    a variable kernel; None otherwise."""
    x, kernel = op.inputs
    found = _plain(op)
    if found is None or not is_variable(kernel) or x.name not in walk.expr:
        return None
    return (x, kernel, *found)


def conv3d(walk: Walk, op: TfOp) -> bool:
    """A Conv3D layer for Conv3D(x, kernel) [+ bias] [+ activation] (NDHWC)."""
    found = _by_variable(walk, op)
    if found is None:
        return False
    x, kernel, padding, strides, dilations = found
    *size, _, filters = (int(d) for d in kernel.shape)
    bias, fused, last, extra = _tail(walk, op.outputs[0])
    args = _args(f"{filters}, {tuple(size)!r}", padding, strides, dilations) + extra
    weights = list(zip([variable_name(kernel.op), *bias], ("kernel", "bias"), strict=False))
    emit(walk, "Conv3D", args, x, weights, [op, *fused], last)
    return True


def _pointwise(walk: Walk, op: TfOp) -> TfOp | None:
    """The 1x1 Conv2D by a variable (stride 1, VALID) that is the only reader of `op`."""
    point = walk.only_user(op.outputs[0], "Conv2D")
    if point is None or _plain(point) != ("valid", [1, 1], [1, 1]):
        return None
    kernel = point.inputs[1]
    if not is_variable(kernel) or [int(d) for d in kernel.shape[:2]] != [1, 1]:
        return None
    return point


def depthwise(walk: Walk, op: TfOp) -> bool:
    """DepthwiseConv2D, or SeparableConv2D when a 1x1 Conv2D by a variable follows."""
    found = _by_variable(walk, op)
    if found is None:
        return False
    x, kernel, padding, strides, dilations = found
    kh, kw, _, multiplier = (int(d) for d in kernel.shape)
    point = _pointwise(walk, op)
    names = [variable_name(kernel.op)]
    ops = [op]
    head = f"({kh}, {kw}), depth_multiplier={multiplier}"
    if point is not None:
        head = f"{int(point.inputs[1].shape[-1])}, " + head
        names.append(variable_name(point.inputs[1].op))
        ops.append(point)
    bias, fused, last, extra = _tail(walk, ops[-1].outputs[0])
    separable = point is not None
    roles = ("depthwise_kernel", "pointwise_kernel", "bias") if separable else ("kernel", "bias")
    weights = list(zip([*names, *bias], roles, strict=True))
    kind = "SeparableConv2D" if separable else "DepthwiseConv2D"
    emit(
        walk, kind, _args(head, padding, strides, dilations) + extra, x, weights, ops + fused, last
    )
    return True


def conv1d(walk: Walk, op: TfOp) -> bool:
    """Conv1D for `tf.nn.conv1d`: `Squeeze(Conv2D(ExpandDims(x, -3), ExpandDims(kernel, 0)),
    -3)` [+ bias] [+ activation] (runs before the walk: the ExpandDims come first)."""
    expanded, kernel = (t.op for t in op.inputs)
    if expanded.type != "ExpandDims" or kernel.type != "ExpandDims":
        return False
    x = expanded.inputs[0]
    axis, kernel_axis = _ops.static(expanded.inputs[1]), _ops.static(kernel.inputs[1])
    if x.shape.rank != 3 or axis is None or int(axis) not in (1, -3) or kernel_axis != 0:
        return False
    squeeze = walk.only_user(op.outputs[0], "Squeeze")
    if squeeze is None or [d % 4 for d in squeeze.get_attr("squeeze_dims")] != [1]:
        return False
    found = _plain(op) if is_variable(kernel.inputs[0]) else None
    if found is None or found[1][0] != 1 or found[2][0] != 1:
        return False
    padding, strides, dilations = found
    size, _, filters = (int(d) for d in kernel.inputs[0].shape)
    bias, fused, last, extra = _tail(walk, squeeze.outputs[0])
    region = walk.region(x, last.op)
    if region is None:
        return False
    args = _args(f"{filters}, {size}", padding, strides[1:], dilations[1:]) + extra
    names = [variable_name(kernel.inputs[0].op), *bias]
    weights = list(zip(names, ("kernel", "bias"), strict=False))
    walk.defer(region, lambda: emit(walk, "Conv1D", args, x, weights, region, last))
    return True


PATTERNS = {"Conv3D": conv3d, "DepthwiseConv2dNative": depthwise}
REGIONS = {"Conv2D": conv1d}
