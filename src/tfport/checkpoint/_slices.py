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


def extents_of(slice_proto) -> list[tuple[int, int]]:
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
