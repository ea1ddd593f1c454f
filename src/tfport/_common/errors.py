"""Error types shared by every tfport area.

The CLI maps :class:`TfportInputError` to exit code 2 (bad input or usage) and
:class:`TfportOperationError` to exit code 1 (the operation itself failed).
"""

from __future__ import annotations

import errno


class TfportError(Exception):
    """Base class of every error tfport raises on purpose."""

    exit_code = 1


class TfportInputError(TfportError, ValueError):
    """Bad input or usage: what is wrong, where, how to fix, `Received: ...`."""

    exit_code = 2


class TfportOperationError(TfportError, RuntimeError):
    """The requested operation ran and failed (for example a diff found differences)."""

    exit_code = 1


def message(what: str, fix: str | None = None, **received: object) -> str:
    """Builds the one-line error message of the project's contract.

    Args:
        what: what is wrong and where.
        fix: how to fix it.
        **received: the offending values, shown as `Received: name=value`.

    Returns:
        One line: ``"<what>. <fix>. Received: a=1, b='x'"``.

    Example:
        >>> message("model_dir is not writable", "Pass a folder you can write", model_dir="/x")
        "model_dir is not writable. Pass a folder you can write. Received: model_dir='/x'"
    """
    parts = [what.rstrip(".") + "."]
    if fix:
        parts.append(fix.rstrip(".") + ".")
    if received:
        parts.append("Received: " + ", ".join(f"{k}={v!r}" for k, v in received.items()))
    return " ".join(parts)


# OS errors that say the path given is wrong (exit 2); any other is the environment's (exit 1).
_INPUT_ERRNOS = frozenset(
    {errno.ENOENT, errno.ENOTDIR, errno.EEXIST, errno.EISDIR, errno.ENAMETOOLONG, errno.ELOOP}
)


def os_error(err: OSError, what: str) -> TfportError:
    """Turns an OSError into a one-line tfport error (bad path: exit 2; ENOSPC, EROFS...: 1).

    Args:
        err: the OS error.
        what: what failed, e.g. "Cannot write out_dir".

    Example:
        >>> os_error(OSError(28, "No space left on device"), "Cannot write out").exit_code
        1
    """
    reason = err.strerror or type(err).__name__
    where = err.filename if err.filename is not None else None
    if err.errno in _INPUT_ERRNOS:
        return TfportInputError(
            message(f"{what}: {reason}", "Check the path given", path=where, errno=err.errno)
        )
    fix = {
        errno.ENOSPC: "Free disk space or write elsewhere",
        errno.EROFS: "Write to a writable file system",
        errno.EACCES: "Write where you have permission",
        errno.EPERM: "Write where you have permission",
    }.get(err.errno or 0, "Check the disk and the path, then retry")
    return TfportOperationError(message(f"{what}: {reason}", fix, path=where, errno=err.errno))
