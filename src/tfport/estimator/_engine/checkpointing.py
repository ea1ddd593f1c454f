"""Checkpoint saves that fail cleanly: the `checkpoint` file never names a broken step.

TensorFlow's Saver writes the tensors, then updates the `checkpoint` state file, then
writes the `.meta` graph; a full disk (ENOSPC), a read-only or unwritable folder can stop
it in between and leave the state naming an incomplete checkpoint. The saver hook here
remembers the state file before each save; when the save fails it puts the state file
back, removes the partial files of that step, and stops training with one line naming
the last complete checkpoint (a restart resumes from it).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
from typing import Any

from tfport._common.errors import TfportOperationError, message
from tfport._common.tfenv import import_tf

STATE_FILE = "checkpoint"


def safe_checkpoint_saver_hook(*args: Any, **kwargs: Any) -> Any:
    """A `CheckpointSaverHook` whose failed saves leave the last complete checkpoint named.

    Example:
        >>> hook = safe_checkpoint_saver_hook("/tmp/m", save_steps=10)  # doctest: +SKIP
    """
    v1 = import_tf().compat.v1

    class _SafeCheckpointSaverHook(v1.train.CheckpointSaverHook):
        def _save(self, session: Any, step: int) -> Any:
            directory = self._checkpoint_dir
            before = _read_state(directory)
            try:
                return super()._save(session, step)
            except Exception as err:  # noqa: BLE001 - every failure is reported and undone
                _undo(directory, before, step)
                raise _save_failed(directory, step, before, err) from None

    return _SafeCheckpointSaverHook(*args, **kwargs)


def _read_state(directory: str) -> bytes | None:
    try:
        with open(os.path.join(directory, STATE_FILE), "rb") as f:
            return f.read()
    except OSError:
        return None


def _undo(directory: str, before: bytes | None, step: int) -> None:
    state = os.path.join(directory, STATE_FILE)
    with contextlib.suppress(OSError):
        if before is None:
            os.remove(state)
        else:
            tmp = state + ".tfport-restore"
            with open(tmp, "wb") as f:
                f.write(before)
            os.replace(tmp, state)
    for path in glob.glob(os.path.join(directory, f"*.ckpt-{step}*")):
        with contextlib.suppress(OSError):
            if os.path.isdir(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.remove(path)


def _save_failed(directory: str, step: int, before: bytes | None, err: Exception) -> Exception:
    last = "none"
    if before:
        for line in before.decode("utf-8", "replace").splitlines():
            if line.startswith("model_checkpoint_path:"):
                last = line.split(":", 1)[1].strip().strip('"')
    reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    return TfportOperationError(
        message(
            f"Saving the checkpoint of step {step} into {directory} failed ({reason}); "
            f"training stopped, the last complete checkpoint is {last}",
            "Free disk space or fix the folder's permissions, then run again: training "
            "resumes from the last complete checkpoint",
            model_dir=directory,
        )
    )
