"""Pure-Python LevelDB-format SSTable, as TensorFlow writes checkpoint `.index` files.

Layout (``tensorflow/core/lib/io/table_builder.cc``): data blocks (prefix-compressed
entries with restart points every 16 keys), an empty meta-index block, an index
block (restart every key) mapping a separator key to each data block's handle,
then a 48-byte footer (two block handles padded to 40 bytes, magic
``0xdb4775248b80fb57``). Every block is followed by a type byte (0 raw, 1 snappy)
and the masked crc32c of block + type. The writer reproduces TensorFlow's bytes.

Example:
    >>> data = build_table([(b"a", b"1"), (b"b", b"2")])
    >>> read_table(data, "mem")
    [(b'a', b'1'), (b'b', b'2')]
"""

from __future__ import annotations

import os
import struct

import google_crc32c

from tfport._common.errors import message
from tfport.checkpoint._errors import CorruptCheckpointError, UnsupportedCheckpointError

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_SIZE = 262144  # tensorflow::table::Options::block_size
RESTART_INTERVAL = 16
_MASK_DELTA = 0xA282EAD8


def mask_crc(crc: int) -> int:
    """Masks a crc32c the way TensorFlow/LevelDB store it."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def crc32c(data: bytes, crc: int = 0) -> int:
    """crc32c of `data`, continuing from `crc`."""
    return google_crc32c.extend(crc, data)


def put_varint(value: int) -> bytes:
    """Encodes a non-negative int as a LEB128 varint."""
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def get_varint(buf: bytes | memoryview, pos: int, where: str, limit: int = 64) -> tuple[int, int]:
    """Decodes a varint at `pos`; returns (value, next position)."""
    result = shift = 0
    end = len(buf)
    while True:
        if pos >= end or shift >= limit:
            raise _corrupt(where, "a varint runs past the end of its block")
        byte = buf[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _corrupt(where: str, what: str) -> CorruptCheckpointError:
    return CorruptCheckpointError(
        message(
            f"Checkpoint index {where} is corrupt: {what}",
            "Restore the file from a good copy; a truncated or edited .index cannot be read",
            path=where,
        )
    )


# ----------------------------------------------------------------------------- reading


def read_table(data: bytes, where: str) -> list[tuple[bytes, bytes]]:
    """Parses a whole SSTable held in memory; returns its (key, value) pairs in order.

    Raises:
        CorruptCheckpointError: on a bad footer, handle, checksum or block.
    """
    if len(data) < FOOTER_SIZE:
        raise _corrupt(where, f"{len(data)} bytes is shorter than the 48-byte footer")
    footer = data[-FOOTER_SIZE:]
    lo, hi = struct.unpack_from("<II", footer, 40)
    if (hi << 32) | lo != MAGIC:
        raise _corrupt(where, "bad magic number (not a TensorFlow checkpoint index)")
    _, pos = get_varint(footer, 0, where)  # meta-index handle: unused
    _, pos = get_varint(footer, pos, where)
    index_off, pos = get_varint(footer, pos, where)
    index_size, _ = get_varint(footer, pos, where)
    index = _read_block(data, index_off, index_size, where)
    out: list[tuple[bytes, bytes]] = []
    for _, handle in _block_entries(index, where):
        off, p = get_varint(handle, 0, where)
        size, _ = get_varint(handle, p, where)
        out.extend(_block_entries(_read_block(data, off, size, where), where))
    for (a, _), (b, _) in zip(out, out[1:]):
        if a >= b:
            raise _corrupt(where, "keys are not in increasing order")
    return out


def _read_block(data: bytes, offset: int, size: int, where: str) -> bytes:
    end = offset + size + 5
    if end > len(data) - FOOTER_SIZE:
        raise _corrupt(where, f"block [{offset}, {end}) lies past the end of the file")
    contents = data[offset : offset + size]
    kind = data[offset + size]
    (stored,) = struct.unpack_from("<I", data, offset + size + 1)
    if mask_crc(crc32c(bytes([kind]), crc32c(contents))) != stored:
        raise _corrupt(where, f"block at offset {offset} fails its crc32c check")
    if kind == 0:
        return contents
    if kind == 1:
        return snappy_decompress(contents, where)
    raise UnsupportedCheckpointError(
        message(f"Checkpoint index {where} uses unknown block compression {kind}", None)
    )


def _block_entries(block: bytes, where: str) -> list[tuple[bytes, bytes]]:
    if len(block) < 4:
        raise _corrupt(where, "block too short for its restart count")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    limit = len(block) - 4 - 4 * num_restarts
    if num_restarts < 1 or limit < 0:
        raise _corrupt(where, f"block restart count {num_restarts} does not fit the block")
    entries, pos, key = [], 0, b""
    while pos < limit:
        shared, pos = get_varint(block, pos, where, 35)
        unshared, pos = get_varint(block, pos, where, 35)
        vlen, pos = get_varint(block, pos, where, 35)
        if shared > len(key) or pos + unshared + vlen > limit:
            raise _corrupt(where, "a block entry overruns its block")
        key = key[:shared] + block[pos : pos + unshared]
        pos += unshared
        entries.append((key, block[pos : pos + vlen]))
        pos += vlen
    return entries


def snappy_decompress(src: bytes, where: str = "block") -> bytes:
    """Decompresses a raw snappy block (TensorFlow never writes them; LevelDB may)."""
    length, pos = get_varint(src, 0, where, 35)
    out = bytearray()
    while pos < len(src):
        tag = src[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            n = tag >> 2
            if n >= 60:
                extra = n - 59
                n = int.from_bytes(src[pos : pos + extra], "little")
                pos += extra
            n += 1
            out += src[pos : pos + n]
            pos += n
            continue
        if kind == 1:
            n, off = ((tag >> 2) & 7) + 4, ((tag >> 5) << 8) | src[pos]
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            n, off = (tag >> 2) + 1, int.from_bytes(src[pos : pos + width], "little")
            pos += width
        if off == 0 or off > len(out):
            raise _corrupt(where, "snappy back-reference out of range")
        for _ in range(n):
            out.append(out[-off])
    if len(out) != length:
        raise _corrupt(where, "snappy block decompressed to the wrong length")
    return bytes(out)


# ----------------------------------------------------------------------------- writing


class _BlockBuilder:
    def __init__(self, restart_interval: int) -> None:
        self.interval = restart_interval
        self.buf = bytearray()
        self.restarts = [0]
        self.counter = 0
        self.last = b""

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self.counter < self.interval:
            shared = len(os.path.commonprefix([self.last, key]))
        else:
            self.restarts.append(len(self.buf))
            self.counter = 0
        self.buf += put_varint(shared) + put_varint(len(key) - shared) + put_varint(len(value))
        self.buf += key[shared:] + value
        self.last = key
        self.counter += 1

    def size_estimate(self) -> int:
        return len(self.buf) + 4 * len(self.restarts) + 4

    def finish(self) -> bytes:
        tail = struct.pack(f"<{len(self.restarts)}I", *self.restarts)
        return bytes(self.buf) + tail + struct.pack("<I", len(self.restarts))

    def empty(self) -> bool:
        return not self.buf


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n and start[i] < 0xFF and start[i] + 1 < limit[i]:
        return start[:i] + bytes([start[i] + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    for i, byte in enumerate(key):
        if byte != 0xFF:
            return key[:i] + bytes([byte + 1])
    return key


def build_table(items: list[tuple[bytes, bytes]]) -> bytes:
    """Serializes sorted (key, value) pairs exactly as TensorFlow's TableBuilder."""
    out = bytearray()
    data = _BlockBuilder(RESTART_INTERVAL)
    index = _BlockBuilder(1)
    pending: bytes | None = None
    last = b""

    def write_block(block: _BlockBuilder) -> bytes:
        contents = block.finish()
        handle = put_varint(len(out)) + put_varint(len(contents))
        crc = mask_crc(crc32c(b"\x00", crc32c(contents)))
        out.extend(contents + b"\x00" + struct.pack("<I", crc))
        return handle

    for key, value in items:
        if pending is not None:
            index.add(_shortest_separator(last, key), pending)
            pending = None
        data.add(key, value)
        last = key
        if data.size_estimate() >= BLOCK_SIZE:
            pending = write_block(data)
            data = _BlockBuilder(RESTART_INTERVAL)
    if not data.empty():
        pending = write_block(data)
    meta_handle = write_block(_BlockBuilder(RESTART_INTERVAL))
    if pending is not None:
        index.add(_short_successor(last), pending)
    index_handle = write_block(index)
    footer = (meta_handle + index_handle).ljust(40, b"\x00")
    out += footer + struct.pack("<II", MAGIC & 0xFFFFFFFF, MAGIC >> 32)
    return bytes(out)
