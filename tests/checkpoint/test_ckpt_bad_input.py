"""Crafted, truncated, corrupted and incomplete checkpoints: typed errors, exit 2, no crash."""

from __future__ import annotations

import os
import shutil

import pytest
from ckpt_helpers import craft_index, run_cli

from tfport.checkpoint import (
    CheckpointReader,
    ChecksumMismatchError,
    CorruptCheckpointError,
    MissingShardError,
)


def _set_dims(*dims):
    def mutate(entry):
        del entry.shape.dim[:]
        for d in dims:
            entry.shape.dim.add(size=d)

    return mutate


CRAFTED = {
    "negative_dim": ("dense/kernel", _set_dims(-4, 5), "negative dimension"),
    "unknown_dtype": ("dense/kernel", lambda e: setattr(e, "dtype", 99), "unknown dtype"),
    "size_overflow": ("dense/kernel", _set_dims(2**62, 2**62), "overflows"),
    "size_mismatch": ("dense/kernel", lambda e: setattr(e, "size", 7), "size 7"),
    "offset_past_end": ("dense/bias", lambda e: setattr(e, "offset", 10**6), "past the end"),
    "bad_shard_id": ("dense/bias", lambda e: setattr(e, "shard_id", 3), "shard_id 3"),
}


def _assert_exit_2(proc, needle: str) -> None:
    assert proc.returncode == 2, (proc.returncode, proc.stderr)  # not -6 (SIGABRT)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("tfport: error:") and needle in proc.stderr, proc.stderr


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_index_entries(small_ckpt, tmp_path, case):
    name, mutate, needle = CRAFTED[case]
    bad = craft_index(small_ckpt, str(tmp_path / "bad"), name, mutate)
    with pytest.raises(CorruptCheckpointError, match=needle):
        CheckpointReader(bad)
    _assert_exit_2(run_cli("ckpt", "inspect", bad), needle)


@pytest.mark.parametrize("keep", [0.5, 0.97])
def test_truncated_index(small_ckpt, tmp_path, keep):
    bad = str(tmp_path / "bad")
    shutil.copyfile(small_ckpt + ".data-00000-of-00001", bad + ".data-00000-of-00001")
    with open(small_ckpt + ".index", "rb") as f:
        data = f.read()
    with open(bad + ".index", "wb") as f:
        f.write(data[: int(len(data) * keep)])
    with pytest.raises(CorruptCheckpointError):
        CheckpointReader(bad)
    _assert_exit_2(run_cli("ckpt", "inspect", bad), "corrupt")


def test_truncated_data(small_ckpt, tmp_path):
    bad = str(tmp_path / "bad")
    shutil.copyfile(small_ckpt + ".index", bad + ".index")
    with open(small_ckpt + ".data-00000-of-00001", "rb") as f:
        data = f.read()
    with open(bad + ".data-00000-of-00001", "wb") as f:
        f.write(data[: len(data) - 10])
    with pytest.raises(CorruptCheckpointError, match="truncated"):
        CheckpointReader(bad)
    _assert_exit_2(run_cli("ckpt", "inspect", bad), "truncated")


def test_flipped_data_byte(small_ckpt, tmp_path):
    bad = str(tmp_path / "bad")
    shutil.copyfile(small_ckpt + ".index", bad + ".index")
    with open(small_ckpt + ".data-00000-of-00001", "rb") as f:
        data = bytearray(f.read())
    reader = CheckpointReader(small_ckpt)
    entry = reader.entry("dense/kernel")
    data[entry.offset + 3] ^= 0x10
    with open(bad + ".data-00000-of-00001", "wb") as f:
        f.write(data)
    with pytest.raises(ChecksumMismatchError, match="dense/kernel"):
        CheckpointReader(bad).read("dense/kernel")
    out = tmp_path / "out"
    proc = run_cli("ckpt", "convert", bad, out, "--slots", "v1-to-keras")
    _assert_exit_2(proc, "crc32c")
    assert not out.exists()
    _assert_exit_2(run_cli("ckpt", "diff", small_ckpt, bad), "crc32c")


def test_missing_shard(small_ckpt, tmp_path):
    bad = str(tmp_path / "bad")
    shutil.copyfile(small_ckpt + ".index", bad + ".index")
    with pytest.raises(MissingShardError, match="missing"):
        CheckpointReader(bad)
    _assert_exit_2(run_cli("ckpt", "inspect", bad), "missing")


def test_slices_not_covering_the_shape(tmp_path):
    import numpy as np

    from tfport.checkpoint import CheckpointWriter

    prefix = str(tmp_path / "ok")
    with CheckpointWriter(prefix) as w:
        w.add_slices("emb", [4, 2], [([(0, 2), (0, 2)], np.ones((2, 2), np.float32))])
    with pytest.raises(CorruptCheckpointError, match="slices leave a gap"):
        CheckpointReader(prefix)
    bad = craft_index(prefix, str(tmp_path / "bad"), "emb", _set_dims(2**40, 2))
    _assert_exit_2(run_cli("ckpt", "inspect", bad), "slices leave a gap")


def test_missing_checkpoint_and_garbage_index(tmp_path):
    _assert_exit_2(run_cli("ckpt", "inspect", tmp_path / "nothing"), "No checkpoint")
    garbage = tmp_path / "g"
    (tmp_path / "g.index").write_bytes(os.urandom(200))
    _assert_exit_2(run_cli("ckpt", "inspect", garbage), "corrupt")
