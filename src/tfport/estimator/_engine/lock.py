"""One training per model_dir: a lock file naming the process that trains there.

Two trainings writing one model_dir interleave checkpoints and events silently, so the
chief of a training takes `MODEL_DIR/.tfport-train.lock` (created with O_EXCL; it holds
the pid, host and start time) for the whole of `train()`. A lock left by a dead process
of this host is stale: it is removed, with a warning. Set `TFPORT_FORCE_LOCK=1` (or
`tfport run --force`) to train anyway.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Iterator

from tfport._common.errors import TfportOperationError, message

LOCK_NAME = ".tfport-train.lock"
FORCE_ENV = "TFPORT_FORCE_LOCK"
log = logging.getLogger("tfport")


@contextlib.contextmanager
def training_lock(model_dir: str) -> Iterator[None]:
    """Holds the training lock of `model_dir` while the block runs.

    Raises:
        TfportOperationError: another live process trains in `model_dir`.

    Example:
        >>> import tempfile
        >>> with training_lock(tempfile.mkdtemp()):
        ...     pass
    """
    path = os.path.join(model_dir, LOCK_NAME)
    if os.environ.get(FORCE_ENV) == "1":
        yield
        return
    _acquire(path)
    try:
        yield
    finally:
        _release(path)


def _acquire(path: str) -> None:
    mine = json.dumps({"pid": os.getpid(), "host": socket.gethostname(), "started": time.time()})
    for _ in range(3):
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            holder = _read(path)
            if _is_stale(holder):
                log.warning("Removing a stale training lock of a dead process: %s", holder)
                with contextlib.suppress(FileNotFoundError):
                    os.remove(path)
                continue
            raise TfportOperationError(
                message(
                    f"Another training runs in {os.path.dirname(path)} (pid {holder.get('pid')} "
                    f"on {holder.get('host')})",
                    f"Wait for it, use another model_dir, or set {FORCE_ENV}=1 "
                    "(tfport run --force) if you are sure it is gone",
                    lock=path,
                )
            ) from None
        with os.fdopen(fd, "w") as f:
            f.write(mine)
        return


def _release(path: str) -> None:
    holder = _read(path)
    if holder.get("pid") == os.getpid() and holder.get("host") == socket.gethostname():
        with contextlib.suppress(FileNotFoundError):
            os.remove(path)


def _read(path: str) -> dict:
    try:
        with open(path) as f:
            data = json.load(f)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _is_stale(holder: dict) -> bool:
    """A lock of this host whose process is gone (or an unreadable, empty one)."""
    if not holder:
        return True
    if holder.get("host") != socket.gethostname():
        return False  # another machine's process: cannot tell, so not stale
    pid = holder.get("pid")
    if not isinstance(pid, int) or pid == os.getpid():
        return pid == os.getpid() or not isinstance(pid, int)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False
