"""Conversion plans: which output tensor comes from which input tensors (no I/O here).

A plan is a list of `Step`s, each producing one output tensor by streaming one
input (rename), concatenating `part_N` pieces along axis 0 (merge), or from a
small computed value (hyperparameters, Adam's beta). `_convert` executes plans.

Example:
    >>> Step("w", sources=["w/part_0", "w/part_1"]).kind
    'merge'
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

import numpy as np

from tfport._common.errors import message
from tfport.checkpoint import _slots
from tfport.checkpoint._errors import CheckpointError
from tfport.checkpoint._inspect import classify
from tfport.checkpoint._reader import CheckpointReader

_PIECE = re.compile(r"^(?P<var>.+?)/(?:part|t)_(?P<n>\d+)/(?P<slot>[A-Za-z]+(?:_\d+)?)$")
_PART = re.compile(r"^(?P<base>.+)/part_(?P<n>\d+)$")


@dataclasses.dataclass
class Step:
    """One output tensor: from `sources` (concatenated on axis 0) or from `value`."""

    out: str
    sources: list[str] = dataclasses.field(default_factory=list)
    value: np.ndarray | None = None
    note: str = ""

    @property
    def kind(self) -> str:
        if self.value is not None:
            return "computed"
        return "merge" if len(self.sources) > 1 else "copy"


@dataclasses.dataclass
class Plan:
    """The steps plus what the user must know (dropped names, hyperparameter sources)."""

    steps: list[Step] = dataclasses.field(default_factory=list)
    dropped: dict[str, str] = dataclasses.field(default_factory=dict)
    hyperparameters: dict[str, str] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)

    _outs: set[str] = dataclasses.field(default_factory=set, repr=False)

    def add(self, step: Step) -> None:
        """Appends `step`; two steps may not write the same name (O(1) per step)."""
        if step.out in self._outs:
            raise CheckpointError(
                message(f"Two inputs convert to the same name {step.out!r}", None, out=step.out)
            )
        self._outs.add(step.out)
        self.steps.append(step)


def _step_of(reader: CheckpointReader) -> int:
    for name in ("global_step", "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"):
        if name in reader.entries:
            return int(np.asarray(reader.read(name)).reshape(-1)[0])
    raise CheckpointError(
        message(
            f"Checkpoint {reader.prefix} has Adam slots but no global_step",
            "Adam's beta powers need the step count; add global_step or convert without Adam",
        )
    )


def _ordered_pieces(reader: CheckpointReader, names: list[tuple[int, str]], full: tuple):
    names = [n for _, n in sorted(names)]
    shapes = [reader.entry(n).shape for n in names]
    if len(names) == 1 and shapes[0] == full:
        return names
    if all(s[1:] == full[1:] for s in shapes) and sum(s[0] for s in shapes if s) == full[0]:
        return names
    raise CheckpointError(
        message(
            f"Partitions {names} do not tile their variable's shape {list(full)} along axis 0",
            "Merge them with TensorFlow first",
            shapes=[list(s) for s in shapes],
        )
    )


def plan_v1_to_keras(reader: CheckpointReader, hyper: Callable | None = None) -> Plan:
    """TF1 slot names -> `training/<KerasOpt>/<var>/<slot>`; beta powers -> beta_1/beta_2.

    Args:
        reader: the source checkpoint.
        hyper: `hyper(keras_opt, variable) -> {name: (value, source)}`, the
            hyperparameters to write for the optimizer updating `variable`.
    """
    plan = Plan()
    infos = classify(reader.names())
    slot_pieces: dict[str, list[tuple[int, str]]] = {}
    slot_meta: dict[str, tuple[str, str, int, str]] = {}
    counts: dict[tuple[str, str], set[int]] = {}
    for name, info in infos.items():
        if info.group != "optimizer_slots" or info.naming != "tf1":
            continue
        index = _slots.v1_slot_index(info.slot)
        counts.setdefault((info.variable, info.optimizer), set()).add(index)
        piece = _PIECE.match(name)
        key = f"{info.variable}\0{info.optimizer}\0{index}"
        slot_pieces.setdefault(key, []).append((int(piece["n"]) if piece else 0, name))
        slot_meta[key] = (info.variable, info.optimizer, index, name)
    used_opts: dict[str, str] = {}
    for key, pieces in sorted(slot_pieces.items()):
        var, v1_opt, index, _ = slot_meta[key]
        count = len(counts[(var, v1_opt)])
        slot = _slots.keras_slot_for_v1(v1_opt, index, count)
        keras_opt = _slots.V1_TO_KERAS[v1_opt]
        used_opts.setdefault(keras_opt, var)
        full = reader.entry(var).shape
        sources = _ordered_pieces(reader, pieces, full)
        plan.add(Step(f"training/{keras_opt}/{var}/{slot}", sources))
    if not slot_pieces:
        plan.warnings.append("no TF1 optimizer slots found; tensors copied unchanged")
    _plain_v1_names(reader, infos, plan, used_opts)
    _keras_hyper(reader, plan, used_opts, hyper)
    return plan


def _plain_v1_names(reader, infos, plan: Plan, used_opts: dict) -> None:
    merged: dict[str, list[tuple[int, str]]] = {}
    for name, info in infos.items():
        if info.group == "optimizer_slots" and info.naming == "tf1":
            continue
        if name in ("beta1_power", "beta2_power") and "Adam" in used_opts:
            continue
        part = _PART.match(name)
        if part and info.group == "model_weights" and part["base"] not in infos:
            merged.setdefault(part["base"], []).append((int(part["n"]), name))
            continue
        plan.add(Step(name, [name]))
    for base, pieces in merged.items():
        names = [n for _, n in sorted(pieces)]
        if len(names) > 1:
            tails = {reader.entry(n).shape[1:] for n in names}
            if len(tails) != 1 or not reader.entry(names[0]).shape:
                plan.warnings.append(f"{base}: part_N pieces not mergeable on axis 0; kept")
                for n in names:
                    plan.add(Step(n, [n]))
                continue
        plan.add(Step(base, names, note="merged partitions"))


def _keras_hyper(reader, plan: Plan, used_opts: dict, hyper: Callable | None) -> None:
    if "Adam" in used_opts:
        step = _step_of(reader)
        for power, beta in (("beta1_power", "beta_1"), ("beta2_power", "beta_2")):
            if power not in reader.entries:
                continue
            value, exact = _slots.beta_from_power(reader.read(power), step)
            plan.add(Step(f"training/Adam/{beta}", value=np.float32(value), note=power))
            plan.hyperparameters[f"training/Adam/{beta}"] = "checkpoint"
            if not exact:
                plan.warnings.append(
                    f"{power}: no float32 beta reproduces it after {step} steps; "
                    "Keras -> TF1 will not be bit-exact"
                )
    for keras_opt, var in sorted(used_opts.items()) if hyper else ():
        for key, (value, source) in sorted(hyper(keras_opt, var).items()):
            out = f"training/{keras_opt}/{key}"
            if out in plan.hyperparameters:
                continue
            dtype = np.int64 if key == "iter" else np.float32
            plan.add(Step(out, value=np.asarray(value, dtype)))
            plan.hyperparameters[out] = source
            if source == "default" and key != "decay":
                plan.warnings.append(
                    f"{out}: not a constant in the graph; wrote the Keras default {value}"
                )


def plan_keras_to_v1(reader: CheckpointReader) -> Plan:
    """`training/<KerasOpt>/<var>/<slot>` -> TF1 slot names; beta_1/beta_2 -> beta powers."""
    plan = Plan()
    infos = classify(reader.names())
    present: dict[tuple[str, str], set[str]] = {}
    for info in infos.values():
        if info.group == "optimizer_slots" and info.naming == "keras":
            present.setdefault((info.optimizer, info.variable), set()).add(info.slot)
    if not present:
        plan.warnings.append("no Keras optimizer slots found; tensors copied unchanged")
    for name, info in sorted(infos.items()):
        if info.group == "optimizer_slots" and info.naming == "keras":
            if info.slot == "vhat":
                raise CheckpointError(
                    message("AMSGrad's vhat slot has no TF1 equivalent", None, name=name)
                )
            slots = present[(info.optimizer, info.variable)]
            v1_opt, index = _slots.v1_index_for_keras(info.optimizer, info.slot, slots)
            plan.add(Step(_slots.v1_slot_name(info.variable, v1_opt, index), [name]))
            if info.optimizer == "RMSprop" and "momentum" not in slots and info.slot == "rms":
                entry = reader.entry(name)
                zeros = np.zeros(entry.shape, entry.dtype.to_numpy())
                momentum_index = 2 if "mg" in slots else 1
                out = _slots.v1_slot_name(info.variable, "RMSProp", momentum_index)
                plan.add(Step(out, value=zeros, note="TF1 RMSProp always has a momentum slot"))
        elif info.naming == "keras" and info.group == "bookkeeping":
            _keras_bookkeeping(reader, name, info, plan)
        else:
            plan.add(Step(name, [name]))
    return plan


def _keras_bookkeeping(reader, name: str, info, plan: Plan) -> None:
    hyper = name.rpartition("/")[2]
    if info.optimizer == "Adam" and hyper in ("beta_1", "beta_2"):
        step = _step_of(reader)
        power = _slots.beta_power(np.float32(reader.read(name)), step)
        plan.add(Step(f"beta{hyper[-1]}_power", value=np.float32(power), note=name))
        return
    plan.dropped[name] = "TF1 optimizers keep hyperparameters in the graph, not the checkpoint"
