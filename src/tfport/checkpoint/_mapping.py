"""Matches checkpoint names onto a model's variables: names, then shapes, then order.

Model variables come as (path, shape) in creation order; checkpoint candidates
are the checkpoint's model weights (slots and bookkeeping excluded). Matching:

1. `name`: equal normalized names (`:0` and `/.ATTRIBUTES/VARIABLE_VALUE`
   dropped), or equal trailing components (`dense/kernel` ~ `model/dense/kernel`)
   when exactly one checkpoint name has them.
2. `shape`: same leaf (`kernel`, `bias`, ...) and a shape no other remaining
   candidate of that leaf has.
3. `order`: the rest, paired in natural name order (`layer_with_weights-2`
   before `-10`, `dense_2` before `dense_10`) within each (leaf, shape) group;
   reported as ambiguous.

A user map `{checkpoint name: model path}` is applied first. Unmatched model
variables and unused checkpoint weights are reported, never dropped silently.

Example:
    >>> m = match([("dense/kernel", (4, 2))], {"hidden/kernel": (4, 2)})
    >>> m.pairs[0]["checkpoint"], m.pairs[0]["how"]
    ('hidden/kernel', 'shape')
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TypeAlias

_ATTR = "/.ATTRIBUTES/VARIABLE_VALUE"
#: {name or path: shape} of what is left to match on one side.
Shapes: TypeAlias = dict[str, tuple[int, ...]]
#: `take(checkpoint name, model path, how)` records a pair.
Take: TypeAlias = Callable[[str, str, str], None]


def normalize(name: str) -> str:
    """Drops `:0`, the object-based attribute suffix and `part_N` tails."""
    name = re.sub(r":\d+$", "", name)
    name = name.removesuffix(_ATTR)
    return re.sub(r"/part_\d+$", "", name)


def _leaf(name: str) -> str:
    # Keras 3 tracks Dense's kernel as `_kernel` in object-based checkpoints.
    return normalize(name).rpartition("/")[2].lstrip("_")


def _order_key(name: str) -> list[int | str]:
    """Natural order: `dense_2` < `dense_10`, `layer_with_weights-2` < `-10`."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


@dataclasses.dataclass
class Match:
    """The outcome: matched pairs, and what is left on each side."""

    pairs: list[dict[str, str]] = dataclasses.field(default_factory=list)
    unmatched_model: list[str] = dataclasses.field(default_factory=list)
    unused_checkpoint: list[str] = dataclasses.field(default_factory=list)
    ambiguous: list[str] = dataclasses.field(default_factory=list)

    def as_map(self) -> dict[str, str]:
        """{checkpoint name: model path} (the `assignment_map`)."""
        return {p["checkpoint"]: p["model"] for p in self.pairs}


def match(
    model_vars: list[tuple[str, tuple[int, ...]]],
    ckpt: dict[str, tuple[int, ...]],
    overrides: dict[str, str] | None = None,
) -> Match:
    """Pairs model variables (path, shape), in creation order, with checkpoint names."""
    result = Match()
    left_model = dict(model_vars)
    order = [p for p, _ in model_vars]
    left_ckpt = dict(ckpt)

    def take(ck: str, path: str, how: str) -> None:
        result.pairs.append({"checkpoint": ck, "model": path, "how": how})
        left_model.pop(path, None)
        left_ckpt.pop(ck, None)

    for ck, path in (overrides or {}).items():
        if ck in left_ckpt and path in left_model:
            take(ck, path, "map")
    _by_name(left_model, left_ckpt, order, take)
    _by_shape(left_model, left_ckpt, order, take)
    _by_order(left_model, left_ckpt, order, take, result)
    for pair in result.pairs:
        if tuple(ckpt[pair["checkpoint"]]) != tuple(dict(model_vars)[pair["model"]]):
            pair["how"] += " (SHAPE MISMATCH)"
            result.ambiguous.append(pair["model"])
    result.unmatched_model = [p for p in order if p in left_model]
    result.unused_checkpoint = sorted(left_ckpt)
    return result


def _by_name(left_model: Shapes, left_ckpt: Shapes, order: list[str], take: Take) -> None:
    by_norm = {normalize(c): c for c in left_ckpt}
    for path in [p for p in order if p in left_model]:
        norm = normalize(path)
        if norm in by_norm and by_norm[norm] in left_ckpt:
            take(by_norm[norm], path, "name")
            continue
        tail = "/".join(norm.split("/")[-2:])
        hits = [c for c in left_ckpt if "/".join(normalize(c).split("/")[-2:]) == tail]
        if len(hits) == 1 and "/" in tail:
            take(hits[0], path, "name")


def _by_shape(left_model: Shapes, left_ckpt: Shapes, order: list[str], take: Take) -> None:
    for path in [p for p in order if p in left_model]:
        key = (_leaf(path), tuple(left_model[path]))
        ck_hits = [c for c in left_ckpt if (_leaf(c), tuple(left_ckpt[c])) == key]
        model_hits = [p for p in left_model if (_leaf(p), tuple(left_model[p])) == key]
        if len(ck_hits) == 1 and len(model_hits) == 1:
            take(ck_hits[0], path, "shape")


def _by_order(
    left_model: Shapes, left_ckpt: Shapes, order: list[str], take: Take, result: Match
) -> None:
    groups: dict[tuple[str, tuple[int, ...]], list[str]] = {}
    for c in sorted(left_ckpt, key=_order_key):
        groups.setdefault((_leaf(c), tuple(left_ckpt[c])), []).append(c)
    for path in [p for p in order if p in left_model]:
        queue = groups.get((_leaf(path), tuple(left_model[path])), [])
        if queue:
            take(queue.pop(0), path, "order")
            result.ambiguous.append(path)
