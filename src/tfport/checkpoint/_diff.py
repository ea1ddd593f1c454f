"""Compares two checkpoints tensor by tensor (no TensorFlow).

Example:
    >>> result = diff_checkpoints("a/model.ckpt-0", "a/model.ckpt-40")  # doctest: +SKIP
    >>> result["equal"]  # doctest: +SKIP
    False
"""

from __future__ import annotations

import math

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport.checkpoint._reader import CHUNK, CheckpointReader
from tfport.checkpoint._reports import DiffResult


def _max_abs(a: np.ndarray, b: np.ndarray) -> float | None:
    if a.dtype == object or b.dtype == object:
        return 0.0 if np.array_equal(a, b) else None
    if a.size == 0:
        return 0.0
    if a.dtype.kind in "biu" and b.dtype.kind in "biu":
        return float(np.max(np.abs(a.astype(np.int64) - b.astype(np.int64))))
    x, y = np.atleast_1d(a).astype(np.float64), np.atleast_1d(b).astype(np.float64)
    diff = np.abs(x - y)
    diff[np.isnan(x) & np.isnan(y)] = 0.0
    diff[(x == y) & np.isinf(x)] = 0.0
    return float(np.max(diff))


def _compare(ra: CheckpointReader, rb: CheckpointReader, name: str) -> float | None:
    """Max |a - b|, streamed in aligned chunks for plain numeric tensors."""
    entry = ra.entry(name)
    if entry.slices or rb.entry(name).slices or entry.dtype.name == "string":
        return _max_abs(ra.read(name), rb.read(name))
    dtype = entry.dtype.to_numpy()
    chunk = max(1, CHUNK // entry.dtype.itemsize) * entry.dtype.itemsize
    worst = 0.0
    for a, b in zip(ra.iter_chunks(name, chunk), rb.iter_chunks(name, chunk), strict=True):
        if a == b:
            continue
        delta = _max_abs(np.frombuffer(a, dtype), np.frombuffer(b, dtype))
        if delta is None or np.isnan(delta):
            return delta
        worst = max(worst, delta)
    return worst


def diff_checkpoints(a: str, b: str, atol: float = 0.0) -> DiffResult:
    """Names only in A / only in B, shape or dtype mismatches, max |A - B| per common tensor.

    Args:
        a: first checkpoint (prefix, model_dir or `checkpoint` file).
        b: second checkpoint.
        atol: differences up to `atol` count as equal.

    Returns:
        A JSON-able dict; `equal` is True when nothing differs beyond `atol`.
    """
    if not (isinstance(atol, (int, float)) and math.isfinite(atol) and atol >= 0):
        raise TfportInputError(
            message("--atol must be a finite number >= 0", "Pass e.g. --atol 1e-6", atol=atol)
        )
    with CheckpointReader(a) as ra, CheckpointReader(b) as rb:
        names_a, names_b = set(ra.names()), set(rb.names())
        mismatches, tensors = [], []
        for name in sorted(names_a & names_b):
            ea, eb = ra.entry(name), rb.entry(name)
            if ea.shape != eb.shape or ea.dtype != eb.dtype:
                mismatches.append(
                    {
                        "name": name,
                        "a": {"shape": list(ea.shape), "dtype": ea.dtype.name},
                        "b": {"shape": list(eb.shape), "dtype": eb.dtype.name},
                    }
                )
                continue
            delta = _compare(ra, rb, name)
            differs = delta is None or not delta <= atol
            tensors.append({"name": name, "max_abs_diff": delta, "differs": differs})
        only_a, only_b = sorted(names_a - names_b), sorted(names_b - names_a)
        equal = not (only_a or only_b or mismatches or any(t["differs"] for t in tensors))
        return {
            "a": ra.prefix,
            "b": rb.prefix,
            "atol": atol,
            "only_in_a": only_a,
            "only_in_b": only_b,
            "mismatches": mismatches,
            "tensors": tensors,
            "equal": equal,
        }
