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
from typing import TypeAlias, cast

import numpy as np

from tfport._common.errors import message
from tfport.checkpoint import _slots
from tfport.checkpoint._errors import CheckpointError
from tfport.checkpoint._inspect import VarInfo, classify
from tfport.checkpoint._reader import CheckpointReader

_PIECE = re.compile(r"^(?P<var>.+?)/(?:part|t)_(?P<n>\d+)/(?P<slot>[A-Za-z]+(?:_\d+)?)$")
_PART = re.compile(r"^(?P<base>.+)/part_(?P<n>\d+)$")
#: `hyper(keras_opt, variable) -> {name: (value, source)}`: the hyperparameters to write.
HyperSource: TypeAlias = Callable[[str, str], dict[str, tuple[float, str]]]


@dataclasses.dataclass
class Step:
    """One output tensor: from `sources` (concatenated on axis 0) or from `value`."""

    out: str
    sources: list[str] = dataclasses.field(default_factory=list)
    value: np.ndarray | np.generic | None = None
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


def _hyper_note(value: float, source: str) -> str:
    """Where a computed hyperparameter's value comes from, for the report.

    Example:
        >>> _hyper_note(0.05, "graph"), _hyper_note(0.0, "default")
        ('0.05 (from the graph)', '0 (the Keras default)')
    """
    where = {"graph": "from the graph", "default": "the Keras default"}.get(source, source)
    return f"{float(value):g} ({where})"


def _step_of(reader: CheckpointReader) -> int:
    for name in ("global_step", "estimator_global_step/.ATTRIBUTES/VARIABLE_VALUE"):
        if name in reader.entries:
            return int(_scalar(reader, name, integer=True))
    raise CheckpointError(
        message(
            f"Checkpoint {reader.prefix} has Adam slots but no global_step",
            "Adam's beta powers need the step count; add global_step or convert without Adam",
            checkpoint=reader.prefix,
        )
    )


def _scalar(reader: CheckpointReader, name: str, integer: bool = False) -> np.generic:
    """The one value of a bookkeeping tensor (global_step, beta powers...), checked: one
    element, a number of the right kind, finite."""
    entry = reader.entry(name)
    kind = "an integer" if integer else "a float"
    bad = None
    if int(np.prod(entry.shape, dtype=np.int64)) != 1:
        bad = f"has shape {list(entry.shape)}, not one value"
    elif entry.dtype.name == "string" or entry.dtype.to_numpy().kind not in (
        "iu" if integer else "f"
    ):
        bad = f"is {entry.dtype.name}, not {kind}"
    if bad is None:
        value = np.asarray(reader.read(name)).reshape(-1)[0]
        if not integer and not np.isfinite(value):
            bad = f"is {value}, not a finite number"
        elif integer and value < 0:
            bad = f"is {value}, a negative step count"
        else:
            return value
    raise CheckpointError(
        message(
            f"{name} in {reader.prefix} {bad}",
            "The checkpoint is damaged or not a TF1 training checkpoint; fix that tensor",
            name=name,
            dtype=entry.dtype.name,
            shape=list(entry.shape),
        )
    )


def _parts(reader: CheckpointReader, pieces: list[tuple[int, str]], what: str) -> list[str]:
    """The names of `pieces` in order, refused unless numbered 0..n-1 with one dtype."""
    pieces = sorted(pieces)
    numbers = [n for n, _ in pieces]
    names = [n for _, n in pieces]
    if numbers != list(range(len(numbers))) and not (len(numbers) == 1 and "part_" not in names[0]):
        raise CheckpointError(
            message(
                f"The pieces of {what} are numbered {numbers}: some are missing",
                "Convert a complete checkpoint (every part_N from 0 on)",
                pieces=names,
            )
        )
    dtypes = sorted({reader.entry(n).dtype.name for n in names})
    if len(dtypes) > 1:
        raise CheckpointError(
            message(
                f"The pieces of {what} have different dtypes {dtypes}: they cannot be merged",
                "Convert a checkpoint whose pieces share one dtype",
                pieces={n: reader.entry(n).dtype.name for n in names},
            )
        )
    return names


def _variable_parts(reader: CheckpointReader, var: str) -> list[str] | None:
    """`var/part_0`, `var/part_1`... when `var` is stored in pieces, else None."""
    pieces = [
        (int(m["n"]), n)
        for n in reader.entries
        if (m := _PART.match(n)) is not None and m["base"] == var
    ]
    return _parts(reader, pieces, f"variable {var!r}") if pieces else None


def _ordered_pieces(
    reader: CheckpointReader,
    pieces: list[tuple[int, str]],
    full: tuple[int, ...],
    var_parts: list[str] | None = None,
    what: str = "a slot",
) -> list[str]:
    names = _parts(reader, pieces, what)
    shapes = [reader.entry(n).shape for n in names]
    if var_parts is not None and len(names) == len(var_parts):
        wanted = [reader.entry(n).shape for n in var_parts]
        if shapes == wanted:
            return names
    elif len(names) == 1 and shapes[0] == full:
        return names
    elif all(s[1:] == full[1:] for s in shapes) and sum(s[0] for s in shapes if s) == full[0]:
        if var_parts is None:
            return names
    raise CheckpointError(
        message(
            f"The pieces {names} of {what} do not tile their variable"
            + (f" (pieces {[list(reader.entry(n).shape) for n in var_parts]})" if var_parts else "")
            + f" of shape {list(full)}",
            "Convert a checkpoint whose slots match their variables piece for piece",
            shapes=[list(s) for s in shapes],
        )
    )


def plan_v1_to_keras(reader: CheckpointReader, hyper: HyperSource | None = None) -> Plan:
    """TF1 slot names -> `training/<KerasOpt>/<var>/<slot>`; beta powers -> beta_1/beta_2.

    Args:
        reader: the source checkpoint.
        hyper: `hyper(keras_opt, variable) -> {name: (value, source)}`, the
            hyperparameters to write for the optimizer updating `variable`.
    """
    plan = Plan()
    _refuse_orphan_slot_pieces(reader)
    infos = classify(reader.names())
    slot_pieces: dict[str, list[tuple[int, str]]] = {}
    slot_meta: dict[str, tuple[str, str, int, str]] = {}
    counts: dict[tuple[str, str], set[int]] = {}
    for name, info in infos.items():
        if info.group != "optimizer_slots" or info.naming != "tf1":
            continue
        variable, optimizer = cast(str, info.variable), cast(str, info.optimizer)
        index = _slots.v1_slot_index(cast(str, info.slot))
        counts.setdefault((variable, optimizer), set()).add(index)
        piece = _PIECE.match(name)
        key = f"{variable}\0{optimizer}\0{index}"
        slot_pieces.setdefault(key, []).append((int(piece["n"]) if piece else 0, name))
        slot_meta[key] = (variable, optimizer, index, name)
    used_opts: dict[str, str] = {}
    for key, pieces in sorted(slot_pieces.items()):
        var, v1_opt, index, _ = slot_meta[key]
        count = len(counts[(var, v1_opt)])
        slot = _slots.keras_slot_for_v1(v1_opt, index, count)
        keras_opt = _slots.V1_TO_KERAS[v1_opt]
        used_opts.setdefault(keras_opt, var)
        var_parts = None if var in reader.entries else _variable_parts(reader, var)
        full = _full_shape(reader, var, var_parts)
        what = f"slot {_slots.v1_slot_name(var, v1_opt, index)!r}"
        sources = _ordered_pieces(reader, pieces, full, var_parts, what)
        plan.add(Step(f"training/{keras_opt}/{var}/{slot}", sources))
    if not slot_pieces:
        plan.warnings.append("no TF1 optimizer slots found; tensors copied unchanged")
    _plain_v1_names(reader, infos, plan, used_opts)
    _keras_hyper(reader, plan, used_opts, hyper)
    return plan


def _refuse_orphan_slot_pieces(reader: CheckpointReader) -> None:
    """A slot of `w/part_N` whose piece `w/part_N` is missing while other pieces of `w`
    are there: a part is missing (converting the rest would give a shorter variable)."""
    bases = {m["base"] for n in reader.entries if (m := _PART.match(n))}
    for name in reader.entries:
        piece = _PIECE.match(name)
        if not piece or name.split("/")[-2].startswith("t_"):
            continue
        opt = piece["slot"].rpartition("_")[0] if piece["slot"][-1].isdigit() else piece["slot"]
        own = f"{piece['var']}/part_{piece['n']}"
        if opt in _slots.V1_SLOTS and own not in reader.entries and piece["var"] in bases:
            raise CheckpointError(
                message(
                    f"Slot {name!r} has no variable piece {own!r}: a part is missing",
                    "Convert a complete checkpoint (every part_N of every variable)",
                    slot=name,
                )
            )


def _full_shape(reader: CheckpointReader, var: str, parts: list[str] | None) -> tuple[int, ...]:
    if parts is None:
        return reader.entry(var).shape
    shapes = [reader.entry(n).shape for n in parts]
    if not all(shapes) or len({s[1:] for s in shapes}) != 1:
        raise CheckpointError(
            message(
                f"The pieces of variable {var!r} do not stack along axis 0, so their slots "
                "cannot be merged either",
                "Merge the variable with TensorFlow first",
                shapes=[list(s) for s in shapes],
            )
        )
    return (sum(s[0] for s in shapes),) + tuple(shapes[0][1:])


def _plain_v1_names(
    reader: CheckpointReader, infos: dict[str, VarInfo], plan: Plan, used_opts: dict[str, str]
) -> None:
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
        names = _parts(reader, pieces, f"variable {base!r}")
        if len(names) > 1:
            tails = {reader.entry(n).shape[1:] for n in names}
            if len(tails) != 1 or not reader.entry(names[0]).shape:
                plan.warnings.append(f"{base}: part_N pieces not mergeable on axis 0; kept")
                for n in names:
                    plan.add(Step(n, [n]))
                continue
        plan.add(Step(base, names, note="merged partitions"))


def _keras_hyper(
    reader: CheckpointReader, plan: Plan, used_opts: dict[str, str], hyper: HyperSource | None
) -> None:
    if "Adam" in used_opts:
        step = _step_of(reader)
        for power, beta in (("beta1_power", "beta_1"), ("beta2_power", "beta_2")):
            if power not in reader.entries:
                continue
            beta_value, exact = _slots.beta_from_power(_scalar(reader, power), step)
            plan.add(Step(f"training/Adam/{beta}", value=np.float32(beta_value), note=power))
            plan.hyperparameters[f"training/Adam/{beta}"] = "checkpoint"
            if not exact:
                plan.warnings.append(
                    f"{power}: no float32 beta reproduces it after {step} steps; "
                    "Keras -> TF1 will not be bit-exact"
                )
    if hyper is None:
        return
    for keras_opt, var in sorted(used_opts.items()):
        for key, (value, source) in sorted(hyper(keras_opt, var).items()):
            out = f"training/{keras_opt}/{key}"
            if out in plan.hyperparameters:
                continue
            dtype = np.int64 if key == "iter" else np.float32
            plan.add(Step(out, value=np.asarray(value, dtype), note=_hyper_note(value, source)))
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
            key = (cast(str, info.optimizer), cast(str, info.variable))
            present.setdefault(key, set()).add(cast(str, info.slot))
    if not present:
        plan.warnings.append("no Keras optimizer slots found; tensors copied unchanged")
    for name, info in sorted(infos.items()):
        if info.group == "optimizer_slots" and info.naming == "keras":
            if info.slot == "vhat":
                raise CheckpointError(
                    message("AMSGrad's vhat slot has no TF1 equivalent", None, name=name)
                )
            optimizer, variable = cast(str, info.optimizer), cast(str, info.variable)
            slots = present[(optimizer, variable)]
            v1_opt, index = _slots.v1_index_for_keras(optimizer, cast(str, info.slot), slots)
            plan.add(Step(_slots.v1_slot_name(variable, v1_opt, index), [name]))
            if info.optimizer == "RMSprop" and "momentum" not in slots and info.slot == "rms":
                entry = reader.entry(name)
                zeros = np.zeros(entry.shape, entry.dtype.to_numpy())
                momentum_index = 2 if "mg" in slots else 1
                out = _slots.v1_slot_name(variable, "RMSProp", momentum_index)
                plan.add(Step(out, value=zeros, note="TF1 RMSProp always has a momentum slot"))
        elif info.naming == "keras" and info.group == "bookkeeping":
            _keras_bookkeeping(reader, name, info, plan)
        else:
            plan.add(Step(name, [name]))
    return plan


def _keras_bookkeeping(reader: CheckpointReader, name: str, info: VarInfo, plan: Plan) -> None:
    hyper = name.rpartition("/")[2]
    if info.optimizer == "Adam" and hyper in ("beta_1", "beta_2"):
        step = _step_of(reader)
        power = _slots.beta_power(np.float32(_scalar(reader, name)), step)
        plan.add(Step(f"beta{hyper[-1]}_power", value=np.float32(power), note=name))
        return
    plan.dropped[name] = "TF1 optimizers keep hyperparameters in the graph, not the checkpoint"
