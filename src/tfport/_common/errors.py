"""Error types shared by every tfport area.

The CLI maps :class:`TfportInputError` to exit code 2 (bad input or usage) and
:class:`TfportOperationError` to exit code 1 (the operation itself failed).
"""

from __future__ import annotations

from typing import Any


class TfportError(Exception):
    """Base class of every error tfport raises on purpose."""

    exit_code = 1


class TfportInputError(TfportError, ValueError):
    """Bad input or usage: what is wrong, where, how to fix, `Received: ...`."""

    exit_code = 2


class TfportOperationError(TfportError, RuntimeError):
    """The requested operation ran and failed (for example a diff found differences)."""

    exit_code = 1


def message(what: str, fix: str | None = None, **received: Any) -> str:
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
