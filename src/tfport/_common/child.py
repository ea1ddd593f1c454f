"""Runs a function in a fresh Python process under a wall-clock limit.

What executes an artifact (`tfport verify`, `graph convert --verify`) runs it here: a
graph whose loop never ends cannot be interrupted inside TensorFlow, but its process can
be killed. The child is a new interpreter (`python -m tfport._common.child`, no fork of a
process that holds TensorFlow's threads) in its own session, so the whole process group
goes. Arguments and the result travel pickled through its stdin/stdout; a `TfportError`
raised in the child is raised again here, anything else becomes one
`TfportOperationError` line.

Example:
    >>> run_in_child("math", "hypot", {"x": 3.0, "y": 4.0}, 60, "hypot")  # doctest: +SKIP
    5.0
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pickle
import signal
import subprocess
import sys
from typing import Any

from tfport._common.errors import TfportError, TfportInputError, TfportOperationError, message

DEFAULT_TIMEOUT = 600.0
_MAGIC = b"TFPORT-CHILD-RESULT\n"


def run_in_child(
    module: str, function: str, kwargs: dict[str, Any], timeout: float, what: str
) -> Any:
    """Returns `module.function(**kwargs)` computed in a child process.

    Args:
        module: the importable module holding the function.
        function: its name (a module-level function).
        kwargs: picklable keyword arguments.
        timeout: seconds of wall-clock time before the child is killed.
        what: what runs, for the messages (e.g. "verify of model.pb").

    Returns:
        The function's (picklable) result.

    Raises:
        TfportInputError: the time limit passed (the artifact runs too long or never ends),
            or the child raised one.
        TfportOperationError: the child died or failed otherwise.
    """
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    payload = pickle.dumps((module, function, kwargs))
    proc = subprocess.Popen(  # noqa: S603 - our own interpreter and module
        [sys.executable, "-m", "tfport._common.child"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env=env,
    )
    try:
        out, err = proc.communicate(payload, timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill(proc)
        raise TfportInputError(
            message(
                f"{what} did not finish within {timeout:g} s and was stopped (a loop that "
                "never ends, or a model too big to run here)",
                "Raise the limit with --timeout if the model is real",
                timeout=timeout,
            )
        ) from None
    except BaseException:
        _kill(proc)
        raise
    return _result(proc.returncode, out, err, what)


def _kill(proc: subprocess.Popen) -> None:
    with contextlib.suppress(OSError):
        os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(OSError, ValueError):
        proc.communicate(timeout=30)


def _result(code: int, out: bytes, err: bytes, what: str) -> Any:
    head, sep, body = out.partition(_MAGIC)
    if sep:
        try:
            status, value = pickle.loads(body)  # noqa: S301 - written by our own child
        except Exception:  # noqa: BLE001 - a damaged result is one line
            status, value = "failed", "its result could not be read"
        if status == "ok":
            return value
        if status == "raise" and isinstance(value, TfportError):
            raise value
        reason = value
    else:
        lines = [line for line in err.decode("utf-8", "replace").splitlines() if line.strip()]
        reason = lines[-1].strip()[:300] if lines else f"exit status {code}"
        if code < 0:
            reason = f"killed by signal {-code} ({reason})"
    raise TfportOperationError(
        message(
            f"{what} failed in its child process: {reason}",
            "Run again with more memory, or check the artifact",
            exit_status=code,
        )
    )


def _main() -> None:
    """The child: reads (module, function, kwargs), writes the pickled outcome."""
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray prints go to stderr
    module, function, kwargs = pickle.loads(sys.stdin.buffer.read())  # noqa: S301
    try:
        outcome: tuple[str, Any] = (
            "ok",
            getattr(importlib.import_module(module), function)(**kwargs),
        )
    except TfportError as exc:
        outcome = ("raise", exc)
    except Exception as exc:  # noqa: BLE001 - reported as one line by the parent
        text = str(exc).strip().splitlines()
        outcome = ("failed", f"{type(exc).__name__}: {text[0][:300] if text else ''}".rstrip(": "))
    try:
        data = pickle.dumps(outcome)
    except Exception as exc:  # noqa: BLE001
        data = pickle.dumps(("failed", f"unpicklable result ({type(exc).__name__})"))
    out.write(_MAGIC + data)
    out.flush()
    os._exit(0)  # no TensorFlow teardown


if __name__ == "__main__":
    _main()
