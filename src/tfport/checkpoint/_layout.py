"""Splitting whole variables back into partitions, as a reference TF1 checkpoint has them.

`--partitions-like REF` makes a converted checkpoint partition its variables the
way REF does: a variable REF stores as TF1 slices (full-name entry + slice
entries, as `tf.compat.v1.train.Saver` writes partitioned variables) is written
with the same slices; one REF stores as `NAME/part_0..k` pieces is split into
those pieces along axis 0. Shapes must agree; other names are written whole.

Example:
    >>> layout = partition_layout({"emb": (10, 3)}, "ref/model.ckpt-0")  # doctest: +SKIP
"""

from __future__ import annotations

import re
from typing import TypeAlias, cast

import numpy as np

from tfport.checkpoint._reader import CheckpointReader
from tfport.checkpoint._writer import CheckpointWriter

#: ("slices", [extents per slice]) or ("parts", [(part name, rows), ...]).
Layout: TypeAlias = tuple[str, list[tuple[str, int]] | list[list[tuple[int, int]]]]

_PART = re.compile(r"^(?P<base>.+)/part_(?P<n>\d+)$")


def partition_layout(outputs: dict[str, tuple[int, ...]], ref: str) -> dict[str, Layout]:
    """{name: ("slices", [extents, ...]) or ("parts", [(part name, rows), ...])}."""
    layout: dict[str, Layout] = {}
    pieces: dict[str, list[tuple[int, str, tuple[int, ...]]]] = {}
    with CheckpointReader(ref) as reader:
        for name, entry in reader.entries.items():
            if entry.slices and outputs.get(name) == entry.shape:
                layout[name] = ("slices", [list(e) for e in entry.slices])
            match = _PART.match(name)
            if match and match["base"] in outputs:
                pieces.setdefault(match["base"], []).append((int(match["n"]), name, entry.shape))
    for base, parts in pieces.items():
        parts.sort()
        full = outputs[base]
        rows = [shape[0] for _, _, shape in parts if shape]
        if (
            len(rows) == len(parts)
            and sum(rows) == full[0]
            and all(shape[1:] == full[1:] for _, _, shape in parts)
        ):
            layout[base] = ("parts", [(name, shape[0]) for _, name, shape in parts])
    return layout


def write_split(writer: CheckpointWriter, name: str, value: np.ndarray, layout: Layout) -> None:
    """Writes `value` under `name` split as `layout` says."""
    kind, spec = layout
    if kind == "parts":
        start = 0
        for part_name, rows in cast("list[tuple[str, int]]", spec):
            writer.add(part_name, value[start : start + rows])
            start += rows
        return
    parts = []
    for extents in cast("list[list[tuple[int, int]]]", spec):
        index = tuple(
            slice(s, (s + n) if n != -1 else value.shape[d]) for d, (s, n) in enumerate(extents)
        )
        parts.append((extents, value[index]))
    writer.add_slices(name, value.shape, parts)
