"""Checkpoint fuzz cases: base bundles, mutations, and the classifier of one case.

A case is (base, mutation, seed). The base checkpoints are written by tfport's
writer from known arrays (the ground truth); a mutation changes bytes of the
copy (flips, truncation) or re-encodes crafted index entries (dtypes, dims,
shard ids, offsets, slices, duplicate keys). `run_case` opens, inspects, reads
(twice, over different uninitialised memory), diffs and converts the mutant and
returns its class:

* ``refused``: a one-line TfportError; ``equal``: accepted, same tensors as the
  truth; ``changed``: accepted, tensors differ and `diff` reports it;
* failures: ``traceback`` (any other exception), ``multiline`` (an error of more
  than one line), ``silent`` (a change nobody reports, output that is not the input,
  or values that depend on uninitialised memory).
"""

from __future__ import annotations

import os
import random
import shutil
from collections.abc import Callable

import numpy as np

from tfport._common import protos
from tfport._common.errors import TfportError
from tfport.checkpoint import CheckpointReader, CheckpointWriter, convert, diff_checkpoints
from tfport.checkpoint import _reader as reader_module
from tfport.checkpoint._slices import slice_key
from tfport.checkpoint._table import build_table, read_table

FAILURES = ("traceback", "multiline", "silent", "hang", "signal", "memory")
Entry = protos.message_class("tensorflow.BundleEntryProto")
Header = protos.message_class("tensorflow.BundleHeaderProto")


def truth(base: str) -> dict[str, np.ndarray]:
    """The tensors of base checkpoint `base` (a name in BASES)."""
    rng = np.random.default_rng(7)
    if base == "adam":
        return {
            "global_step": np.int64(12),
            "beta1_power": np.float32(0.9) ** 13,
            "dense/kernel": rng.standard_normal((4, 5)).astype(np.float32),
            "dense/kernel/Adam": rng.standard_normal((4, 5)).astype(np.float32),
            "dense/kernel/Adam_1": rng.random((4, 5)).astype(np.float32),
            "dense/bias": rng.standard_normal(5).astype(np.float64),
            "vocab": np.array([b"a", b"bc", b""], dtype=object),
            "ids": np.arange(6, dtype=np.int32).reshape(2, 3),
            "half": np.ones((2, 2), np.float16),
        }
    return {"global_step": np.int64(3), "emb": np.arange(24, dtype=np.float32).reshape(6, 4)}


def write_base(base: str, prefix: str) -> None:
    """Writes base checkpoint `base` ("adam" or "sliced") at `prefix`."""
    values = truth(base)
    with CheckpointWriter(prefix, overwrite=True) as w:
        for name, value in values.items():
            if base == "sliced" and name == "emb":
                parts = [([(0, 2), (0, 4)], value[:2]), ([(2, 4), (0, 4)], value[2:])]
                w.add_slices(name, value.shape, parts)
            else:
                w.add(name, value)


BASES = ("adam", "sliced")


def _items(prefix: str) -> list[tuple[bytes, bytes]]:
    with open(prefix + ".index", "rb") as f:
        return read_table(f.read(), prefix)


def _write_items(prefix: str, items: list[tuple[bytes, bytes]]) -> None:
    with open(prefix + ".index", "wb") as f:
        f.write(build_table(sorted(items, key=lambda kv: kv[0])))


def _entry_mutation(rng: random.Random) -> tuple[str, Callable]:
    dims = [0, 1, 2, 3, 4, 5, 6, 7, 24, -1, 2**31, 2**40, 2**62, 2**63 - 1]

    def set_dims(entry, sizes):
        del entry.shape.dim[:]
        for size in sizes:
            entry.shape.dim.add(size=size)

    choices = [
        ("dtype", lambda e: setattr(e, "dtype", rng.choice([0, 1, 2, 3, 7, 9, 14, 19, 23, 99]))),
        ("dims", lambda e: set_dims(e, [rng.choice(dims) for _ in range(rng.randint(0, 4))])),
        ("rank", lambda e: set_dims(e, [1] * rng.choice([63, 64, 65, 200, 254, 255, 300]))),
        ("shard", lambda e: setattr(e, "shard_id", rng.choice([-1, 1, 2, 99999]))),
        ("offset", lambda e: setattr(e, "offset", rng.choice([-1, 1, 3, 10**6, 2**62]))),
        ("size", lambda e: setattr(e, "size", rng.choice([0, 1, 3, 79, 81, 2**40]))),
        ("crc", lambda e: setattr(e, "crc32c", rng.getrandbits(32))),
        ("unknown_rank", lambda e: setattr(e.shape, "unknown_rank", True)),
    ]
    return rng.choice(choices)


def _slice_mutation(rng: random.Random, items: list) -> str:
    """Crafted slices of the partitioned `emb`: duplicate, drop, shift, widen."""
    full = next(i for i, (k, _) in enumerate(items) if k == b"emb")
    entry = Entry.FromString(items[full][1])
    what = rng.choice(["duplicate", "drop", "shift", "widen", "rank", "negative"])
    ext = entry.slices[rng.randrange(len(entry.slices))].extent[0]
    if what == "duplicate":
        entry.slices.add().CopyFrom(entry.slices[0])
        entry.slices[1].CopyFrom(entry.slices[0])
    elif what == "drop":
        del entry.slices[rng.randrange(len(entry.slices))]
    elif what == "shift":
        ext.start += rng.choice([-1, 1, 2])
    elif what == "widen":
        ext.length += rng.choice([-1, 1])
    elif what == "rank":
        entry.slices[0].extent.add(start=0, length=1)
    else:
        ext.start = -2
    items[full] = (b"emb", entry.SerializeToString())
    # Keep the slice entries TensorFlow's keys name, as a crafted file would.
    return "slice_" + what


def mutate(prefix: str, rng: random.Random) -> str:
    """Applies one random mutation to the checkpoint at `prefix`; returns its name."""
    data_file = prefix + ".data-00000-of-00001"
    kind = rng.choice(
        ["flip_index", "flip_data", "trunc_index", "trunc_data", "entry", "entry", "entry",
         "slices", "dup_key", "header", "extra_slice_key"]
    )  # fmt: skip
    if kind in ("flip_index", "flip_data", "trunc_index", "trunc_data"):
        path = prefix + ".index" if kind.endswith("index") else data_file
        data = bytearray(open(path, "rb").read())
        if kind.startswith("flip"):
            for _ in range(rng.choice([1, 1, 1, 2, 8])):
                pos = rng.randrange(len(data))
                data[pos] ^= 1 << rng.randrange(8)
        else:
            del data[rng.randrange(len(data) + 1) :]
        with open(path, "wb") as f:
            f.write(data)
        return kind
    items = _items(prefix)
    if kind == "slices" and any(k == b"emb" for k, _ in items):
        kind = _slice_mutation(rng, items)
    elif kind == "dup_key":
        i = rng.randrange(1, len(items))
        items.insert(i, items[i])
        with open(prefix + ".index", "wb") as f:
            f.write(build_table(items))  # not re-sorted: the same key twice
        return kind
    elif kind == "header":
        header = Header.FromString(items[0][1])
        setattr(header, *rng.choice([("num_shards", 0), ("num_shards", 2), ("endianness", 1)]))
        items[0] = (b"", header.SerializeToString())
    elif kind == "extra_slice_key":
        items.append((slice_key("global_step", [(0, 1)]), items[1][1]))
    else:
        i = rng.randrange(1, len(items))
        entry = Entry.FromString(items[i][1])
        what, change = _entry_mutation(rng)
        change(entry)
        items[i] = (items[i][0], entry.SerializeToString())
        kind = "entry_" + what
    _write_items(prefix, items)
    return kind


def _poisoned_reads(prefix: str) -> tuple[dict, dict]:
    """Every tensor, read twice: once over 0x00 memory, once over 0xFF memory."""
    reads = []
    real_empty = np.empty
    for fill in (0, 0xFF):

        def empty(shape, dtype=float, fill=fill, **kw):
            out = real_empty(shape, dtype, **kw)
            if out.dtype != object:
                out.view(np.uint8)[...] = fill
            return out

        reader_module.np.empty = empty  # the reader allocates partitioned tensors so
        try:
            with CheckpointReader(prefix) as r:
                reads.append({n: r.read(n) for n in r.names()})
        finally:
            reader_module.np.empty = real_empty
    return reads[0], reads[1]


def _same(a: dict, b: dict) -> bool:
    if a.keys() != b.keys():
        return False
    for name in a:
        x, y = np.asarray(a[name]), np.asarray(b[name])
        if x.dtype != y.dtype or x.shape != y.shape:
            return False
        if x.dtype == object:
            if not np.array_equal(x, y):
                return False
        elif x.tobytes() != y.tobytes():
            return False
    return True


def run_case(workdir: str, base_prefix: str, base: str, seed: int) -> tuple[str, str]:
    """Runs one mutation of `base` (written at `base_prefix`); returns (mutation, class)."""
    rng = random.Random(seed)
    case = os.path.join(workdir, f"case{seed}")
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(case)
    prefix = os.path.join(case, "model.ckpt-1")
    for suffix in (".index", ".data-00000-of-00001"):
        shutil.copyfile(base_prefix + suffix, prefix + suffix)
    name = mutate(prefix, rng)
    try:
        return name, _classify(prefix, base_prefix, base, case)
    except TfportError as err:
        return name, "multiline" if "\n" in str(err) else "refused"
    except MemoryError:
        return name, "memory"
    except Exception as err:  # noqa: BLE001 - the point of a fuzzer
        return name, f"traceback:{type(err).__name__}:{str(err)[:120]}"
    finally:
        shutil.rmtree(case, ignore_errors=True)


def _classify(prefix: str, base_prefix: str, base: str, case: str) -> str:
    from tfport.checkpoint import inspect_checkpoint

    inspect_checkpoint(prefix)
    first, second = _poisoned_reads(prefix)
    if not _same(first, second):
        return "silent"  # values that depend on uninitialised memory
    out = os.path.join(case, "out")
    convert(prefix, out, slots="keras-to-v1")  # copies every tensor (no Keras slots)
    with CheckpointReader(out) as r:
        converted = {n: r.read(n) for n in r.names()}
    if not _same(converted, first):
        return "silent"  # the output is not the input
    expected = {n: np.asarray(v) for n, v in truth(base).items()}
    result = diff_checkpoints(base_prefix, prefix)
    if _same(first, expected):
        return "equal" if result["equal"] else "silent"
    return "changed" if not result["equal"] else "silent"
