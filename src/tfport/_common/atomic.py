"""Atomic output: write to a temporary sibling, then rename into place."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Iterator

from tfport._common.errors import TfportInputError, message


def refuse_existing(path: str, overwrite: bool) -> None:
    """Raises TfportInputError when `path` exists and `overwrite` is False.

    Example:
        >>> refuse_existing("/nonexistent/out", overwrite=False)
    """
    if os.path.lexists(path) and not overwrite:
        raise TfportInputError(
            message(
                f"Output {path} already exists",
                "Pass --overwrite (overwrite=True) or choose another output path",
                output=path,
            )
        )


@contextlib.contextmanager
def atomic_file(path: str, mode: str = "wb") -> Iterator:
    """Yields a file object whose content appears at `path` only on success.

    Example:
        >>> with atomic_file("/tmp/x.txt", "w") as f:
        ...     _ = f.write("hello")
    """
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-" + os.path.basename(path), dir=folder)
    try:
        with os.fdopen(fd, mode) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_dir(path: str, overwrite: bool = False) -> Iterator[str]:
    """Yields a temporary folder that replaces `path` only when the block succeeds.

    Example:
        >>> with atomic_dir("/tmp/out_dir", overwrite=True) as tmp:
        ...     open(os.path.join(tmp, "a"), "w").close()
    """
    path = os.path.abspath(path)
    refuse_existing(path, overwrite)
    parent = os.path.dirname(path)
    os.makedirs(parent, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".tmp-" + os.path.basename(path), dir=parent)
    try:
        yield tmp
        if os.path.lexists(path):
            old = tmp + ".old"
            os.replace(path, old)
            os.replace(tmp, path)
            shutil.rmtree(old, ignore_errors=True)
        else:
            os.replace(tmp, path)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
