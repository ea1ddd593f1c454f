"""Atomic output: write to a temporary sibling, then rename into place.

Temporary names come from :mod:`tfport._common.outputs` (they mark their owner
process, so a later run removes those of dead processes).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from tfport._common import outputs
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
    outputs.clean_stale(folder)
    tmp = os.path.join(folder, outputs.temp_name(os.path.basename(path)))
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
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
