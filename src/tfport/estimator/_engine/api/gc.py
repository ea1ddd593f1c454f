"""Legacy `gc.py`: choose which export folders to keep (`Path(path, export_version)` lists).

A filter takes a list of `Path`s and returns the ones to keep, sorted.

Example:
    >>> paths = [Path("/e/1", 1), Path("/e/2", 2), Path("/e/3", 3)]
    >>> [p.export_version for p in _largest_export_versions(2)(paths)]
    [2, 3]
"""

from __future__ import annotations

import collections
import heapq
import os
from collections.abc import Callable
from typing import Any

Path = collections.namedtuple("Path", "path export_version")
_Filter = Callable[[list], list]


def _largest_export_versions(n: int) -> _Filter:
    """Keeps the `n` paths with the largest export versions."""

    def keep(paths: list) -> list:
        versioned = [
            (p.export_version, i) for i, p in enumerate(paths) if p.export_version is not None
        ]
        return sorted(paths[i] for _, i in heapq.nlargest(n, versioned))

    return keep


def _one_of_every_n_export_versions(n: int) -> _Filter:
    """Keeps the largest version in each interval `(k*n, (k+1)*n]` of export versions."""

    def keep(paths: list) -> list:
        best: dict[int, Path] = {}
        for p in paths:
            if p.export_version is None:
                continue
            interval = (p.export_version - 1) // n if p.export_version else -1
            if interval not in best or best[interval].export_version < p.export_version:
                best[interval] = p
        return sorted(best.values())

    return keep


def _mod_export_version(n: int) -> _Filter:
    """Keeps the paths whose export version is a multiple of `n`."""

    def keep(paths: list) -> list:
        return sorted(
            p for p in paths if p.export_version is not None and p.export_version % n == 0
        )

    return keep


def _union(lf: _Filter, rf: _Filter) -> _Filter:
    """Keeps what either filter keeps."""

    def keep(paths: list) -> list:
        return sorted(set(lf(paths)) | set(rf(paths)))

    return keep


def _negation(f: _Filter) -> _Filter:
    """Keeps what `f` does not keep."""

    def keep(paths: list) -> list:
        return sorted(set(paths) - set(f(paths)))

    return keep


def _get_paths(base_dir: str | bytes | os.PathLike[str], parser: Callable[[Path], Any]) -> list:
    """`parser(Path(base_dir/name, None))` for each entry of `base_dir`, those not None, sorted."""
    from tfport._common.tfenv import import_tf

    base = os.fspath(base_dir.decode() if isinstance(base_dir, bytes) else base_dir)
    names = import_tf().io.gfile.listdir(base)
    parsed = (parser(Path(os.path.join(base, name.rstrip("/")), None)) for name in names)
    return sorted(p for p in parsed if p)
