"""TensorFlow `DataType` enum values, names, item sizes and numpy dtypes (no TF import).

Example:
    >>> DTYPES[1].name, DTYPES[1].itemsize
    ('float32', 4)
"""

from __future__ import annotations

import dataclasses

import numpy as np

STRING = 7


@dataclasses.dataclass(frozen=True)
class DType:
    """One TensorFlow dtype: its enum value, name, bytes per item (0 = variable)."""

    enum: int
    name: str
    itemsize: int
    numpy: str | None  # numpy dtype string, or the ml_dtypes name

    def to_numpy(self) -> np.dtype:
        """The numpy dtype holding this TF dtype's little-endian bytes."""
        if self.numpy in ("bfloat16", "float8_e5m2", "float8_e4m3fn"):
            import ml_dtypes  # ships with TensorFlow's dependencies; numpy-only

            return np.dtype(getattr(ml_dtypes, self.numpy))
        if self.numpy is None:
            return np.dtype(f"V{self.itemsize}")
        return np.dtype(self.numpy)


_TABLE = [
    (1, "float32", 4, "<f4"),
    (2, "float64", 8, "<f8"),
    (3, "int32", 4, "<i4"),
    (4, "uint8", 1, "u1"),
    (5, "int16", 2, "<i2"),
    (6, "int8", 1, "i1"),
    (STRING, "string", 0, "O"),
    (8, "complex64", 8, "<c8"),
    (9, "int64", 8, "<i8"),
    (10, "bool", 1, "?"),
    (11, "qint8", 1, "i1"),
    (12, "quint8", 1, "u1"),
    (13, "qint32", 4, "<i4"),
    (14, "bfloat16", 2, "bfloat16"),
    (15, "qint16", 2, "<i2"),
    (16, "quint16", 2, "<u2"),
    (17, "uint16", 2, "<u2"),
    (18, "complex128", 16, "<c16"),
    (19, "float16", 2, "<f2"),
    (22, "uint32", 4, "<u4"),
    (23, "uint64", 8, "<u8"),
    (24, "float8_e5m2", 1, "float8_e5m2"),
    (25, "float8_e4m3fn", 1, "float8_e4m3fn"),
]
DTYPES: dict[int, DType] = {e: DType(e, n, s, d) for e, n, s, d in _TABLE}
BY_NAME: dict[str, DType] = {d.name: d for d in DTYPES.values()}


def from_numpy(dtype: np.dtype) -> DType:
    """The TF dtype for a numpy dtype (object/bytes arrays map to string).

    Raises:
        ValueError: for a numpy dtype TensorFlow cannot store.
    """
    dtype = np.dtype(dtype)
    if dtype.kind in ("O", "S", "U"):
        return DTYPES[STRING]
    name = {"float32": "float32"}.get(dtype.name, dtype.name)
    if name in BY_NAME:
        return BY_NAME[name]
    raise ValueError(f"numpy dtype {dtype} has no TensorFlow equivalent")
