"""One training per model_dir: a lock file naming the process that trains there.

Two trainings writing one model_dir interleave checkpoints and events silently, so the
chief of a training takes `MODEL_DIR/.tfport-train.lock` for the whole of `train()`.
The lock appears atomically with its content (written to a temporary name, then
hard-linked into place: `link` fails if a lock exists), so nobody ever reads a lock
being written. It holds the pid, host, start time and the process's start ticks
(`/proc/PID/stat`). A lock of this host whose process is gone, or whose pid now belongs
to a process started after the lock was written (pid reuse), is stale: it is removed,
with a warning. Deciding staleness and removing happen under an exclusive `flock` of the
model_dir itself, so two starters never both remove a stale lock, and none removes the
lock another one just created. Set `TFPORT_FORCE_LOCK=1` (or `tfport run --force`) to
train anyway.
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
    mine = _holder()
    with _guard(os.path.dirname(path) or "."):
        for _ in range(3):
            if _create(path, mine):
                return
            holder = _read(path)
            if not holder and _young(path):
                time.sleep(0.05)  # a lock written by an older, non-atomic tfport
                continue
            if _is_stale(holder):
                log.warning("Removing a stale training lock: %s", holder or "(empty)")
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
    raise TfportOperationError(
        message(
            f"Cannot take the training lock of {os.path.dirname(path)}",
            f"Remove {path} if no training runs there, or set {FORCE_ENV}=1",
            lock=path,
        )
    )


def _holder() -> str:
    return json.dumps(
        {
            "pid": os.getpid(),
            "host": socket.gethostname(),
            "started": time.time(),
            "start_ticks": _start_ticks(os.getpid()),
        }
    )


@contextlib.contextmanager
def _guard(directory: str) -> Iterator[None]:
    """An exclusive flock of the folder (released with the descriptor, even if killed)."""
    try:
        import fcntl
    except ImportError:  # not POSIX: the atomic link alone
        yield
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass  # a file system without flock: the atomic link alone
        yield
    finally:
        os.close(fd)


def _create(path: str, content: str) -> bool:
    """Creates `path` holding `content` atomically; False if it exists."""
    tmp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
    try:
        with open(tmp, "w") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:  # no hard links here: an exclusive rename-free fallback
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                return False
            with os.fdopen(fd, "w") as f:
                f.write(content)
        return True
    finally:
        with contextlib.suppress(OSError):
            os.remove(tmp)


def _young(path: str, seconds: float = 2.0) -> bool:
    try:
        return time.time() - os.stat(path).st_mtime < seconds
    except OSError:
        return False


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


def _start_ticks(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (`/proc/PID/stat` field 22)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read().decode("ascii", "replace")
        return int(data.rpartition(")")[2].split()[19])
    except (OSError, ValueError, IndexError):
        return None


def _started_at(pid: int) -> float | None:
    """The process's start as a Unix time (boot time + start ticks), or None."""
    ticks = _start_ticks(pid)
    try:
        with open("/proc/stat") as f:
            boot = next(int(line.split()[1]) for line in f if line.startswith("btime "))
        return boot + ticks / os.sysconf("SC_CLK_TCK") if ticks is not None else None
    except (OSError, ValueError, StopIteration):
        return None


def _is_stale(holder: dict) -> bool:
    """A lock of this host whose process is gone or is another process now (pid reused),
    or an unreadable one."""
    if not holder:
        return True
    if holder.get("host") != socket.gethostname():
        return False  # another machine's process: cannot tell, so not stale
    pid = holder.get("pid")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        pass
    return _reused(pid, holder)


def _reused(pid: int, holder: dict) -> bool:
    """Whether the live process `pid` is not the one that wrote the lock."""
    ticks = holder.get("start_ticks")
    if isinstance(ticks, int) and not isinstance(ticks, bool):
        now = _start_ticks(pid)
        return now is not None and now != ticks
    started = holder.get("started")
    began = _started_at(pid)
    if not isinstance(started, (int, float)) or began is None:
        return False
    return began > float(started) + 2.0  # btime has whole seconds
