"""Batch normalization in TRAIN mode, as the TRAIN/PREDICT match meets it: TF's fused op
(`FusedBatchNormV3` with `is_training`) and the unfused arithmetic over `tf.nn.moments`
(2-D inputs), with the momentum of the moving-average updates the train op runs.

TF's fused op updates the moving variance with the batch variance times n / (n - 1)
(`fused=True`: a `FusedBatchNormalization` layer in model.py repeats it); the unfused
form uses the plain batch variance, as Keras's `BatchNormalization` does.

Example:
    >>> norms = momenta(train, fused_ops, moments, done)  # doctest: +SKIP
    >>> norms[0].momentum  # doctest: +SKIP
    0.9
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._training_trace import TrainTraced
from tfport.keras._modelfn._walk import refusal, scope, variable_name


@dataclasses.dataclass
class TrainingNorm:
    """One batch normalization that trains: its moving mean variable (naming the layer),
    the momentum of its updates, whether its variance update is Bessel-corrected."""

    moving_mean: str
    momentum: float
    fused: bool
    ops: list[TfOp]


def moments_input(t: TfTensor) -> tuple[str, TfTensor] | None:
    """("mean" or "variance", x) when `t` is `tf.nn.moments(x, all axes but the last)`'s
    squeezed mean or variance (`mean(squared_difference(x, stop_gradient(mean)))`)."""
    if t.op.type != "Squeeze" or t.op.inputs[0].op.type != "Mean":
        return None
    mean = t.op.inputs[0].op
    source = mean.inputs[0]
    kind, x = "mean", source
    if source.op.type == "SquaredDifference":
        center = source.op.inputs[1]
        if center.op.type != "StopGradient" or center.op.inputs[0].op.type != "Mean":
            return None
        kind, x = "variance", source.op.inputs[0]
    axes = _ops.static(mean.inputs[1])
    rank = x.shape.rank
    if axes is None or rank is None or not mean.get_attr("keep_dims"):
        return None
    if sorted(int(a) % rank for a in np.ravel(axes)) != list(range(rank - 1)):
        return None
    return kind, x


def _updates(train: TrainTraced, done: set[str]) -> dict[str, tuple[TfTensor, float, list]]:
    """{moving variable: (the batch statistic, momentum, ops)} of every `var -= (var -
    stat) * decay` the train op runs."""
    found = {}
    for update in train.graph.get_operations():
        if update.type != "AssignSubVariableOp" or update.name not in done:
            continue
        mul = update.inputs[1].op
        if mul.type != "Mul" or mul.inputs[0].op.type != "Sub":
            continue
        decay = _ops.static(mul.inputs[1])
        if decay is None or np.ndim(decay) != 0:
            continue
        stat = mul.inputs[0].op.inputs[1]
        momentum = float(str(np.float32(1.0 - float(decay))))
        found[update.inputs[0].op.name] = (stat, momentum, [update, mul, mul.inputs[0].op])
    return found


def momenta(
    train: TrainTraced,
    fused: list[TfOp],
    moments: dict[str, TfTensor],
    done: set[str],
) -> list[TrainingNorm]:
    """The training batch norms met by the match: `fused` FusedBatchNormV3 ops, and
    `moments` (moving variable read in PREDICT -> the TRAIN batch statistic in its place).

    Raises:
        TfportInputError: a batch norm whose moving statistics the train op does not update
            as `var -= (var - batch) * (1 - momentum)` (UPDATE_OPS not run), or updates with
            two momenta.
    """
    updates = _updates(train, done)
    norms = []
    for op in fused:
        pairs = [(variable_name(op.inputs[i].op), op.outputs[i - 2]) for i in (3, 4)]
        norms.append(_norm(op, pairs, updates, fused=True))
    by_layer: dict[str, list[tuple[str, TfTensor]]] = {}
    for variable, stat in moments.items():
        by_layer.setdefault(scope(variable), []).append((variable, stat))
    for pairs in by_layer.values():
        kinds = sorted((moments_input(s) or ("", None))[0] for _, s in pairs)
        op = pairs[0][1].op
        if kinds != ["mean", "variance"]:
            raise refusal(op, "batch statistics in training mode that are not one layer's")
        pairs.sort(key=lambda p: (moments_input(p[1]) or ("", None))[0])
        norms.append(_norm(op, pairs, updates, fused=False))
    return norms


def _norm(op: TfOp, pairs: list[tuple[str, TfTensor]], updates: dict, fused: bool) -> TrainingNorm:
    """The layer whose (mean, variance) moving variables and batch statistics are `pairs`."""
    found = [updates.get(variable) for variable, _ in pairs]
    ok = all(u is not None and u[0].name == stat.name for u, (_, stat) in zip(found, pairs))
    if not ok or len({u[1] for u in found if u is not None}) != 1:
        raise refusal(
            op,
            "batch normalization in training mode whose moving mean and variance are not "
            "both updated with one momentum by the train op (run "
            "tf.compat.v1.GraphKeys.UPDATE_OPS with it)",
        )
    ops = [op] + [o for u in found if u is not None for o in u[2]]
    return TrainingNorm(pairs[0][0], found[0][1], fused, ops)  # type: ignore[index]


def report_rows(norms: list[TrainingNorm]) -> list[dict]:
    """report.json rows of the ops of the training batch norms."""
    rows = []
    for norm in norms:
        kind = "FusedBatchNormalization" if norm.fused else "layers.BatchNormalization"
        for op in norm.ops:
            to = f"{kind} momentum {norm.momentum}"
            rows.append({"op": op.name, "type": op.type, "to": to, "line": _ops.line_of(op)})
    return rows
