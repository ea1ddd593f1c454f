"""A TRAIN graph's learning rate, a function of the global step, as Keras 3 code.

A constant is a float; `tf.compat.v1.train.exponential_decay` is
`keras.optimizers.schedules.ExponentialDecay` (the same ops: `lr * decay_rate ** (step /
decay_steps)`, floored when staircase), `piecewise_constant` is `PiecewiseConstantDecay`
(one of the constants, picked by the same comparisons); anything else (polynomial decay,
BERT's warm-up blend) is a registered `LearningRateSchedule` subclass whose
`__call__(step)` is the subgraph written with `keras.ops`. The step is the optimizer's
`iterations`, read before the step's update as the global step is read by a v1 train op.

Example:
    >>> schedule = plan_schedule(lr_tensor, train)  # doctest: +SKIP
    >>> schedule.expression  # doctest: +SKIP
    'keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.8, staircase=False)'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from tfport.keras._modelfn._optimizers_code import Writer, short_float
from tfport.keras._modelfn._optimizers_train import TrainGraph, refusal
from tfport.keras._modelfn._static import TfTensor, static

SCHEDULE_CLASS = "LearningRate"


@dataclasses.dataclass
class Schedule:
    """The `learning_rate` argument of the optimizer, and the code it needs."""

    expression: str
    source: list[str] = dataclasses.field(default_factory=list)
    report: list[dict] = dataclasses.field(default_factory=list)
    uses_numpy: bool = False
    constant: bool = False  # a number: it reads no step


def plan_schedule(lr: TfTensor, train: TrainGraph) -> Schedule:
    """The Keras form of the learning-rate tensor `lr` of the train op `train` runs.

    Raises:
        TfportInputError: an op of the schedule with no keras.ops form.

    Example:
        >>> plan_schedule(lr, train).expression  # doctest: +SKIP
        'LearningRate()'
    """
    is_step = train.is_step
    value = train.constant(lr)
    if value is not None and np.ndim(value) == 0:
        text = short_float(value) if lr.dtype.name == "float32" else repr(float(value))
        return Schedule(text, constant=True)
    found = _exponential_decay(lr, is_step)
    if found is not None:
        return Schedule(found, report=[_row(lr, "keras.optimizers.schedules.ExponentialDecay")])
    found = _piecewise_constant(lr, is_step)
    if found is not None:
        kind = "keras.optimizers.schedules.PiecewiseConstantDecay"
        return Schedule(found, report=[_row(lr, kind)])
    writer = Writer(lambda t: _leaf(t, train), refusal)
    result = writer.write(lr)
    body = writer.lines + [f"return {result}"]
    source = [
        "",
        "",
        '@keras.saving.register_keras_serializable(package="tfport_export")',
        f"class {SCHEDULE_CLASS}(keras.optimizers.schedules.LearningRateSchedule):",
        '    """The model_fn\'s learning rate as a function of the global step (the',
        '    optimizer\'s `iterations`)."""',
        "",
        "    def __call__(self, step):",
        *[f"        {line}" for line in body],
        "",
        "    def get_config(self):",
        "        return {}",
    ]
    return Schedule(f"{SCHEDULE_CLASS}()", source, writer.rows, writer.uses_numpy)


def _leaf(tensor: TfTensor, train: TrainGraph) -> str | None:
    """`step`, or a variable the train op never writes as its initial value."""
    if train.is_step(tensor):
        return "step"
    value = None if static(tensor) is not None else train.constant(tensor)
    if value is None or np.ndim(value) != 0:
        return None
    return short_float(value) if tensor.dtype.name == "float32" else repr(value.item())


def _row(tensor: TfTensor, to: str) -> dict:
    from tfport.keras._modelfn._ops import line_of

    return {"op": tensor.op.name, "type": tensor.op.type, "to": to, "line": line_of(tensor.op)}


def _scalar(tensor: TfTensor) -> float | None:
    value = static(tensor)
    if value is None or np.ndim(value) != 0:
        return None
    return float(short_float(value)) if tensor.dtype.name == "float32" else float(value)


def _bound(tensor: TfTensor, kind: str, is_step: Callable[[TfTensor], bool]) -> float | None:
    """b of `step <= b` (kind LessEqual) or `step > b` (Greater), else None."""
    op = tensor.op
    if op.type != kind or not is_step(op.inputs[0]):
        return None
    return _scalar(op.inputs[1])


def _piecewise_constant(lr: TfTensor, is_step: Callable[[TfTensor], bool]) -> str | None:
    """`tf.compat.v1.train.piecewise_constant`: a `tf.case` (an If op whose inputs are its
    (predicate, value) pairs: `step <= b0`, `step > b_last`, `b_i < step <= b_i+1`) picking
    one constant, as Keras's `PiecewiseConstantDecay` picks it."""
    op = lr.op
    while op.type == "Identity" and op.inputs:
        op = op.inputs[0].op
    if op.type not in ("If", "StatelessIf") or "PiecewiseConstant" not in op.name:
        return None
    inputs = list(op.inputs)
    if len(inputs) < 4 or len(inputs) % 2:
        return None
    pieces: dict[tuple[float | None, float | None], float] = {}
    for pred, value in zip(inputs[::2], inputs[1::2], strict=True):
        number, cut = _scalar(value), pred.op
        if number is None:
            return None
        low, high = _bound(pred, "Greater", is_step), _bound(pred, "LessEqual", is_step)
        if cut.type == "LogicalAnd":
            low = _bound(cut.inputs[0], "Greater", is_step)
            high = _bound(cut.inputs[1], "LessEqual", is_step)
            if low is None or high is None:
                return None
        elif low is None and high is None:
            return None
        pieces[(low, high)] = number
    cuts = sorted({b for pair in pieces for b in pair if b is not None})
    edges = [None, *cuts, None]
    values = [pieces.get((lo, hi)) for lo, hi in zip(edges[:-1], edges[1:])]
    if None in values or len(values) != len(pieces):
        return None
    bounds = [int(b) if float(b).is_integer() else b for b in cuts]
    return f"keras.optimizers.schedules.PiecewiseConstantDecay({bounds!r}, {values!r})"


def _exponential_decay(lr: TfTensor, is_step: Callable[[TfTensor], bool]) -> str | None:
    """`initial * pow(rate, [floor](cast(step) / decay_steps))`, the ops of both
    `tf.compat.v1.train.exponential_decay` and Keras's `ExponentialDecay`."""
    op = lr.op
    if op.type != "Mul" or op.inputs[1].op.type != "Pow":
        return None
    initial, power = _scalar(op.inputs[0]), op.inputs[1].op
    rate, p = _scalar(power.inputs[0]), power.inputs[1]
    staircase = p.op.type == "Floor"
    if staircase:
        p = p.op.inputs[0]
    if initial is None or rate is None or p.op.type != "RealDiv":
        return None
    cast, steps = p.op.inputs[0], _scalar(p.op.inputs[1])
    if cast.op.type != "Cast" or not is_step(cast.op.inputs[0]) or steps is None:
        return None
    if lr.dtype.name != "float32":
        return None
    decay_steps = int(steps) if float(steps).is_integer() else steps
    return (
        f"keras.optimizers.schedules.ExponentialDecay({initial!r}, {decay_steps!r}, "
        f"{rate!r}, staircase={staircase})"
    )
