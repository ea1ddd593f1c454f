"""Reads TensorFlow tensor bundles (`.index` + `.data-*` shards) without TensorFlow.

Every index entry is validated when the checkpoint is opened (known dtype, dims
>= 0, elements x item size == size, offset + size inside its shard, shard id in
range, every slice present and inside the tensor), all shards must exist, and
each tensor's crc32c is checked when it is read. Nothing here can abort the
process the way TensorFlow's C++ reader does on a crafted entry.

Example:
    >>> with CheckpointReader("model_dir") as ckpt:  # doctest: +SKIP
    ...     kernel = ckpt.read("dense/kernel")
"""

from __future__ import annotations

import dataclasses
import math
import os
import struct
from collections.abc import Iterator

import numpy as np

from tfport._common import messages, protos
from tfport._common.errors import message
from tfport.checkpoint import _slices
from tfport.checkpoint._dtypes import DTYPES, STRING, DType
from tfport.checkpoint._errors import (
    CheckpointNotFoundError,
    ChecksumMismatchError,
    CorruptCheckpointError,
    MissingShardError,
    UnsupportedCheckpointError,
)
from tfport.checkpoint._paths import data_path, resolve_prefix
from tfport.checkpoint._table import crc32c, get_varint, mask_crc, read_table

OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"
CHUNK = 16 << 20
_MAX_BYTES = 1 << 62
MAX_RANK = 254  # TensorFlow's TensorShape limit
NUMPY_MAX_RANK = 64  # numpy's: tensors of higher rank cannot be materialised
_MAX_ELEMENTS = (1 << 63) - 1
BundleHeaderProto = protos.message_class("tensorflow.BundleHeaderProto")
BundleEntryProto = protos.message_class("tensorflow.BundleEntryProto")


@dataclasses.dataclass(frozen=True)
class TensorEntry:
    """One validated tensor of a checkpoint (a partitioned one lists its `slices`)."""

    name: str
    dtype: DType
    shape: tuple[int, ...]
    shard_id: int = 0
    offset: int = 0
    size: int = 0
    crc32c: int = 0
    slices: tuple[tuple[tuple[int, int], ...], ...] = ()

    @property
    def num_elements(self) -> int:
        return math.prod(self.shape)

    @property
    def nbytes(self) -> int:
        """Bytes of the whole tensor (for strings: bytes stored)."""
        if self.dtype.enum == STRING:
            return self.size
        return self.num_elements * self.dtype.itemsize


class CheckpointReader:
    """A validated, TensorFlow-free view of one checkpoint.

    Args:
        path: a checkpoint prefix, its `.index`, a model_dir or a `checkpoint` file.

    Raises:
        CheckpointNotFoundError: no index; MissingShardError: a shard is absent;
        CorruptCheckpointError: a malformed index entry or table.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.prefix = resolve_prefix(path)
        index_path = self.prefix + ".index"
        self._files: dict[int, int] = {}
        self._where = index_path
        try:
            with open(index_path, "rb") as f:
                data = f.read()
        except OSError as err:
            raise CheckpointNotFoundError(
                message(f"Cannot read {index_path} ({err.strerror})", None, path=index_path)
            ) from None
        items = read_table(data, index_path)
        if not items or items[0][0] != b"":
            raise self._corrupt("the header entry (empty key) is missing")
        self.num_shards = self._header(items[0][1])
        self._shard_sizes = self._check_shards()
        raw = dict(items[1:])
        self.entries: dict[str, TensorEntry] = {}
        self._slice_entries: dict[str, list[tuple[tuple[tuple[int, int], ...], TensorEntry]]] = {}
        for key, value in raw.items():
            if key.startswith(b"\x00"):
                continue  # slice entries are reached through their full-name entry
            name = self._decode_name(key)
            self.entries[name] = self._entry(name, value, raw)

    # ------------------------------------------------------------------ opening

    def _corrupt(self, what: str, name: str | None = None) -> CorruptCheckpointError:
        where = f"{self._where}" + (f", tensor {name!r}" if name else "")
        return CorruptCheckpointError(
            message(
                f"Corrupt checkpoint {where}: {what}",
                "Restore the checkpoint from a good copy; tfport refuses to guess",
                path=self._where,
            )
        )

    def _header(self, value: bytes) -> int:
        try:
            header = BundleHeaderProto.FromString(value)
        except Exception:  # protobuf raises DecodeError or others on garbage
            raise self._corrupt("the header does not parse") from None
        if header.endianness != 0:
            raise UnsupportedCheckpointError(
                message(
                    f"Checkpoint {self._where} is big-endian",
                    "Convert it on a big-endian machine with TensorFlow first",
                    endianness=header.endianness,
                )
            )
        if not 1 <= header.num_shards <= 99999:
            raise self._corrupt(f"num_shards={header.num_shards} is out of range")
        return header.num_shards

    def _check_shards(self) -> list[int]:
        sizes = []
        for shard in range(self.num_shards):
            path = data_path(self.prefix, shard, self.num_shards)
            try:
                sizes.append(os.stat(path).st_size)
            except OSError:
                raise MissingShardError(
                    message(
                        f"Checkpoint data shard {path} is missing",
                        f"Copy all {self.num_shards} .data-*-of-{self.num_shards:05d} files "
                        "next to the .index",
                        shard=os.path.basename(path),
                    )
                ) from None
        return sizes

    def _decode_name(self, key: bytes) -> str:
        try:
            return key.decode("utf-8")
        except UnicodeDecodeError:
            raise self._corrupt(f"tensor name {key!r} is not UTF-8") from None

    def _entry(self, name: str, value: bytes, raw: dict[bytes, bytes]) -> TensorEntry:
        try:
            proto = BundleEntryProto.FromString(value)
        except Exception:
            raise self._corrupt("the entry does not parse", name) from None
        dtype = DTYPES.get(proto.dtype)
        if dtype is None:
            raise self._corrupt(f"unknown dtype enum {proto.dtype}", name)
        if proto.shape.unknown_rank:
            raise self._corrupt("shape has unknown rank", name)
        if len(proto.shape.dim) > MAX_RANK:
            raise self._corrupt(
                f"shape has {len(proto.shape.dim)} dimensions, over TensorFlow's limit of "
                f"{MAX_RANK}",
                name,
            )
        shape = tuple(d.size for d in proto.shape.dim)
        if any(d < 0 for d in shape):
            raise self._corrupt(f"negative dimension in shape {_short(shape)}", name)
        if math.prod(shape) > _MAX_ELEMENTS:
            raise self._corrupt(f"shape {_short(shape)} overflows 2^63-1 elements", name)
        if proto.slices:
            return self._partitioned(name, dtype, shape, proto, raw)
        return self._validated(name, dtype, shape, proto)

    def _validated(
        self, name: str, dtype: DType, shape: tuple[int, ...], proto: messages.BundleEntryProto
    ) -> TensorEntry:
        if not 0 <= proto.shard_id < self.num_shards:
            raise self._corrupt(f"shard_id {proto.shard_id} not in [0, {self.num_shards})", name)
        if proto.offset < 0 or proto.size < 0:
            raise self._corrupt(f"negative offset {proto.offset} or size {proto.size}", name)
        count = math.prod(shape)
        if dtype.enum == STRING:
            if proto.size < count + 4:
                raise self._corrupt(f"size {proto.size} too small for {count} strings", name)
        else:
            expected = count * dtype.itemsize
            if expected > _MAX_BYTES:
                raise self._corrupt(f"shape {_short(shape)} overflows the tensor size", name)
            if expected != proto.size:
                raise self._corrupt(
                    f"size {proto.size} != {count} elements x {dtype.itemsize} bytes", name
                )
        end = proto.offset + proto.size
        if end > self._shard_sizes[proto.shard_id]:
            shard = data_path(self.prefix, proto.shard_id, self.num_shards)
            raise self._corrupt(
                f"bytes [{proto.offset}, {end}) lie past the end of {os.path.basename(shard)} "
                f"({self._shard_sizes[proto.shard_id]} bytes; truncated?)",
                name,
            )
        return TensorEntry(
            name, dtype, shape, proto.shard_id, proto.offset, proto.size, proto.crc32c
        )

    def _partitioned(
        self,
        name: str,
        dtype: DType,
        shape: tuple[int, ...],
        proto: messages.BundleEntryProto,
        raw: dict[bytes, bytes],
    ) -> TensorEntry:
        if dtype.enum == STRING:
            raise UnsupportedCheckpointError(
                message(f"Partitioned string tensor {name!r} is not supported", None)
            )
        parts, boxes = [], []
        for slice_proto in proto.slices:
            extents = _slices.extents_of(slice_proto)
            try:
                index = _slices.to_index(extents, shape)
            except ValueError as err:
                raise self._corrupt(f"slice {extents}: {err}", name) from None
            key = _slices.slice_key(name, extents)
            if key not in raw:
                raise self._corrupt(f"slice {extents} has no entry in the index", name)
            part = self._entry(name, raw[key], {})
            want = tuple(s.stop - s.start for s in index)
            if part.dtype != dtype or part.shape != want or part.slices:
                raise self._corrupt(f"slice {extents} has shape {list(part.shape)}", name)
            parts.append((tuple(extents), part))
            boxes.append(index)
        problem = _slices.tiling_problem(boxes, shape)
        if problem:
            raise self._corrupt(f"{problem}; they must tile the shape {_short(shape)}", name)
        self._slice_entries[name] = parts
        return TensorEntry(name, dtype, shape, slices=tuple(e for e, _ in parts))

    # ------------------------------------------------------------------ reading

    def __enter__(self) -> CheckpointReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the shard files (the reader can be reopened by reading again)."""
        for fd in self._files.values():
            os.close(fd)
        self._files.clear()

    @property
    def files(self) -> list[str]:
        """The checkpoint's files: the `.index` and every data shard."""
        shards = [data_path(self.prefix, i, self.num_shards) for i in range(self.num_shards)]
        return [self.prefix + ".index", *shards]

    def names(self) -> list[str]:
        """Tensor names, sorted (partitioned variables appear once, whole)."""
        return sorted(self.entries)

    def __contains__(self, name: str) -> bool:
        return name in self.entries

    def entry(self, name: str) -> TensorEntry:
        """The validated entry of `name` (KeyError with close names if absent)."""
        try:
            return self.entries[name]
        except KeyError:
            raise KeyError(f"{name!r} is not in checkpoint {self.prefix}") from None

    def _fd(self, shard: int) -> int:
        if shard not in self._files:
            path = data_path(self.prefix, shard, self.num_shards)
            try:
                self._files[shard] = os.open(path, os.O_RDONLY)
            except OSError:
                raise MissingShardError(message(f"Data shard {path} disappeared", None)) from None
        return self._files[shard]

    def iter_chunks(self, name: str, chunk_size: int = CHUNK) -> Iterator[bytes]:
        """Yields the stored bytes of a non-partitioned tensor, then checks its crc32c.

        Raises:
            ChecksumMismatchError: after the last chunk, if the bytes are not intact.
        """
        entry = self.entry(name)
        if entry.slices:
            raise ValueError(f"{name!r} is partitioned; use read()")
        return self._iter_entry(entry, chunk_size)

    def _iter_entry(self, entry: TensorEntry, chunk_size: int = CHUNK) -> Iterator[bytes]:
        fd, pos, end, crc = self._fd(entry.shard_id), entry.offset, entry.offset + entry.size, 0
        while pos < end:
            chunk = os.pread(fd, min(chunk_size, end - pos), pos)
            if not chunk:
                raise self._corrupt("data shard shrank while reading", entry.name)
            crc = crc32c(chunk, crc)
            pos += len(chunk)
            yield chunk
        if entry.dtype.enum != STRING:  # strings: checked by _strings (another layout)
            self._check_crc(entry, crc)

    def _check_crc(self, entry: TensorEntry, crc: int) -> None:
        if mask_crc(crc) != entry.crc32c:
            raise ChecksumMismatchError(
                message(
                    f"Tensor {entry.name!r} of {self.prefix} fails its crc32c check "
                    "(the data shard is corrupt)",
                    "Restore the checkpoint's .data files from a good copy",
                    stored=entry.crc32c,
                    computed=mask_crc(crc),
                )
            )

    def read_bytes(self, name: str) -> bytes:
        """The stored bytes of a non-partitioned tensor, crc-checked."""
        return b"".join(self.iter_chunks(name))

    def read(self, name: str) -> np.ndarray:
        """The tensor `name` as a numpy array (strings as an object array of bytes)."""
        entry = self.entry(name)
        if len(entry.shape) > NUMPY_MAX_RANK:
            raise UnsupportedCheckpointError(
                message(
                    f"Tensor {name!r} of {self.prefix} has {len(entry.shape)} dimensions; "
                    f"this command must load it and numpy holds at most {NUMPY_MAX_RANK}",
                    "Use a command that copies it without loading (inspect, convert, diff)",
                    rank=len(entry.shape),
                )
            )
        if entry.slices:
            out = np.empty(entry.shape, entry.dtype.to_numpy())
            for extents, part in self._slice_entries[name]:
                out[_slices.to_index(list(extents), entry.shape)] = self._decode(part)
            return out
        return self._decode(entry)

    def _decode(self, entry: TensorEntry) -> np.ndarray:
        data = b"".join(self._iter_entry(entry))
        if entry.dtype.enum == STRING:
            return self._strings(entry, data)
        return np.frombuffer(data, entry.dtype.to_numpy()).reshape(entry.shape)

    def _strings(self, entry: TensorEntry, data: bytes) -> np.ndarray:
        count, pos, lengths, crc = entry.num_elements, 0, [], 0
        for _ in range(count):
            length, pos = get_varint(data, pos, self._where)
            lengths.append(length)
            crc = crc32c(struct.pack("<I", length & 0xFFFFFFFF), crc)  # TF: low 4 bytes
        if pos + 4 > len(data) or struct.unpack_from("<I", data, pos)[0] != mask_crc(crc):
            raise self._corrupt("string lengths fail their checksum", entry.name)
        crc = crc32c(data[pos : pos + 4], crc)
        pos += 4
        if pos + sum(lengths) != len(data):
            raise self._corrupt("string lengths do not add up to the stored size", entry.name)
        out = np.empty(count, dtype=object)
        for i, length in enumerate(lengths):
            out[i] = data[pos : pos + length]
            crc = crc32c(out[i], crc)
            pos += length
        self._check_crc(entry, crc)
        return out.reshape(entry.shape)

    def object_graph(self) -> messages.TrackableObjectGraph | None:
        """The TrackableObjectGraph of an object-based checkpoint, or None."""
        if OBJECT_GRAPH_KEY not in self.entries:
            return None
        raw = self.read(OBJECT_GRAPH_KEY).reshape(-1)[0]
        try:
            return protos.message_class("tensorflow.TrackableObjectGraph").FromString(raw)
        except Exception:
            raise self._corrupt("the object graph does not parse", OBJECT_GRAPH_KEY) from None

    def dtypes(self) -> dict[str, str]:
        """Name -> dtype name."""
        return {n: e.dtype.name for n, e in self.entries.items()}

    def shapes(self) -> dict[str, list[int]]:
        """Name -> shape."""
        return {n: list(e.shape) for n, e in self.entries.items()}


def _short(shape: tuple[int, ...]) -> str:
    text = str(list(shape))
    return text if len(text) <= 80 else text[:76] + "...]"
