"""Graph patterns that are built-in Keras layers: Dense, Conv2D, BatchNormalization, pooling.

Each pattern function emits the layer and returns True, or returns False (the ops are
then written as `keras.ops` calls). The helpers without an underscore (`emit`,
`bias_and_activation`, `bn_apply`, ...) are shared with `_convs` and `_norms`.

Example:
    >>> dense(walk, graph.get_operation_by_name("hidden/MatMul"))  # doctest: +SKIP
    True
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._parts import single_part, whole_of
from tfport.keras._modelfn._walk import Walk, scope, variable_name

_KERNEL_WEIGHTS = ("kernel", "bias")
_BN_WEIGHTS = ("gamma", "beta", "moving_mean", "moving_variance")
# variables named after their role in a layer (a scope per layer, as tf.layers names them)
_ROLE_NAMES = {*_KERNEL_WEIGHTS, *_BN_WEIGHTS, "embeddings", "depthwise_kernel", "pointwise_kernel"}


def is_variable(tensor: TfTensor) -> bool:
    """A variable's value: its read, or a partitioned variable read whole (`_parts`)."""
    return tensor.op.type == "ReadVariableOp" or whole_of(tensor) is not None


def bias_and_activation(
    walk: Walk, last: TfTensor
) -> tuple[list, list[TfOp], TfTensor, str | None]:
    """([bias variable] or [], fused ops, last tensor, activation) after a kernel op."""
    weights: list[str] = []
    fused: list[TfOp] = []
    bias_op = walk.only_user(last, ("BiasAdd", "AddV2", "Add"))
    if bias_op is not None:
        other = [t for t in bias_op.inputs if t.name != last.name]
        if len(other) == 1 and is_variable(other[0]) and other[0].shape.rank == 1:
            weights.append(variable_name(other[0].op))
            fused.append(bias_op)
            last = bias_op.outputs[0]
    act_op = walk.only_user(last, tuple(_ops.ACTIVATIONS))
    activation = None
    if act_op is not None:
        activation = _ops.ACTIVATIONS[act_op.type]
        fused.append(act_op)
        last = act_op.outputs[0]
    return weights, fused, last, activation


def emit(
    walk: Walk,
    kind: str,
    args: str,
    source: TfTensor,
    weights: list[tuple[str, str]],
    fused: list[TfOp],
    last: TfTensor,
) -> str:
    """Writes `var = layers.KIND(args, name=...)(source)`; records its weights and ops;
    returns the layer's name."""
    named = next((v for v, _ in weights if v), fused[0].name)
    # `hidden/kernel` makes the layer `hidden`; `bert/embeddings/word_embeddings` keeps it all
    role_named = named.rpartition("/")[2] in _ROLE_NAMES or not weights
    layer = walk.name(scope(named) if role_named else named)
    line = walk.comment(fused[0])
    var = walk.name(layer + "_out")
    walk.plan.lines.append(
        f"{var} = layers.{kind}({args}, name={layer!r})({walk.expr[source.name]})"
    )
    if weights:
        walk.plan.layers[layer] = [v for v, _ in weights]
    for variable, role in weights:
        walk.plan.assign(variable, layer, role)
    for op in fused:
        walk.record(op, f"layers.{kind} {layer!r}", line)
        walk.done.add(op.name)
    walk.expr[last.name] = var
    return layer


def dense(walk: Walk, op: TfOp) -> bool:
    """A Dense layer for MatMul(x, kernel) [+ bias] [+ activation]; False if not one."""
    a, b = op.inputs
    if (
        not is_variable(b)
        or is_variable(a)
        or op.get_attr("transpose_a")
        or op.get_attr("transpose_b")
        or a.shape.rank != 2
        or a.name not in walk.expr
    ):
        return False
    bias, fused, last, activation = bias_and_activation(walk, op.outputs[0])
    names = [variable_name(b.op), *bias]
    args = f"{int(b.shape[-1])}" + (f", activation={activation!r}" if activation else "")
    args += "" if bias else ", use_bias=False"
    weights = list(zip(names, _KERNEL_WEIGHTS, strict=False))
    emit(walk, "Dense", args, a, weights, [op, *fused], last)
    return True


def dense_tensordot(walk: Walk, op: TfOp) -> bool:
    """A Dense layer on an N-D input: `tf.tensordot(x, kernel, [[-1], [0]])` as Keras 2's
    Dense writes it (x transposed by the identity, reshaped to 2-D, MatMul by the kernel,
    reshaped back to `x`'s leading dimensions) [+ bias] [+ activation]; a region."""
    a, kernel = op.inputs
    if not is_variable(kernel) or is_variable(a) or op.get_attr("transpose_a"):
        return False
    if op.get_attr("transpose_b") or a.op.type != "Reshape":
        return False
    transpose = a.op.inputs[0].op
    if transpose.type != "Transpose" or not _identity(_ops.static(transpose.inputs[1])):
        return False
    x = transpose.inputs[0]
    back = walk.only_user(op.outputs[0], "Reshape")
    units = int(kernel.shape[-1])
    dims = x.shape.as_list() if x.shape.rank else None
    if back is None or dims is None or len(dims) < 3 or dims[-1] != int(kernel.shape[0]):
        return False
    if back.outputs[0].shape.as_list() != [*dims[:-1], units]:
        return False
    bias, fused, last, activation = bias_and_activation(walk, back.outputs[0])
    region = walk.region(x, last.op)
    if region is None:
        return False
    args = f"{units}" + (f", activation={activation!r}" if activation else "")
    args += "" if bias else ", use_bias=False"
    names = [variable_name(kernel.op), *bias]
    weights = list(zip(names, _KERNEL_WEIGHTS, strict=False))
    walk.defer(region, lambda: emit(walk, "Dense", args, x, weights, region, last))
    return True


def _identity(perm: object) -> bool:
    """Whether a static permutation leaves the axes in place."""
    if perm is None:
        return False
    values = list(np.asarray(perm, dtype=object).reshape(-1))
    return values == list(range(len(values)))


def _nhwc(op: TfOp) -> bool:
    return op.get_attr("data_format") in (b"NHWC", "NHWC")


def padding_of(op: TfOp) -> str | None:
    padding = op.get_attr("padding")
    padding = padding.decode() if isinstance(padding, bytes) else padding
    return {"SAME": "same", "VALID": "valid"}.get(padding)


def conv2d(walk: Walk, op: TfOp) -> bool:
    """A Conv2D layer for Conv2D(x, kernel) [+ bias] [+ activation] (NHWC, SAME/VALID)."""
    x, kernel = op.inputs
    strides, dilations = list(op.get_attr("strides")), list(op.get_attr("dilations"))
    padding = padding_of(op)
    if not is_variable(kernel) or not _nhwc(op) or padding is None or x.name not in walk.expr:
        return False
    if strides[0] != 1 or strides[3] != 1 or dilations[0] != 1 or dilations[3] != 1:
        return False
    bias, fused, last, activation = bias_and_activation(walk, op.outputs[0])
    kh, kw, _, filters = (int(d) for d in kernel.shape)
    args = f"{filters}, ({kh}, {kw}), padding={padding!r}"
    if strides[1:3] != [1, 1]:
        args += f", strides={tuple(strides[1:3])!r}"
    if dilations[1:3] != [1, 1]:
        args += f", dilation_rate={tuple(dilations[1:3])!r}"
    args += (f", activation={activation!r}" if activation else "") + f", use_bias={bool(bias)}"
    names = [variable_name(kernel.op), *bias]
    weights = list(zip(names, _KERNEL_WEIGHTS, strict=False))
    emit(walk, "Conv2D", args, x, weights, [op, *fused], last)
    return True


def batch_norm(walk: Walk, op: TfOp) -> bool:
    """BatchNormalization (inference) for FusedBatchNormV3 with variable statistics."""
    x, gamma, beta, mean, variance = op.inputs[:5]
    if op.get_attr("is_training") or not _nhwc(op) or x.name not in walk.expr:
        return False
    if not (is_variable(mean) and is_variable(variance)):
        return False
    used = [t for t in op.outputs[1:] if walk.users.get(t.name)]
    if used or (not is_variable(gamma) and _ops.static(gamma) is None):
        return False
    scale, center = is_variable(gamma), is_variable(beta)
    if not center and _ops.static(beta) is None:
        return False
    if (not scale and not (_ops.static(gamma) == 1).all()) or (
        not center and not (_ops.static(beta) == 0).all()
    ):
        return False
    tensors = [t for t, on in ((gamma, scale), (beta, center)) if on] + [mean, variance]
    roles = [r for r, on in zip(_BN_WEIGHTS[:2], (scale, center), strict=True) if on]
    weights = [
        (variable_name(t.op), r) for t, r in zip(tensors, [*roles, *_BN_WEIGHTS[2:]], strict=True)
    ]
    epsilon = float(str(np.float32(op.get_attr("epsilon"))))  # 0.001, not 0.0010000000474...
    args = f"epsilon={epsilon!r}, center={center}, scale={scale}"
    emit(walk, "BatchNormalization", args, x, weights, [op], op.outputs[0])
    return True


def other_input(op: TfOp, tensor: TfTensor) -> TfTensor | None:
    """The input of a two-input op that is not `tensor` (None if it is not an input)."""
    names = [t.name for t in op.inputs]
    if len(names) != 2 or tensor.name not in names:
        return None
    return op.inputs[1 - names.index(tensor.name)]


def only(ops: list[TfOp], kind: str) -> TfOp | None:
    return ops[0] if len(ops) == 1 and ops[0].type == kind else None


def _bn_scale(walk: Walk, op: TfOp) -> tuple[TfOp, TfOp, TfTensor] | None:
    """(rsqrt, mul, gamma) of `rsqrt(variance + eps) * gamma` starting at the add."""
    variance, eps = op.inputs
    if not is_variable(variance) or np.ndim(_ops.static(eps)) != 0:
        return None
    rsqrt = only(walk.readers(op.outputs[0]), "Rsqrt")
    if rsqrt is None:
        return None
    mul = only(walk.readers(rsqrt.outputs[0]), "Mul")
    gamma = None if mul is None else other_input(mul, rsqrt.outputs[0])
    if mul is None or gamma is None or not is_variable(gamma):
        return None
    return rsqrt, mul, gamma


def bn_apply(
    walk: Walk, scale: TfTensor, mean: TfTensor | None = None
) -> tuple[TfOp, TfOp, TfOp, TfOp] | None:
    """(x * scale, mean * scale, beta - mean * scale, their sum) reading `scale`; the mean
    is a variable (moving mean) unless the `mean` tensor is given (layer normalization)."""
    users = walk.readers(scale)
    others = [other_input(u, scale) for u in users]
    if len(users) != 2 or any(u.type != "Mul" or t is None for u, t in zip(users, others)):
        return None
    by_kind = {
        (is_variable(t) if mean is None else t is not None and t.name == mean.name): u
        for u, t in zip(users, others)
    }
    if set(by_kind) != {True, False}:
        return None
    scaled, mean_mul = by_kind[False], by_kind[True]
    sub = only(walk.readers(mean_mul.outputs[0]), "Sub")
    if sub is None or not is_variable(sub.inputs[0]):
        return None
    if sub.inputs[1].name != mean_mul.outputs[0].name:
        return None
    add = only(walk.readers(scaled.outputs[0]), "AddV2")
    joined = None if add is None else other_input(add, scaled.outputs[0])
    if add is None or joined is None or joined.name != sub.outputs[0].name:
        return None
    return scaled, mean_mul, sub, add


def batch_norm_unfused(walk: Walk, op: TfOp) -> bool:
    """BatchNormalization (inference) for the arithmetic of Keras/TF batch normalization
    on any rank: `x * (rsqrt(var + eps) * gamma) + (beta - mean * rsqrt(var + eps) * gamma)`."""
    found = _bn_scale(walk, op)
    applied = None if found is None else bn_apply(walk, found[1].outputs[0])
    if found is None or applied is None:
        return False
    rsqrt, mul, gamma = found
    scaled, mean_mul, sub, add = applied
    x, mean = other_input(scaled, mul.outputs[0]), other_input(mean_mul, mul.outputs[0])
    if x is None or mean is None or x.name not in walk.expr or x.shape.rank is None:
        return False
    tensors = [gamma, sub.inputs[0], mean, op.inputs[0]]
    weights = [(variable_name(t.op), r) for t, r in zip(tensors, _BN_WEIGHTS, strict=True)]
    epsilon = float(str(np.float32(_ops.static(op.inputs[1]))))
    fused = [op, rsqrt, mul, scaled, mean_mul, sub, add]
    emit(walk, "BatchNormalization", f"epsilon={epsilon!r}", x, weights, fused, add.outputs[0])
    return True


def pool(walk: Walk, op: TfOp) -> bool:
    """MaxPooling2D / AveragePooling2D for MaxPool / AvgPool (NHWC, SAME/VALID)."""
    (x,) = op.inputs
    size, strides = list(op.get_attr("ksize")), list(op.get_attr("strides"))
    padding = padding_of(op)
    if not _nhwc(op) or padding is None or size[0] != 1 or size[3] != 1 or x.name not in walk.expr:
        return False
    kind = "MaxPooling2D" if op.type == "MaxPool" else "AveragePooling2D"
    args = f"{tuple(size[1:3])!r}, strides={tuple(strides[1:3])!r}, padding={padding!r}"
    emit(walk, kind, args, x, [], [op], op.outputs[0])
    return True


def embedding(walk: Walk, op: TfOp) -> bool:
    """Embedding for a row lookup in a variable table (`tf.nn.embedding_lookup`,
    `tf.gather(table, ids)`): ResourceGather, or GatherV2 of a read on axis 0."""
    table, ids = op.inputs[0], op.inputs[1]
    if op.get_attr("batch_dims") != 0 or ids.name not in walk.expr or not ids.dtype.is_integer:
        return False
    if op.type == "GatherV2":
        axis = _ops.static(op.inputs[2])
        if not is_variable(table) or axis is None or int(axis) != 0:
            return False
        variable = variable_name(table.op)
    else:
        variable = table.op.name
    if walk.tie and variable in walk.tied():
        return False  # one Variable layer read by the gather and the other op (`_emit`)
    shape = op.outputs[0].shape
    rows = walk.traced.graph.get_operation_by_name(variable).outputs[0]
    dims = rows.shape if rows.dtype.name != "resource" else None
    vocab_dim = dims.as_list() if dims is not None else _resource_shape(walk, variable)
    if vocab_dim is None or len(vocab_dim) != 2 or shape.rank is None:
        return False
    whole = single_part(walk.traced.graph, variable)
    if whole is not None:  # a partitioner's one part: the checkpoint holds it as the whole
        walk.plan.add_part(variable, whole, [0, vocab_dim[0]], list(vocab_dim))
        variable = whole
    args = f"{vocab_dim[0]}, {vocab_dim[1]}"
    emit(walk, "Embedding", args, ids, [(variable, "embeddings")], [op], op.outputs[0])
    return True


def _resource_shape(walk: Walk, variable: str) -> list | None:
    handle = walk.traced.graph.get_operation_by_name(variable)
    shape = handle.get_attr("shape")
    dims = [d.size for d in shape.dim] if hasattr(shape, "dim") else list(shape)
    return dims if all(isinstance(d, int) and d > 0 for d in dims) else None


PATTERNS = {
    "MatMul": dense,
    "Conv2D": conv2d,
    "FusedBatchNormV3": batch_norm,
    "AddV2": batch_norm_unfused,
    "ResourceGather": embedding,
    "GatherV2": embedding,
    "MaxPool": pool,
    "AvgPool": pool,
}
REGIONS = {"MatMul": dense_tensordot}  # its first ops come before the MatMul
