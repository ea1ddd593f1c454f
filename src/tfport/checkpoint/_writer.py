"""Writes TensorFlow tensor bundles without TensorFlow, streaming, byte-identical to TF.

Tensors are appended to one data shard in the order they are added (like
TensorFlow's `BundleWriter`); the index is written, sorted, on `finish()`. Data
goes to hidden temporary files next to the output, renamed into place data first
and index last, so a reader never sees an index without its data; use
`tfport._common.outputs.build_aside` around the writer for all-or-nothing output folders.

Example:
    >>> import numpy as np
    >>> with CheckpointWriter("/tmp/doc_ckpt/model.ckpt", overwrite=True) as w:
    ...     w.add("w", np.ones([2, 2], np.float32))
"""

from __future__ import annotations

import contextlib
import math
import os
import struct
from collections.abc import Iterable, Sequence
from types import TracebackType

import numpy as np

from tfport._common import messages, outputs, protos
from tfport._common.atomic import refuse_existing
from tfport._common.errors import TfportInputError, message, os_error
from tfport.checkpoint._dtypes import BY_NAME, STRING, DType, from_numpy
from tfport.checkpoint._paths import data_path
from tfport.checkpoint._slices import slice_key
from tfport.checkpoint._table import build_table, crc32c, mask_crc, put_varint

_CHUNK = 16 << 20
BundleHeaderProto = protos.message_class("tensorflow.BundleHeaderProto")
BundleEntryProto = protos.message_class("tensorflow.BundleEntryProto")


class CheckpointWriter:
    """Streams tensors into a new single-shard checkpoint at `prefix`.

    Args:
        prefix: output prefix; writes `prefix.index` and `prefix.data-00000-of-00001`.
        overwrite: replace an existing checkpoint at `prefix`.
    """

    def __init__(self, prefix: str | os.PathLike[str], overwrite: bool = False) -> None:
        self.prefix = os.fspath(prefix)
        self._final = [self.prefix + ".index", data_path(self.prefix, 0, 1)]
        for path in self._final:
            refuse_existing(path, overwrite)
        folder = os.path.dirname(os.path.abspath(self.prefix))
        self._tmp_index: str | None = None
        self._tmp_data = os.path.join(folder, outputs.temp_name("data"))
        try:
            os.makedirs(folder, exist_ok=True)
            outputs.clean_stale(folder)
            self._data = open(self._tmp_data, "xb", buffering=0)  # noqa: SIM115
        except OSError as err:
            raise os_error(err, f"Cannot write checkpoint {self.prefix}") from None
        self._entries: dict[bytes, bytes] = {}
        self._offset = 0
        self._done = False

    def __enter__(self) -> CheckpointWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None:
            self.finish()
        else:
            self.abort()

    # ------------------------------------------------------------------ adding

    def add(self, name: str, value: object) -> None:
        """Adds a whole tensor (numpy array, scalar, bytes/str or list of them)."""
        self._add_array(self._key(name), name, _as_array(value))

    def _add_array(self, key: bytes, name: str, array: np.ndarray) -> None:
        dtype = from_numpy(array.dtype)
        if dtype.enum == STRING:
            self._add_strings(key, array)
            return
        data = np.ascontiguousarray(array, dtype=dtype.to_numpy().newbyteorder("<"))
        flat = data.reshape(-1).view(np.uint8)
        # google_crc32c takes only `bytes`: copy in bounded pieces, never the whole tensor.
        chunks = (flat[i : i + _CHUNK].tobytes() for i in range(0, flat.size, _CHUNK))
        self._add_chunks(key, name, dtype, array.shape, chunks)

    def add_stream(
        self, name: str, dtype: DType | str, shape: Iterable[int], chunks: Iterable[bytes]
    ) -> None:
        """Adds a numeric tensor from little-endian byte chunks (never all in memory)."""
        dtype = BY_NAME[dtype] if isinstance(dtype, str) else dtype
        if dtype.enum == STRING:
            raise TfportInputError(message("add_stream takes numeric tensors", "Use add()"))
        self._add_chunks(self._key(name), name, dtype, tuple(int(d) for d in shape), chunks)

    def _add_chunks(
        self, key: bytes, name: str, dtype: DType, shape: tuple[int, ...], chunks: Iterable[bytes]
    ) -> None:
        start, crc = self._offset, 0
        for chunk in chunks:
            crc = crc32c(chunk, crc)
            self._write(chunk)
        size = self._offset - start
        expected = math.prod(shape) * dtype.itemsize
        if size != expected:
            raise TfportInputError(
                message(
                    f"Tensor {name!r} got {size} bytes for shape {list(shape)} {dtype.name}",
                    "Pass exactly elements x item size bytes",
                    expected=expected,
                )
            )
        self._entries[key] = _serialize(_entry(dtype, shape, start, size, mask_crc(crc)))

    def add_slices(
        self,
        name: str,
        full_shape: Iterable[int],
        parts: Sequence[tuple[Sequence[tuple[int, int]], np.ndarray]],
    ) -> None:
        """Adds a partitioned variable as TF1's Saver does.

        Args:
            name: the variable's full name.
            full_shape: the whole variable's shape.
            parts: ([(start, length), ...] per dimension, the slice's values) pairs.
        """
        key = self._key(name)
        arrays = [_as_array(a) for _, a in parts]
        if len({a.dtype for a in arrays}) != 1:
            raise TfportInputError(
                message(f"Slices of {name!r} have different dtypes", "Cast them to one dtype")
            )
        full = _entry(from_numpy(arrays[0].dtype), [int(d) for d in full_shape], 0, 0, 0)
        for (extents, _), array in zip(parts, arrays):
            extent_list = [(int(s), int(n)) for s, n in extents]
            sub = full.slices.add()
            for start, length in extent_list:
                ext = sub.extent.add(start=start)
                if length != -1:
                    ext.length = length
            self._add_array(slice_key(name, extent_list), name, array)
        self._entries[key] = _serialize(full)

    def _key(self, name: str) -> bytes:
        key = name.encode("utf-8")
        if not key or key in self._entries or self._done or key.startswith(b"\x00"):
            raise TfportInputError(
                message("Tensor names must be unique and non-empty", None, name=name)
            )
        return key

    def _write(self, chunk: bytes) -> None:
        view = memoryview(chunk)
        try:
            while view:
                n = self._data.write(view)
                view = view[n:]
                self._offset += n
        except OSError as err:
            raise os_error(err, f"Cannot write checkpoint {self.prefix}") from None

    def _add_strings(self, key: bytes, array: np.ndarray) -> None:
        items = [x.encode() if isinstance(x, str) else bytes(x) for x in array.reshape(-1)]
        lengths = b"".join(put_varint(len(x)) for x in items)
        crc = 0
        for x in items:
            crc = crc32c(struct.pack("<I", len(x) & 0xFFFFFFFF), crc)  # TF: low 4 bytes
        checksum = struct.pack("<I", mask_crc(crc))
        crc = crc32c(checksum, crc)
        start = self._offset
        self._write(lengths + checksum)
        for x in items:
            crc = crc32c(x, crc)
            self._write(x)
        size = self._offset - start
        self._entries[key] = _serialize(
            _entry(BY_NAME["string"], array.shape, start, size, mask_crc(crc))
        )

    # ------------------------------------------------------------------ finishing

    def finish(self) -> None:
        """Writes the index and moves the files into place (data first, index last)."""
        if self._done:
            return
        try:
            self._finish()
        except BaseException as err:
            self.abort()
            if isinstance(err, OSError):
                raise os_error(err, f"Cannot write checkpoint {self.prefix}") from None
            raise

    def _finish(self) -> None:
        self._done = True
        header = BundleHeaderProto(num_shards=1)
        header.version.producer = 1
        items = [(b"", header.SerializeToString())] + sorted(self._entries.items())
        table = build_table(items)
        self._data.flush()
        os.fsync(self._data.fileno())
        self._data.close()
        folder = os.path.dirname(self._tmp_data)
        self._tmp_index = os.path.join(folder, outputs.temp_name("index"))
        with open(self._tmp_index, "xb") as f:
            f.write(table)
            f.flush()
            os.fsync(f.fileno())
        os.replace(self._tmp_data, self._final[1])
        os.replace(self._tmp_index, self._final[0])

    def abort(self) -> None:
        """Removes the temporary files; nothing appears at the output."""
        self._done = True
        with contextlib.suppress(OSError):
            self._data.close()
        for path in (self._tmp_data, self._tmp_index):
            if path:
                with contextlib.suppress(OSError):
                    os.unlink(path)


def _as_array(value: object) -> np.ndarray:
    if isinstance(value, np.ndarray):
        return value
    if isinstance(value, (bytes, str)):
        return np.array(value, dtype=object)
    array = np.asarray(value)
    if array.dtype.kind in ("U", "S"):
        return array.astype(object)
    return array


def _entry(
    dtype: DType, shape: Iterable[int], offset: int, size: int, crc: int
) -> messages.BundleEntryProto:
    entry = BundleEntryProto(dtype=dtype.enum, offset=offset, size=size, crc32c=crc)
    entry.shape.SetInParent()
    for dim in shape:
        entry.shape.dim.add(size=int(dim))
    return entry


def _serialize(entry: messages.Message) -> bytes:
    return entry.SerializeToString(deterministic=True)
