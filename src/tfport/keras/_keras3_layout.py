"""Where each Keras 3 variable lives in a graph and in a checkpoint.

Keras 3 variables are eager; an Estimator graph gets its own resource
variables, one per Keras variable, named by the variable's `path`
(`sequential/hidden/kernel`) - the name-based (`checkpoint_format="saver"`)
key. The object-based key follows tf_keras's layout so both Keras versions
share it: `layer_with_weights-<i>/<attribute>/.ATTRIBUTES/VARIABLE_VALUE`,
where `i` counts the model's top-level layers that hold weights and the
attribute is the weight's path inside its layer (`kernel`, `bias`,
`moving_mean`, or `dense/kernel` for a weight of a nested layer).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from typing import Any

from tfport._common.types import KerasLayer, KerasModel, KerasVariable, Variable

ATTR_SUFFIX = ".ATTRIBUTES/VARIABLE_VALUE"


@dataclasses.dataclass(frozen=True)
class Slot:
    """One Keras variable: its graph name and its object path."""

    variable: Any
    graph_name: str
    object_path: tuple[str, ...]

    @property
    def object_key(self) -> str:
        return "/".join((*self.object_path, ATTR_SUFFIX))


def layout(model: KerasModel) -> list[Slot]:
    """Returns a `Slot` for each distinct variable of a Keras 3 model (model.variables order).

    Example:
        >>> [s.object_key for s in layout(model)][:1]  # doctest: +SKIP
        ['layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE']
    """
    paths: dict[int, tuple[str, ...]] = {}
    index = 0
    for layer in model.layers:
        weights = _distinct(layer.weights)
        if not weights:
            continue
        used: set[tuple[str, ...]] = set()
        for var in weights:
            if id(var) in paths:
                continue
            rel = _relative(var, layer)
            paths[id(var)] = _unique((f"layer_with_weights-{index}", *rel), used)
        index += 1
    names: set[str] = set()
    slots = []
    used_root: set[tuple[str, ...]] = set()
    for var in _distinct(model.variables):
        path = paths.get(id(var)) or _unique(tuple(var.path.split("/")), used_root)
        slots.append(Slot(var, _unique_name(var.path, names), path))
    return slots


def _distinct(variables: Iterable[Variable]) -> list:
    seen, out = set(), []
    for var in variables:
        if id(var) not in seen:
            seen.add(id(var))
            out.append(var)
    return out


def _relative(var: KerasVariable, layer: KerasLayer) -> tuple[str, ...]:
    prefix = getattr(layer, "path", layer.name) + "/"
    path = var.path
    rel = path[len(prefix) :] if path.startswith(prefix) else var.name
    return tuple(rel.split("/"))


def _unique(path: tuple[str, ...], used: set) -> tuple[str, ...]:
    candidate, n = path, 0
    while candidate in used:
        n += 1
        candidate = (*path[:-1], f"{path[-1]}_{n}")
    used.add(candidate)
    return candidate


def _unique_name(name: str, used: set) -> str:
    candidate, n = name, 0
    while candidate in used:
        n += 1
        candidate = f"{name}_{n}"
    used.add(candidate)
    return candidate
