"""Issue 32: a full file system at every write of a save (state copy, data, index, merged
index, `checkpoint` state, `.meta`) leaves the state naming a complete checkpoint, and a
restart resumes from it with no step lost.

Where the test can mount a small tmpfs (root), the disk is really full (ENOSPC from the
kernel): a hook fills it after step 15 leaving k free pages, for k from 0 up, so the save
of step 20 runs out at each write in turn. Elsewhere the failures are injected at the
writes Python can reach (data and `.meta`).
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import subprocess
import sys

import pytest
import tensorflow as tf

from tfport._common.errors import TfportOperationError
from tfport.checkpoint import CheckpointReader, resolve_prefix
from tfport.estimator._engine.running import checkpointing

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import models  # noqa: E402

PAGE = 4096


@contextlib.contextmanager
def _tmpfs(path: pathlib.Path, size: int, options: str = ""):
    path.mkdir()
    if os.environ.get("TFPORT_TEST_NO_TMPFS") == "1":  # to exercise the fallback
        yield None
        return
    proc = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size}{options}", "tmpfs", str(path)],
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        yield None
        return
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def _free(path: pathlib.Path) -> int:
    st = os.statvfs(path)
    return st.f_bavail * st.f_frsize


class FillAt(tf.compat.v1.train.SessionRunHook):
    """After step 15, fills the file system leaving `pages` free pages."""

    def __init__(self, filler: pathlib.Path, pages: int) -> None:
        self.filler, self.pages = filler, pages

    def begin(self):
        self.step = tf.compat.v1.train.get_global_step()

    def after_run(self, run_context, run_values):
        if run_context.session.run(self.step) == 15 and not self.filler.exists():
            with open(self.filler, "wb") as f:
                f.write(b"\0" * max(_free(self.filler.parent) - self.pages * PAGE, 0))


def _stage(model_dir: pathlib.Path, step: int) -> str:
    """Which write of the save of `step` failed, read from what it left (before the undo)."""
    names = os.listdir(model_dir)
    state = (model_dir / "checkpoint").read_text() if "checkpoint" in names else ""
    if f"model.ckpt-{step}" in state:
        return "meta"
    if not any(n.endswith(checkpointing.RESTORE_SUFFIX) for n in names):
        return "state copy"
    if any(n.startswith("checkpoint.tmp") for n in names):
        return "state"
    if f"model.ckpt-{step}.index" in names:
        return "merged index"
    temp = model_dir / f"model.ckpt-{step}_temp"
    parts = os.listdir(temp) if temp.is_dir() else []
    return "index" if any(".data-" in p for p in parts) else "data"


def _assert_complete(model_dir: pathlib.Path, step: int) -> None:
    prefix = resolve_prefix(str(model_dir))
    assert prefix.endswith(f"model.ckpt-{step}")
    assert os.path.isfile(prefix + ".meta")
    with CheckpointReader(prefix) as reader:
        assert int(reader.read("global_step")) == step
    assert tf.train.latest_checkpoint(str(model_dir)).endswith(f"model.ckpt-{step}")
    assert tf.train.load_variable(str(model_dir), "global_step") == step


class FirstStep(tf.compat.v1.train.SessionRunHook):
    def begin(self):
        self.step, self.first = tf.compat.v1.train.get_global_step(), None

    def after_create_session(self, session, coord):
        self.first = int(session.run(self.step))


def _resume(model_dir: pathlib.Path) -> None:
    first = FirstStep()
    models.estimator(model_dir, save_checkpoints_steps=10).train(
        models.input_fn(), max_steps=30, hooks=[first]
    )
    assert first.first == 10  # resumed from the last complete checkpoint
    _assert_complete(model_dir, 30)


def _fail_and_check(model_dir: pathlib.Path, hooks: list, stages: list) -> None:
    with pytest.raises(TfportOperationError) as info:
        models.estimator(model_dir, save_checkpoints_steps=10).train(
            models.input_fn(), max_steps=30, hooks=hooks
        )
    text = str(info.value)
    assert len(text.splitlines()) == 1 and "step 20" in text and "model.ckpt-10" in text
    assert "Graph execution error" not in text and text.rpartition("Received: ")[2].strip()
    names = os.listdir(model_dir)
    assert not [n for n in names if "ckpt-20" in n or n.startswith("checkpoint.")], names
    assert stages, "the save never failed"
    _assert_complete(model_dir, 10)


@pytest.mark.slow
def test_a_full_disk_at_each_write_of_a_save(tmp_path, monkeypatch):
    with _tmpfs(tmp_path / "fs", 4 << 20) as fs:
        if fs is None:
            _injected(tmp_path, monkeypatch)
            return
        stages: list[str] = []
        undo = checkpointing._undo

        def spy(directory, before, step):
            stages.append(_stage(pathlib.Path(directory), step))
            return undo(directory, before, step)

        monkeypatch.setattr(checkpointing, "_undo", spy)
        seen: set[str] = set()
        pages = 0
        while "meta" not in seen:
            assert pages < 64, stages
            model_dir = fs / f"m{pages}"
            filler = fs / "filler"
            stages.clear()
            _fail_and_check(model_dir, [FillAt(filler, pages)], stages)
            seen.add(stages[0])
            filler.unlink()
            _resume(model_dir)
            for path in sorted(model_dir.iterdir()):
                path.unlink() if path.is_file() else None
            pages += 1
        # The state file is written after the shard's temporary index is freed: a page
        # count cannot stop it alone, so the disk is filled right before it.
        model_dir = fs / "state"
        stages.clear()
        saver = tf.compat.v1.train.Saver
        record = saver._RecordLastCheckpoint
        monkeypatch.setattr(saver, "_RecordLastCheckpoint", _filling(fs, record))
        _fail_and_check(model_dir, [], stages)
        monkeypatch.setattr(saver, "_RecordLastCheckpoint", record)
        seen.add(stages[0])
        (fs / "filler").unlink()
        _resume(model_dir)
        assert seen == {"state copy", "data", "index", "merged index", "state", "meta"}, seen


def _filling(fs: pathlib.Path, record):
    def fill_then_record(self, path):
        if path.endswith("ckpt-20"):
            with open(fs / "filler", "wb") as f:
                f.write(b"\0" * _free(fs))
        return record(self, path)

    return fill_then_record


def _injected(tmp_path: pathlib.Path, monkeypatch) -> None:
    """No tmpfs here: ENOSPC injected at the data write and at the `.meta` write."""
    saver = tf.compat.v1.train.Saver
    save, export = saver.save, saver.export_meta_graph
    nospace = tf.errors.ResourceExhaustedError(None, None, "No space left on device")

    def data_fails(self, sess, save_path, global_step=None, **kwargs):
        step = int(sess.run(global_step) if hasattr(global_step, "op") else global_step)
        if step == 20:
            pathlib.Path(f"{save_path}-{step}.data-00000-of-00001").write_bytes(b"partial")
            raise nospace
        return save(self, sess, save_path, global_step=global_step, **kwargs)

    def meta_fails(self, filename=None, *args, **kwargs):
        if filename and filename.endswith("ckpt-20.meta"):
            pathlib.Path(filename + ".tmp0").write_bytes(b"partial")
            raise OSError(28, "No space left on device")
        return export(self, filename, *args, **kwargs)

    for i, (name, fake) in enumerate((("save", data_fails), ("export_meta_graph", meta_fails))):
        model_dir = tmp_path / f"m{i}"
        monkeypatch.setattr(saver, name, fake)
        _fail_and_check(model_dir, [], ["injected"])
        monkeypatch.setattr(saver, name, {"save": save, "export_meta_graph": export}[name])
        _resume(model_dir)


def test_a_read_only_model_dir_is_an_environment_error_exit_1(tmp_path):
    with _tmpfs(tmp_path / "ro", 1 << 20, ",ro") as fs:
        folder = fs if fs is not None else tmp_path / "ro"
        if fs is None:
            folder.chmod(0o555)  # not root: permissions hold
        try:
            with pytest.raises(TfportOperationError) as info:
                models.estimator(folder).train(models.input_fn(), max_steps=2)
        finally:
            folder.chmod(0o755) if fs is None else None
    text = str(info.value)
    assert info.value.exit_code == 1 and "not writable" in text and "\n" not in text
    assert text.rpartition("Received: ")[2].strip()
