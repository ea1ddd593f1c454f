"""Runs a function in a fresh Python process under a wall-clock limit, confined.

What executes an artifact (`tfport verify`, `graph convert --verify`) runs it here: a
graph whose loop never ends cannot be interrupted inside TensorFlow, but its process can
be killed. The child is a new interpreter (`python -m tfport._common.child`, no fork of a
process that holds TensorFlow's threads) in its own session, so the whole process group
goes. Arguments and the result travel pickled through its stdin/stdout; a `TfportError`
raised in the child is raised again here, anything else becomes one
`TfportOperationError` line.

The child never outlives the command: SIGTERM, SIGINT and SIGHUP to this process kill
the child's process group first, and the kernel kills the child when this process dies
(`PR_SET_PDEATHSIG`). With a :class:`Confinement`, the child first closes itself in a
Landlock sandbox (read the installation and the artifacts, write only its own temporary
folder, no TCP), then imports TensorFlow and caps the memory the run may add
(``RLIMIT_AS``), before the function runs.

Example:
    >>> run_in_child("math", "hypot", {"x": 3.0, "y": 4.0}, 60, "hypot")  # doctest: +SKIP
    5.0
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
import pickle
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping
from types import FrameType
from typing import Any

from tfport._common import sandbox
from tfport._common.errors import TfportError, TfportInputError, TfportOperationError, message

DEFAULT_TIMEOUT = 600.0
_MAGIC = b"TFPORT-CHILD-RESULT\n"
_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# How running out of the address space shows (TensorFlow's allocator, constant folding,
# C++ and Python allocations) in an exception or any exception it was raised from.
_MEMORY_MARKS = ("OOM when allocating", "ResourceExhausted", "bad_alloc", "MemoryError",
                 "Cannot allocate memory", "failed to allocate",
                 "Cannot parse tensor from proto")  # fmt: skip
Handler = Any  # what signal.signal returns: a callable, an int, or None


@dataclasses.dataclass(frozen=True)
class Confinement:
    """What the child that runs an artifact may touch.

    Attributes:
        read: files and folders it may read besides the installation (the artifacts,
            input files).
        write: folders it may write besides its own temporary folder.
        sandbox: confine it with Landlock (False: `--trust`).
        max_memory: bytes the run may add to the address space after TensorFlow's import
            (None: no limit).
    """

    read: tuple[str, ...] = ()
    write: tuple[str, ...] = ()
    sandbox: bool = True
    max_memory: int | None = None


def run_in_child(
    module: str,
    function: str,
    kwargs: Mapping[str, object],
    timeout: float,
    what: str,
    confine: Confinement | None = None,
) -> Any:
    """Returns `module.function(**kwargs)` computed in a child process.

    Args:
        module: the importable module holding the function.
        function: its name (a module-level function).
        kwargs: picklable keyword arguments.
        timeout: seconds of wall-clock time before the child is killed.
        what: what runs, for the messages (e.g. "verify of model.pb").
        confine: the sandbox and memory limit to run under (None: neither).

    Returns:
        The function's (picklable) result.

    Raises:
        TfportInputError: the time or memory limit was passed, the sandbox stopped an
            access, or the child raised one.
        TfportOperationError: the child died or failed otherwise.
    """
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    if confine is not None and confine.sandbox and sandbox.landlock_abi() <= 0:
        print(
            "tfport: WARNING: Landlock is not available on this system: the run is "
            "protected by the safety scan alone",
            file=sys.stderr,
        )
    with _temp_folder(confine, env) as tmp:
        # two pickles: the confinement first, entered before the job's own pickle imports
        # anything (numpy starts threads a sandbox would not bind)
        payload = pickle.dumps((os.getpid(), confine, tmp)) + pickle.dumps(
            (module, function, kwargs)
        )
        proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
            [sys.executable, "-m", "tfport._common.child"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            env=env,
        )
        with _killed_on_signals(proc):
            try:
                out, err = proc.communicate(payload, timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                raise TfportInputError(
                    message(
                        f"{what} did not finish within {timeout:g} s and was stopped (a loop "
                        "that never ends, or a model too big to run here)",
                        "Raise the limit with --timeout if the model is real",
                        timeout=timeout,
                    )
                ) from None
            except BaseException:
                _kill(proc)
                raise
    return _result(proc.returncode, out, err, what, confine)


@contextlib.contextmanager
def _temp_folder(confine: Confinement | None, env: dict[str, str]) -> Iterator[str | None]:
    """The confined child's own temporary folder (its TMPDIR), removed afterwards."""
    if confine is None:
        yield None
        return
    tmp = tempfile.mkdtemp(prefix="tfport-child-")
    env["TMPDIR"] = tmp
    env["MALLOC_ARENA_MAX"] = "2"  # fewer 64 MiB arenas counted against RLIMIT_AS
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _killed_on_signals(proc: subprocess.Popen) -> Iterator[None]:
    """While the child runs, SIGTERM/SIGINT/SIGHUP kill its process group first, then
    take their usual effect on this process."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Handler] = {}

    def handler(signum: int, frame: FrameType | None) -> None:
        _kill(proc, wait=5)
        for sig, old in previous.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        previous.clear()
        os.kill(os.getpid(), signum)  # again, with the handler this process had

    for wanted in _SIGNALS:
        previous[wanted] = signal.signal(wanted, handler)
    try:
        yield
    finally:
        for number, old in previous.items():
            signal.signal(number, old if old is not None else signal.SIG_DFL)


def _kill(proc: subprocess.Popen, wait: float = 30) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, ValueError, subprocess.TimeoutExpired):
        proc.wait(timeout=wait)


def _result(code: int, out: bytes, err: bytes, what: str, confine: Confinement | None) -> Any:
    head, sep, body = out.partition(_MAGIC)
    if sep:
        try:
            status, value = pickle.loads(body)  # noqa: S301 - written by our own child
        except Exception:  # noqa: BLE001 - a damaged result is one line
            status, value = "failed", "its result could not be read"
        if status == "ok":
            return value
        if status == "memory":
            _raise_memory(value, what, confine)
        if status == "raise" and isinstance(value, TfportError):
            raise value
        reason = value
    else:
        lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = lines[-1].strip()[:300] if lines else f"exit status {code}"
        if code < 0:
            reason = f"killed by signal {-code} ({reason})"
            if confine is not None and confine.max_memory is not None:
                _raise_memory("bad_alloc", what, confine, reason)
    _raise_memory(str(reason), what, confine)
    raise TfportOperationError(
        message(
            f"{what} failed in its child process: {reason}",
            "Run again with more memory, or check the artifact",
            exit_status=code,
        )
    )


def _raise_memory(text: str, what: str, confine: Confinement | None, detail: str = "") -> None:
    """Raises the one `--max-memory` line when the child failed for lack of memory."""
    if confine is None or confine.max_memory is None:
        return
    if not any(mark in text for mark in _MEMORY_MARKS):
        return
    shown = detail or next((line.strip() for line in text.splitlines() if line.strip()), "")
    raise TfportInputError(
        message(
            f"{what} was stopped: it needed more memory than --max-memory "
            f"{confine.max_memory} allows ({shown})",
            "Raise --max-memory if the model is real",
            max_memory=confine.max_memory,
        )
    )


def _confine(parent: int, confine: Confinement | None, tmp: str | None) -> None:
    """The child's first steps: die with the parent; enter the sandbox while this is the
    only thread (Landlock binds the calling thread and the threads it starts later, not
    threads already running); import TensorFlow; then cap the memory (after the import:
    TensorFlow's own mappings are not counted)."""
    sandbox.die_with_parent(parent)
    if confine is None:
        return
    if confine.sandbox:
        read = sandbox.default_read_paths() + list(confine.read)
        sandbox.restrict(read, [*confine.write, *([tmp] if tmp else [])])
    if confine.max_memory is not None:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        tf.constant(1.0) + 1.0  # noqa: B018 - starts the runtime's thread pools before the cap
        sandbox.limit_memory(confine.max_memory)


def _outcome(exc: Exception, confine: Confinement | None) -> tuple[str, Any]:
    """("memory", the line that says so) when the run ran out of its memory limit (seen in
    `exc` or what it was raised from); else ("raise", a TfportError) or ("failed", a line).
    """
    if confine is not None and confine.max_memory is not None:
        chain: list[BaseException] = []
        link: BaseException | None = exc
        while link is not None and len(chain) < 10:
            chain.append(link)
            link = link.__cause__ or link.__context__
        for link in reversed(chain):  # the original error first, its telling line first
            lines = f"{type(link).__name__}: {link}".splitlines()
            for mark in _MEMORY_MARKS:
                found = next((line.strip() for line in lines if mark in line), None)
                if found:
                    return "memory", found[:200]
    if isinstance(exc, TfportError):
        return "raise", exc
    text = str(exc).strip().splitlines()
    return "failed", f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": ")


def _main() -> None:
    """The child: reads (module, function, kwargs, ...), writes the pickled outcome."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to stderr
    stream = sys.stdin.buffer
    parent, confine, tmp = pickle.load(stream)  # noqa: S301 - written by our own parent
    try:
        _confine(parent, confine, tmp)
        module, function, kwargs = pickle.load(stream)  # noqa: S301
        outcome: tuple[str, Any] = (
            "ok",
            getattr(importlib.import_module(module), function)(**kwargs),
        )
    except Exception as exc:  # noqa: BLE001 - reported as one line by the parent
        outcome = _outcome(exc, confine)
    try:
        data = pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001
        data = pickle.dumps(("failed", f"unpicklable result ({type(exc).__name__})"))
    out.write(_MAGIC + data)
    out.flush()
    os._exit(0)  # no TensorFlow teardown


if __name__ == "__main__":
    _main()
