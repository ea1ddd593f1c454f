"""Checkpoint saves that fail cleanly: the `checkpoint` file never names a broken step.

TensorFlow's Saver writes the tensors (data, then index), then updates the `checkpoint`
state file, then writes the `.meta` graph; a full disk (ENOSPC), a read-only or
unwritable folder can stop it at any of these writes and leave the state naming an
incomplete checkpoint. Before each save the hook here writes the state file's current
bytes aside (`checkpoint.tfport-restore`); when the save fails it puts them back with a
rename (which needs no free space), removes the partial files of that step, and stops
training with one line naming the last complete checkpoint (a restart resumes from it).
A save that cannot even write that copy changes nothing and fails the same way.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportOperationError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Session

tf = import_tf()
_CheckpointSaverHook: Any = tf.compat.v1.train.CheckpointSaverHook

STATE_FILE = "checkpoint"
RESTORE_SUFFIX = ".tfport-restore"


def safe_checkpoint_saver_hook(*args: object, **kwargs: object) -> Any:
    """A `CheckpointSaverHook` whose failed saves leave the last complete checkpoint named.

    Example:
        >>> hook = safe_checkpoint_saver_hook("/tmp/m", save_steps=10)  # doctest: +SKIP
    """
    return _SafeCheckpointSaverHook(*args, **kwargs)


class _SafeCheckpointSaverHook(_CheckpointSaverHook):
    def _save(self, session: Session, step: int) -> Any:
        directory = tf_internals.saver_hook_directory(self)
        before = _read_state(directory)
        try:
            _keep_aside(directory, before)
            result = super()._save(session, step)
        except Exception as err:  # noqa: BLE001 - every failure is reported and undone
            _undo(directory, before, step)
            raise _save_failed(directory, step, before, err) from None
        _drop_aside(directory)
        return result


def _read_state(directory: str) -> bytes | None:
    try:
        with open(os.path.join(directory, STATE_FILE), "rb") as f:
            return f.read()
    except OSError:
        return None


def _aside(directory: str) -> str:
    return os.path.join(directory, STATE_FILE + RESTORE_SUFFIX)


def _keep_aside(directory: str, before: bytes | None) -> None:
    """Writes the state's bytes next to it, so that undoing a save needs no free space."""
    if before is None:
        return
    path = _aside(directory)
    try:
        with open(path, "wb") as f:
            f.write(before)
            f.flush()
            os.fsync(f.fileno())
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(path)
        raise


def _drop_aside(directory: str) -> None:
    with contextlib.suppress(OSError):
        os.remove(_aside(directory))


def _undo(directory: str, before: bytes | None, step: int) -> None:
    """Puts the state file back as it was and removes what the failed save left."""
    state = os.path.join(directory, STATE_FILE)
    aside = _aside(directory)
    with contextlib.suppress(OSError):
        if before is None:
            os.remove(state)
        elif os.path.isfile(aside) and _same(aside, before):
            os.replace(aside, state)  # a rename: works on a full disk
        elif _read_state(directory) != before:
            _rewrite(state, before)
    _drop_aside(directory)
    for name in os.listdir(directory) if os.path.isdir(directory) else []:
        if _leftover(name, step, before):
            path = os.path.join(directory, name)
            with contextlib.suppress(OSError):
                if os.path.isdir(path) and not os.path.islink(path):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    os.remove(path)


def _same(path: str, data: bytes) -> bool:
    try:
        with open(path, "rb") as f:
            return f.read() == data
    except OSError:
        return False


def _rewrite(state: str, before: bytes) -> None:
    tmp = state + RESTORE_SUFFIX
    try:
        with open(tmp, "wb") as f:
            f.write(before)
        os.replace(tmp, state)
    except OSError:
        with contextlib.suppress(OSError):
            os.remove(tmp)


def _leftover(name: str, step: int, before: bytes | None) -> bool:
    """Files of the failed step's save (never those of a complete checkpoint it re-saved)."""
    if re.match(rf"^{re.escape(STATE_FILE)}\.tmp", name):
        return True  # TensorFlow's half-written state file
    match = re.match(rf"^(.*\.ckpt-{step})(\.|_temp|$)", name)
    if not match:
        return False
    if before is not None and match.group(1) in _named(before):
        # The step was already saved completely: keep its files, drop only temporaries.
        return "_temp" in name or ".tmp" in name
    return True


def _named(before: bytes) -> set[str]:
    from tfport.checkpoint import state_path

    names = set()
    for line in before.decode("utf-8", "replace").splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("model_checkpoint_path", "all_model_checkpoint_paths"):
            names.add(os.path.basename(state_path(value.strip().strip('"'))))
    return names


def _reason(err: BaseException) -> str:
    """The informative line of an error (TensorFlow's start with `Graph execution error:`)."""
    text = getattr(err, "message", None) or str(err)
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    for line in lines:
        if re.search(r"No space left|Read-only|Permission denied|Disk quota", line, re.I):
            return line[:300]
    useful = [line for line in lines if not line.endswith(":") and "Detected at node" not in line]
    return (useful or [type(err).__name__])[0][:300]


def _save_failed(directory: str, step: int, before: bytes | None, err: Exception) -> Exception:
    last = "none"
    if before:
        for line in before.decode("utf-8", "replace").splitlines():
            if line.startswith("model_checkpoint_path:"):
                from tfport.checkpoint import state_path

                last = state_path(line.split(":", 1)[1].strip().strip('"'))
    return TfportOperationError(
        message(
            f"Saving the checkpoint of step {step} into {directory} failed ({_reason(err)}); "
            f"training stopped, the last complete checkpoint is {last}",
            "Free disk space or fix the folder's permissions, then run again: training "
            "resumes from the last complete checkpoint",
            model_dir=directory,
            step=step,
            error=type(err).__name__,
        )
    )
