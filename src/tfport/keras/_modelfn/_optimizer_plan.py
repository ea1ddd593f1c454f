"""How an exported model_fn's optimizer is written in `model.py`, and where its state comes
from: the contract between the TRAIN-mode export (`--training`) and the optimizer mappers
(built-in v1/Keras optimizers, learning-rate schedules, user-written optimizers).

A mapper returns an `OptimizerPlan`; the writer puts `source` at the top level of
`model.py`, builds the optimizer with `expression` and, once the optimizer is built on the
model's trainable weights, fills its state from the checkpoint with `restore_state`.

Example:
    >>> plan = OptimizerPlan(
    ...     source=[],
    ...     expression="keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)",
    ...     slots={"logits/kernel": {"momentums": "logits/kernel/Momentum"}},
    ...     iterations="global_step",
    ... )
    >>> plan.slots["logits/kernel"]["momentums"]
    'logits/kernel/Momentum'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Protocol

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasVariable
from tfport.checkpoint import CheckpointReader

SlotKeys = dict[str, str]  # optimizer attribute holding a slot list -> checkpoint key


@dataclasses.dataclass
class OptimizerPlan:
    """The Keras 3 optimizer of a model_fn's train op, as `model.py` code and its state.

    Attributes:
        source: top-level code model.py needs before `build_optimizer()` (a
            `LearningRateSchedule` or `Optimizer` subclass, each registered with
            `keras.saving.register_keras_serializable`); empty for built-in ones.
        expression: the Python expression, in model.py's names (`keras`, `ops`, `np` and
            the classes of `source`), that builds the optimizer.
        slots: model variable (graph name, e.g. `conv1/kernel`) -> {name of the optimizer's
            attribute holding that slot's list (`momentums`, `_momentums`, `_m`): the
            checkpoint key of its value}. The list is indexed by
            `optimizer._get_variable_index(variable)` as Keras 3's own optimizers do.
        iterations: the checkpoint key whose value becomes `optimizer.iterations` (the
            global step the schedule reads), or None.
        report: rows for report.json's `ops`: `{"op", "type", "to", "line"}`.
        needs_tensorflow: the optimizer's code calls TensorFlow.
        values: model variable -> {attribute holding a per-variable list: the value
            `restore_state` sets there}: a choice the export made from the graph for that
            variable (which update a written optimizer applies to it: `_group`).
        beta_powers: checkpoint key -> beta, for TF1 Adam's `beta1_power`/`beta2_power`:
            `restore_state` checks the key holds `beta ** (iterations + 1)` (the float32
            product TF1 keeps), the bias correction Keras computes from `iterations`.
    """

    source: list[str]
    expression: str
    slots: dict[str, SlotKeys] = dataclasses.field(default_factory=dict)
    iterations: str | None = None
    report: list[dict] = dataclasses.field(default_factory=list)
    needs_tensorflow: bool = False
    values: dict[str, dict[str, int | float]] = dataclasses.field(default_factory=dict)
    beta_powers: dict[str, float] = dataclasses.field(default_factory=dict)


class _Optimizer(Protocol):
    """What `restore_state` uses of a built Keras 3 optimizer."""

    iterations: KerasVariable

    def _get_variable_index(self, variable: KerasVariable) -> int:
        """The index of `variable` in the optimizer's slot lists."""
        ...


def restore_state(
    optimizer: _Optimizer,
    variables: Mapping[str, KerasVariable],
    plan: OptimizerPlan,
    reader: CheckpointReader,
) -> dict[str, list[int]]:
    """Sets a built optimizer's slots and iterations from the checkpoint; returns the
    shape of every value set, by checkpoint key.

    Args:
        optimizer: the optimizer, already built on the model's trainable variables.
        variables: model variable (graph name) -> the Keras variable holding it.
        plan: the mapper's plan.
        reader: the open checkpoint.

    Raises:
        TfportInputError: the checkpoint lacks a slot, or a value's shape differs, or TF1
            Adam's beta powers do not match the global step.

    Example:
        >>> with CheckpointReader(path) as reader:  # doctest: +SKIP
        ...     restore_state(model.optimizer, by_name, plan, reader)
    """
    shapes: dict[str, list[int]] = {}
    missing = [k for keys in plan.slots.values() for k in keys.values() if k not in reader]
    missing += [k for k in plan.beta_powers if k not in reader]
    if plan.iterations is not None and plan.iterations not in reader:
        missing.append(plan.iterations)
    if missing:
        raise TfportInputError(
            message(
                "The checkpoint lacks the optimizer's state",
                "Pass a checkpoint the Estimator wrote while training (--checkpoint)",
                checkpoint=reader.prefix,
                missing=missing,
            )
        )
    for name, keys in plan.slots.items():
        index = optimizer._get_variable_index(variables[name])
        for attribute, key in keys.items():
            slot = getattr(optimizer, attribute)[index]
            value = np.asarray(reader.read(key))
            if tuple(slot.shape) != value.shape:
                raise TfportInputError(
                    message(
                        "An optimizer slot's shape differs from the checkpoint's",
                        "Export with the checkpoint of this model_fn",
                        key=key,
                        checkpoint=list(value.shape),
                        keras=list(slot.shape),
                    )
                )
            slot.assign(value)
            shapes[key] = list(value.shape)
    for name, values in plan.values.items():
        index = optimizer._get_variable_index(variables[name])
        for attribute, number in values.items():
            getattr(optimizer, attribute)[index].assign(number)
    if plan.iterations is not None:
        step = int(np.asarray(reader.read(plan.iterations)))
        optimizer.iterations.assign(step)
        shapes[plan.iterations] = []
        _check_powers(plan, reader, step)
    return shapes


def _beta_power(beta: np.float32, step: int) -> np.float32:
    """TF1's `beta_power` after `step` steps: float32 `beta` times itself, once a step."""
    if step > 50_000_000:  # past what is worth multiplying out
        return np.float32(np.float64(beta) ** (step + 1))
    return np.multiply.accumulate(np.full(max(step, 0) + 1, beta, np.float32))[-1]


def _check_powers(plan: OptimizerPlan, reader: CheckpointReader, step: int) -> None:
    """Refuses a TF1 Adam whose beta powers are not `beta ** (step + 1)` (a global step
    that the train op did not advance once per update)."""
    for key, beta in plan.beta_powers.items():
        power = np.float32(np.asarray(reader.read(key)))
        expected = _beta_power(np.float32(beta), step)
        if not np.isclose(power, expected, rtol=1e-6, atol=0.0):
            raise TfportInputError(
                message(
                    "TF1 Adam's beta power is not beta ** (global step + 1): Keras's bias "
                    "correction from the step would differ",
                    "Export a checkpoint whose global step counts Adam's updates",
                    key=key,
                    checkpoint=float(power),
                    expected=float(expected),
                    step=step,
                )
            )
