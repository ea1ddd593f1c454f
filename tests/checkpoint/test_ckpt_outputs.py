"""Issue 18 on checkpoints: outputs never touch inputs, validation, one-line errors, crashes."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from ckpt_helpers import craft_index, run_cli, write_adam_ckpt

from tfport._common import outputs
from tfport._common.errors import TfportOperationError
from tfport.checkpoint import CheckpointReader, CheckpointWriter, CorruptCheckpointError, convert


def _assert_one_line(proc, code: int, needle: str) -> None:
    assert proc.returncode == code, (proc.returncode, proc.stderr)
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.startswith("tfport: error:")]
    assert len(lines) == 1 and needle in lines[0], proc.stderr


def _model_dir(tmp_path) -> str:
    md = tmp_path / "md"
    write_adam_ckpt(str(md / "model.ckpt-3"))
    (md / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-3"\n')
    (md / "graph.pbtxt").write_text('node { name: "a" op: "Const" }\n')
    (md / "model.ckpt-3.meta").write_bytes(b"meta")
    return str(md)


def _tree(path) -> dict:
    return {
        os.path.relpath(os.path.join(r, n), path): open(os.path.join(r, n), "rb").read()
        for r, _, names in os.walk(path)
        for n in names
    }


def test_convert_into_its_own_input_is_refused_and_nothing_changes(tmp_path):
    md = _model_dir(tmp_path)
    before = _tree(md)
    proc = run_cli("ckpt", "convert", md, md, "--slots", "v1-to-keras", "--overwrite")
    _assert_one_line(proc, 2, "overlaps the input")
    inside = run_cli("ckpt", "convert", md + "/model.ckpt-3", tmp_path, "--slots", "v1-to-keras")
    _assert_one_line(inside, 2, "overlaps the input")
    assert _tree(md) == before


def test_overwrite_replaces_only_a_previous_converted_checkpoint(tmp_path):
    md = _model_dir(tmp_path)
    out = tmp_path / "out"
    convert(md, str(out), slots="v1-to-keras")
    first = _tree(out)
    convert(md, str(out), slots="v1-to-keras", overwrite=True)
    assert _tree(out) == first
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    proc = run_cli("ckpt", "convert", md, other, "--slots", "v1-to-keras", "--overwrite")
    _assert_one_line(proc, 2, "is not a converted checkpoint")
    assert (other / "notes.txt").read_text() == "keep me"


def test_output_under_a_regular_file_is_one_line(tmp_path):
    md = _model_dir(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("x")
    proc = run_cli("ckpt", "convert", md, blocker / "out", "--slots", "v1-to-keras")
    _assert_one_line(proc, 2, "is a file, not a folder")


def test_enospc_during_convert_is_exit_1_and_leaves_nothing(tmp_path, monkeypatch):
    md = _model_dir(tmp_path)
    out = tmp_path / "out"

    def full(self, chunk):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("tfport.checkpoint._writer.os.fsync", lambda fd: full(None, None))
    with pytest.raises(TfportOperationError, match="No space left") as err:
        convert(md, str(out), slots="v1-to-keras")
    assert err.value.exit_code == 1 and "\n" not in str(err.value)
    assert not out.exists()
    assert not [n for n in os.listdir(tmp_path) if n.startswith(outputs.PREFIX)]


def test_read_only_output_folder_is_exit_1(tmp_path, monkeypatch):
    md = _model_dir(tmp_path)
    real_mkdir = os.mkdir

    def erofs(path, *args, **kwargs):
        if outputs.PREFIX in os.fspath(path):
            raise OSError(errno.EROFS, "Read-only file system", os.fspath(path))
        return real_mkdir(path, *args, **kwargs)

    monkeypatch.setattr("tfport._common.outputs.os.mkdir", erofs)
    with pytest.raises(TfportOperationError, match="Read-only") as err:
        convert(md, str(tmp_path / "out"), slots="v1-to-keras")
    assert err.value.exit_code == 1


def _partitioned(prefix: str, parts) -> str:
    with CheckpointWriter(prefix) as w:
        w.add("global_step", np.int64(1))
        w.add_slices("w", [4, 3], parts)
    return prefix


def test_duplicate_slice_is_refused(tmp_path):
    good = np.arange(12, dtype=np.float32).reshape(4, 3)
    dup = _partitioned(
        str(tmp_path / "dup" / "m"), [([(0, 2), (0, 3)], good[:2]), ([(0, 2), (0, 3)], good[:2])]
    )
    with pytest.raises(CorruptCheckpointError, match="overlap"):
        CheckpointReader(dup)
    _assert_one_line(run_cli("ckpt", "inspect", dup), 2, "slices overlap")
    ok = _partitioned(
        str(tmp_path / "ok" / "m"), [([(0, 2), (0, 3)], good[:2]), ([(2, 2), (0, 3)], good[2:])]
    )
    np.testing.assert_array_equal(CheckpointReader(ok).read("w"), good)


def _dims(n: int):
    def mutate(entry):
        del entry.shape.dim[:]
        for _ in range(n):
            entry.shape.dim.add(size=1)

    return mutate


def test_65_dims_on_global_step(small_ckpt, tmp_path):
    bad = craft_index(small_ckpt, str(tmp_path / "bad"), "global_step", _dims(65))
    inspected = run_cli("ckpt", "inspect", bad, "--json")
    assert inspected.returncode == 0, inspected.stderr  # nothing materialised
    proc = run_cli("ckpt", "convert", bad, tmp_path / "out", "--slots", "v1-to-keras")
    _assert_one_line(proc, 2, "numpy holds at most 64")
    assert not (tmp_path / "out").exists()
    too_many = craft_index(small_ckpt, str(tmp_path / "bad255"), "global_step", _dims(255))
    _assert_one_line(run_cli("ckpt", "inspect", too_many), 2, "limit of 254")


@pytest.mark.parametrize("atol", ["-1", "nan", "inf"])
def test_diff_refuses_bad_atol(small_ckpt, atol):
    _assert_one_line(run_cli("ckpt", "diff", small_ckpt, small_ckpt, f"--atol={atol}"), 2, "atol")


def test_usage_errors_are_one_line():
    proc = run_cli("ckpt", "convert", "only-one-arg")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "--help" in proc.stderr and "usage:" not in proc.stderr


def _big_ckpt(prefix: str) -> str:
    with CheckpointWriter(prefix) as w:
        w.add("global_step", np.int64(5))
        for i in range(6):
            w.add_stream(f"layer{i}/kernel", "float32", (8192, 1024), _zeros(8192 * 1024 * 4))
    return prefix


def _zeros(nbytes: int):
    chunk = bytes(4 << 20)
    for start in range(0, nbytes, len(chunk)):
        yield chunk[: min(len(chunk), nbytes - start)]


@pytest.mark.slow
def test_kill_9_during_convert_then_a_second_convert(tmp_path):
    src = _big_ckpt(str(tmp_path / "src" / "model.ckpt-5"))
    out = tmp_path / "out"
    args = [sys.executable, "-m", "tfport", "ckpt", "convert", src, str(out)]
    args += ["--slots", "v1-to-keras"]
    proc = subprocess.Popen(args, stderr=subprocess.PIPE)
    deadline = time.time() + 60
    while time.time() < deadline:
        temps = [n for n in os.listdir(tmp_path) if n.startswith(outputs.PREFIX)]
        if temps and os.listdir(tmp_path / temps[0]):
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert temps, "the convert never started writing"
    assert not out.exists()
    second = run_cli(*args[3:])
    assert second.returncode == 0, second.stderr
    assert "removed" in second.stderr and temps[0] in second.stderr
    assert not [n for n in os.listdir(tmp_path) if n.startswith(outputs.PREFIX)]
    assert CheckpointReader(str(out)).names() == CheckpointReader(src).names()
