"""Layer normalization, as `tf.keras` and BERT-style `tf.compat.v1` code build it, as one
built-in `layers.LayerNormalization` with its gamma and beta.

These patterns run before the walk (`REGIONS`): their first ops (the moments, the reshape
of tf.keras's fused form) come before the input's last use, so the layer is written
where the region's last op was (`Walk.defer`).

Example:
    >>> mean = graph.get_operation_by_name("LayerNorm/moments/mean")  # doctest: +SKIP
    >>> layer_norm_moments(walk, mean)  # doctest: +SKIP
    True
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._layers import bn_apply, emit, is_variable, only, other_input
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._walk import Walk, variable_name

_WEIGHTS = ("gamma", "beta")


def _epsilon(value: float) -> float:
    return float(str(np.float32(value)))  # 1e-12, not 9.999999960041972e-13


def _axes(rank: int | None, normalized: int) -> int | list[int] | None:
    """Keras's `axis` for the last `normalized` dimensions of a rank-`rank` input."""
    if rank is None or not 0 < normalized < rank:
        return None
    return -1 if normalized == 1 else list(range(rank - normalized, rank))


def _defer(
    walk: Walk,
    region: list[TfOp],
    x: TfTensor,
    weights: tuple[TfTensor, TfTensor],
    axis: object,
    epsilon: float,
) -> bool:
    """Writes the layer (gamma, beta) where the region's last op is; returns True."""
    named = [(variable_name(t.op), r) for t, r in zip(weights, _WEIGHTS, strict=True)]
    args = f"axis={axis!r}, epsilon={epsilon!r}"
    last = region[-1].outputs[0]
    walk.defer(region, lambda: emit(walk, "LayerNormalization", args, x, named, region, last))
    return True


def layer_norm_moments(walk: Walk, op: TfOp) -> bool:
    """`tf.nn.moments(x, [-1], keepdims=True)`, then `tf.nn.batch_normalization(x, mean,
    variance, beta, gamma, eps)` (BERT's `layer_norm`, `tf.contrib.layers.layer_norm`:
    `x * (rsqrt(var + eps) * gamma) + (beta - mean * rsqrt(...) * gamma)`) or the same
    written out: `(x - mean) * rsqrt(var + eps) * gamma + beta`; matched from the mean."""
    x = op.inputs[0]
    axes = _ops.static(op.inputs[1])
    if not op.get_attr("keep_dims") or axes is None or x.shape.rank is None:
        return False
    rank = x.shape.rank
    normalized = sorted(int(a) % rank for a in np.asarray(axes).reshape(-1))
    if normalized != list(range(rank - len(normalized), rank)):
        return False
    mean = op.outputs[0]
    variance = _variance(walk, x, mean)
    if variance is None:
        return False
    add = only(walk.readers(variance.outputs[0]), "AddV2")
    eps = None if add is None else other_input(add, variance.outputs[0])
    if add is None or eps is None or np.ndim(_ops.static(eps)) != 0:
        return False
    rsqrt = only(walk.readers(add.outputs[0]), "Rsqrt")
    mul = None if rsqrt is None else only(walk.readers(rsqrt.outputs[0]), "Mul")
    if rsqrt is None or mul is None:
        return False
    found = _fused_scale(walk, x, mean, rsqrt, mul) or _written_out(walk, x, mean, rsqrt, mul)
    if found is None:
        return False
    gamma, beta, last = found
    region = walk.region(x, last)
    axis = _axes(rank, len(normalized))
    if region is None or axis is None:
        return False
    return _defer(walk, region, x, (gamma, beta), axis, _epsilon(_ops.static(eps)))


_Found = tuple[TfTensor, TfTensor, TfOp]  # gamma, beta, the last op


def _fused_scale(walk: Walk, x: TfTensor, mean: TfTensor, rsqrt: TfOp, mul: TfOp) -> _Found | None:
    """tf.nn.batch_normalization's arithmetic after `mul = rsqrt(var + eps) * gamma`."""
    gamma = other_input(mul, rsqrt.outputs[0])
    if gamma is None or not is_variable(gamma):
        return None
    applied = bn_apply(walk, mul.outputs[0], mean)
    scaled = None if applied is None else other_input(applied[0], mul.outputs[0])
    if applied is None or scaled is None or scaled.name != x.name:
        return None
    return gamma, applied[2].inputs[0], applied[3]


def _written_out(walk: Walk, x: TfTensor, mean: TfTensor, rsqrt: TfOp, mul: TfOp) -> _Found | None:
    """`(x - mean) * rsqrt(var + eps) * gamma + beta` after `mul = (x - mean) * rsqrt`."""
    centered = other_input(mul, rsqrt.outputs[0])
    if centered is None or centered.op.type != "Sub":
        return None
    if [t.name for t in centered.op.inputs] != [x.name, mean.name]:
        return None
    scale = only(walk.readers(mul.outputs[0]), "Mul")
    gamma = None if scale is None else other_input(scale, mul.outputs[0])
    if scale is None or gamma is None or not is_variable(gamma):
        return None
    shift = walk.only_user(scale.outputs[0], ("AddV2", "Add"))
    beta = None if shift is None else other_input(shift, scale.outputs[0])
    if shift is None or beta is None or not is_variable(beta):
        return None
    return gamma, beta, shift


def _variance(walk: Walk, x: TfTensor, mean: TfTensor) -> TfOp | None:
    """The Mean of `SquaredDifference(x, stop_gradient(mean))` over the same axes."""
    for reader in walk.readers(mean):
        source = reader
        while source.type in _ops.PASS and len(walk.readers(source.outputs[0])) == 1:
            source = walk.readers(source.outputs[0])[0]
        if source.type != "SquaredDifference" or source.inputs[0].name != x.name:
            continue
        found = only(walk.readers(source.outputs[0]), "Mean")
        if found is not None and found.get_attr("keep_dims"):
            return found
    return None


def layer_norm_fused(walk: Walk, op: TfOp) -> bool:
    """tf.keras's LayerNormalization: `x` reshaped to `[1, rows, size, 1]`, normalized by
    FusedBatchNormV3 in training mode (scale 1, offset 0), reshaped back, `* gamma + beta`."""
    reshape = op.inputs[0].op
    if not op.get_attr("is_training") or reshape.type != "Reshape":
        return False
    x = reshape.inputs[0]
    scale, offset = (_ops.static(_filled(t)) for t in op.inputs[1:3])
    if scale is None or offset is None or not (scale == 1).all() or not (offset == 0).all():
        return False
    back = only(walk.readers(op.outputs[0]), "Reshape")
    if back is None:
        return False
    mul = only(walk.readers(back.outputs[0]), "Mul")
    gamma = None if mul is None else _read(other_input(mul, back.outputs[0]))
    if mul is None or gamma is None:
        return False
    add = only(walk.readers(mul.outputs[0]), "AddV2")
    beta = None if add is None else _read(other_input(add, mul.outputs[0]))
    if add is None or beta is None:
        return False
    region = walk.region(x, add)
    axis = _axes(x.shape.rank, gamma.shape.rank or 0)
    if region is None or axis is None:
        return False
    return _defer(walk, region, x, (gamma, beta), axis, _epsilon(op.get_attr("epsilon")))


def _read(tensor: TfTensor | None) -> TfTensor | None:
    """The variable read behind `tensor`, itself or reshaped to broadcast (several axes)."""
    if tensor is None:
        return None
    if tensor.op.type == "Reshape" and _ops.static(tensor.op.inputs[1]) is not None:
        tensor = tensor.op.inputs[0]
    return tensor if is_variable(tensor) else None


def _filled(tensor: TfTensor) -> TfTensor:
    """The value a `Fill` repeats (tf.keras fills scale and offset to the row count)."""
    return tensor.op.inputs[1] if tensor.op.type == "Fill" else tensor


REGIONS = {"Mean": layer_norm_moments, "FusedBatchNormV3": layer_norm_fused}
