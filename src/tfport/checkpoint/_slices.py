"""Keys of partitioned-variable slices (TensorFlow's `EncodeTensorNameSlice`).

A name-based checkpoint stores a partitioned variable as one entry under its full
name (full shape, a list of `slices`, no data) plus one entry per slice whose key
is the OrderedCode encoding of (0, name, rank, start_0, length_0, ...), with
length -1 meaning "the whole dimension".

Example:
    >>> slice_key("v", [(0, -1)])[:1]
    b'\\x00'
"""

from __future__ import annotations

import math

import numpy as np

from tfport._common.messages import TensorSliceProto

_HEADER = [
    (0, 0),
    (0x80, 0),
    (0xC0, 0),
    (0xE0, 0),
    (0xF0, 0),
    (0xF8, 0),
    (0xFC, 0),
    (0xFE, 0),
    (0xFF, 0),
    (0xFF, 0x80),
    (0xFF, 0xC0),
]


def _num_increasing(value: int) -> bytes:
    raw = value.to_bytes((value.bit_length() + 7) // 8, "big") if value else b""
    return bytes([len(raw)]) + raw


def _string(value: bytes) -> bytes:
    return value.replace(b"\xff", b"\xff\x00").replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def _signed_increasing(value: int) -> bytes:
    x = ~value if value < 0 else value
    if x < 64:
        return bytes([(_HEADER[1][0] ^ value) & 0xFF])
    length = (x.bit_length() + 7) // 7
    buf = bytearray(value.to_bytes(10, "big", signed=True))
    begin = 10 - length
    buf[begin] ^= _HEADER[length][0]
    buf[begin + 1] ^= _HEADER[length][1]
    return bytes(buf[begin:])


def slice_key(name: str, extents: list[tuple[int, int]]) -> bytes:
    """The index key of one slice of `name`; extents are (start, length or -1)."""
    out = _num_increasing(0) + _string(name.encode()) + _num_increasing(len(extents))
    for start, length in extents:
        out += _signed_increasing(start) + _signed_increasing(length)
    return out


def extents_of(slice_proto: TensorSliceProto) -> list[tuple[int, int]]:
    """(start, length or -1) per extent of a TensorSliceProto."""
    return [(e.start, e.length if e.HasField("length") else -1) for e in slice_proto.extent]


def to_index(extents: list[tuple[int, int]], shape: tuple[int, ...]) -> tuple[slice, ...]:
    """The numpy index of a slice in the full tensor (missing or -1 extents are whole).

    Raises:
        ValueError: when the slice does not fit in `shape`.
    """
    if len(extents) > len(shape):
        raise ValueError(f"slice of rank {len(extents)} for a tensor of rank {len(shape)}")
    out = []
    for dim, size in enumerate(shape):
        start, length = extents[dim] if dim < len(extents) else (0, -1)
        length = size - start if length == -1 else length
        if start < 0 or length < 0 or start + length > size:
            raise ValueError(f"extent ({start}, {length}) outside dimension {dim} of {size}")
        out.append(slice(start, start + length))
    return tuple(out)


_MAX_GRID_CELLS = 1 << 22
_MAX_PAIRWISE = 20_000


def tiling_problem(boxes: list[tuple[slice, ...]], shape: tuple[int, ...]) -> str | None:
    """Why the slices `boxes` do not tile `shape` exactly (overlap or gap), or None if they do.

    Works on the grid of all slice boundaries (linear in the slices for the usual
    partitionings along one axis); pairwise only where that grid would be huge.

    Example:
        >>> tiling_problem([(slice(0, 2),), (slice(0, 2),)], (4,))
        'slices overlap (elements stored twice) and leave a gap (elements never stored)'
        >>> tiling_problem([(slice(0, 2),), (slice(2, 4),)], (4,)) is None
        True
    """
    total = math.prod(shape)
    volume = sum(math.prod(s.stop - s.start for s in box) for box in boxes)
    if not shape or total == 0:
        # Scalars hold one slice; empty tensors hold nothing to tile.
        return None if len(boxes) == 1 or total == 0 else "a scalar lists several slices"
    bounds = [sorted({0, size, *(b[d].start for b in boxes), *(b[d].stop for b in boxes)})
              for d, size in enumerate(shape)]  # fmt: skip
    cells = math.prod(len(b) - 1 for b in bounds)
    if cells <= _MAX_GRID_CELLS and len(shape) <= 32:
        where = [{v: i for i, v in enumerate(b)} for b in bounds]
        grid = np.zeros([len(b) - 1 for b in bounds], np.int64)
        for box in boxes:
            grid[tuple(slice(w[s.start], w[s.stop]) for w, s in zip(where, box, strict=True))] += 1
        over, gap = bool((grid > 1).any()), bool((grid == 0).any())
    elif len(boxes) <= _MAX_PAIRWISE:
        starts = np.array([[s.start for s in b] for b in boxes], np.int64)
        stops = np.array([[s.stop for s in b] for b in boxes], np.int64)
        nonempty = (stops > starts).all(axis=1)
        over = False
        for i in np.flatnonzero(nonempty):
            hit = np.maximum(starts[i], starts[i + 1 :]) < np.minimum(stops[i], stops[i + 1 :])
            if hit.all(axis=1).any():
                over = True
                break
        gap = not over and volume != total
    else:
        return f"{len(boxes)} slices is over tfport's limit of {_MAX_PAIRWISE}"
    if over and gap:
        return "slices overlap (elements stored twice) and leave a gap (elements never stored)"
    if over:
        return "slices overlap (elements stored twice)"
    if gap:
        return "slices leave a gap (elements never stored)"
    return None
