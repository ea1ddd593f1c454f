"""What a checkpoint holds: model weights, optimizer slots, bookkeeping (no TensorFlow).

Naming schemes recognised:

* TF1 name-based: slot `<var>[/part_N|/t_N]/<Opt>[_k]` (`Adam`, `Adam_1`,
  `Adagrad`, `Ftrl_1`, `RMSProp_2`, `Momentum`, ...) where `<var>` is itself in
  the checkpoint; bookkeeping `global_step`, `beta1_power`, `beta2_power`.
* Keras / v2-estimator name-based: `training/<Opt>/<var>/<slot>` slots and
  `training/<Opt>/<hyper>` hyperparameters.
* Object-based (TF2 `tf.train.Checkpoint`): `.../.OPTIMIZER_SLOT/<opt>/<slot>/...`,
  `optimizer/...`, `save_counter`, `_CHECKPOINTABLE_OBJECT_GRAPH`.

For object-based checkpoints the object graph is read: each row gets its
`object_path`, and slots get their variable from the graph's slot references.
Variables split in `part_N` siblings are shown whole (TF1 slices are already
whole, see `CheckpointReader`).

Example:
    >>> report = inspect_checkpoint("model_dir")  # doctest: +SKIP
    >>> report["groups"]["optimizer_slots"]  # doctest: +SKIP
"""

from __future__ import annotations

import dataclasses
import re
from typing import Any

from tfport.checkpoint._objgraph import describe
from tfport.checkpoint._reader import OBJECT_GRAPH_KEY, CheckpointReader
from tfport.checkpoint._reports import InspectReport
from tfport.checkpoint._slots import KERAS_SLOTS, V1_SLOTS

_BOOKKEEPING = re.compile(
    r"(^|/)(global_step|beta1_power|beta2_power|save_counter|iter|iterations"
    r"|estimator_global_step)(/\.ATTRIBUTES/VARIABLE_VALUE)?$"
)
_V1_SLOT = re.compile(
    r"^(?P<var>.+?)(?P<part>/(?:part|t)_\d+)?/(?P<slot>(?P<opt>[A-Za-z]+)(?:_\d+)?)$"
)
_KERAS = re.compile(r"^training/(?P<opt>[A-Za-z]+)/(?P<rest>.+)$")
_OBJ_SLOT = re.compile(r"^(?P<var>.+)/\.OPTIMIZER_SLOT/(?P<opt>[^/]+)/(?P<slot>[^/]+)/")
_PART = re.compile(r"^(?P<base>.+)/part_(?P<n>\d+)$")
_OBJ_SLOT_OPT = {"m": "Adam", "v": "Adam", "vhat": "Adam", "momentum": "SGD", "rms": "RMSprop"}


@dataclasses.dataclass
class VarInfo:
    """How one checkpoint name is classified."""

    name: str
    group: str  # "model_weights" | "optimizer_slots" | "bookkeeping"
    optimizer: str | None = None
    slot: str | None = None
    variable: str | None = None  # the model variable a slot belongs to
    naming: str | None = None  # "tf1" | "keras" | "object"


def classify(names: list[str]) -> dict[str, VarInfo]:
    """Classifies every name of a checkpoint (see the module docstring)."""
    known = set(names)
    out = {}
    for name in names:
        out[name] = _classify_one(name, known)
    return out


def _classify_one(name: str, known: set[str]) -> VarInfo:
    if name == OBJECT_GRAPH_KEY or _BOOKKEEPING.search(name):
        return VarInfo(name, "bookkeeping")
    match = _OBJ_SLOT.match(name)
    if match:
        opt = _OBJ_SLOT_OPT.get(match["slot"], match["opt"])
        var = match["var"] + "/.ATTRIBUTES/VARIABLE_VALUE"
        return VarInfo(name, "optimizer_slots", opt, match["slot"], var, "object")
    if name.startswith("optimizer/"):
        return VarInfo(name, "bookkeeping", naming="object")
    match = _KERAS.match(name)
    if match:
        var, _, slot = match["rest"].rpartition("/")
        if var in known and slot in KERAS_SLOTS.get(match["opt"], ()):
            return VarInfo(name, "optimizer_slots", match["opt"], slot, var, "keras")
        return VarInfo(name, "bookkeeping", match["opt"], naming="keras")
    match = _V1_SLOT.match(name)
    if match and match["opt"] in V1_SLOTS and _v1_variable_known(match, known):
        return VarInfo(name, "optimizer_slots", match["opt"], match["slot"], match["var"], "tf1")
    return VarInfo(name, "model_weights")


def _v1_variable_known(match: re.Match[str], known: set[str]) -> bool:
    """The slot's variable is stored whole (`w`) or, for a slot of a piece (`w/part_0/Adam`),
    as that piece (`w/part_0`)."""
    var, part = match["var"], match["part"]
    return var in known or bool(part and var + part in known)


def _partition_groups(names: list[str], shapes: dict[str, list[int]]) -> dict[str, list[str]]:
    groups: dict[str, list[tuple[int, str]]] = {}
    for name in names:
        match = _PART.match(name)
        if match:
            groups.setdefault(match["base"], []).append((int(match["n"]), name))
    out = {}
    for base, parts in groups.items():
        parts.sort()
        if [n for n, _ in parts] == list(range(len(parts))) and len(parts) > 1:
            tails = {tuple(shapes[p][1:]) for _, p in parts}
            if len(tails) == 1 and all(shapes[p] for _, p in parts):
                out[base] = [p for _, p in parts]
    return out


def inspect_checkpoint(path: str) -> InspectReport:
    """Returns a JSON-able description of the checkpoint at `path`.

    Keys: `prefix`, `format` ("name-based"/"object-based"), `num_shards`,
    `variables` (name, shape, dtype, bytes, group, optimizer, slot, variable,
    naming, partitions), `groups` (count and bytes per group), `optimizers`.
    """
    with CheckpointReader(path) as reader:
        entries = reader.entries
        names = reader.names()
        shapes = {n: list(e.shape) for n, e in entries.items()}
        merged = _partition_groups(names, shapes)
        hidden = {p for parts in merged.values() for p in parts}
        infos = classify([n for n in names if n not in hidden] + sorted(merged))
        paths, slots = describe(reader.object_graph())
        for key, (variable, slot) in slots.items():
            if key in infos:  # the object graph is authoritative for slots
                info = infos[key]
                info.group, info.variable, info.slot, info.naming = (
                    "optimizer_slots",
                    variable,
                    slot,
                    "object",
                )
        rows = []
        for name, info in sorted(infos.items()):
            parts = merged.get(name)
            if parts:
                shape = [sum(shapes[p][0] for p in parts)] + shapes[parts[0]][1:]
                entry = entries[parts[0]]
                nbytes = sum(entries[p].nbytes for p in parts)
                num_parts = len(parts)
            else:
                entry = entries[name]
                shape, nbytes = list(entry.shape), entry.nbytes
                num_parts = len(entry.slices) or 1
            row = dataclasses.asdict(info)
            row.update(shape=shape, dtype=entry.dtype.name, bytes=nbytes, partitions=num_parts)
            row["object_path"] = paths.get(name)
            rows.append(row)
        return _summary(reader, rows)


def _summary(reader: CheckpointReader, rows: list[dict[str, Any]]) -> InspectReport:
    groups = {
        g: {"count": 0, "bytes": 0} for g in ("model_weights", "optimizer_slots", "bookkeeping")
    }
    optimizers: dict[tuple[str, str], int] = {}
    for row in rows:
        groups[row["group"]]["count"] += 1
        groups[row["group"]]["bytes"] += row["bytes"]
        if row["group"] == "optimizer_slots":
            key = (row["optimizer"], row["naming"])
            optimizers[key] = optimizers.get(key, 0) + 1
    return {
        "prefix": reader.prefix,
        "format": "object-based" if OBJECT_GRAPH_KEY in reader.entries else "name-based",
        "num_shards": reader.num_shards,
        "variables": rows,
        "groups": groups,
        "optimizers": [
            {"optimizer": opt, "naming": naming, "slots": n}
            for (opt, naming), n in sorted(optimizers.items(), key=str)
        ],
        "total_bytes": sum(r["bytes"] for r in rows),
    }
