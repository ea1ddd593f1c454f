"""The output rule of every tfport command that writes: never touch inputs, build aside, swap.

* :func:`check_output` refuses an output that is, contains or lies inside an input
  (a checkpoint's files, a SavedModel folder, a source tree), and, with
  ``overwrite``, an existing output that is not of the kind the command writes (a
  folder holding anything else is never replaced).
* :func:`build_aside` yields a temporary sibling folder; only when the block
  succeeds does it replace the output (the old one is moved aside first, then
  removed), so an output is either the old one or the complete new one.
* Temporary names carry the writer's host, pid and process start time
  (``.tfport-tmp.<host>.<pid>.<start>.<random>.<name>``); :func:`clean_stale`, run by
  every writer on its output's folder, removes those of dead processes (kill -9,
  power loss) and says so on stderr.

Example:
    >>> with build_aside("/tmp/doc_out", inputs=["/tmp/doc_in"], overwrite=True) as tmp:
    ...     open(os.path.join(tmp, "a"), "w").close()
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import shutil
import socket
import sys
from collections.abc import Callable, Iterable, Iterator

from tfport._common.errors import TfportInputError, message, os_error

PREFIX = ".tfport-tmp."


def _host() -> str:
    return hashlib.sha1(socket.gethostname().encode()).hexdigest()[:8]


def _start_ticks(pid: int) -> str | None:
    """The process start time in clock ticks since boot (None where /proc is absent)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    return stat.rsplit(b")", 1)[-1].split()[19].decode()


def temp_name(base: str) -> str:
    """A temporary file or folder name (no directory) that marks its owner process.

    Example:
        >>> temp_name("out").startswith(PREFIX)
        True
    """
    pid = os.getpid()
    return f"{PREFIX}{_host()}.{pid}.{_start_ticks(pid) or 0}.{secrets.token_hex(4)}.{base}"


def _owner_alive(name: str) -> bool:
    parts = name[len(PREFIX) :].split(".", 4)
    if len(parts) < 5 or parts[0] != _host():
        return True  # another machine's (shared folder): leave it
    try:
        pid = int(parts[1])
    except ValueError:
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    ticks = _start_ticks(pid)
    return ticks is None or ticks == parts[2] or parts[2] == "0"


def clean_stale(folder: str, quiet: bool = False) -> list[str]:
    """Removes the temporary outputs of dead tfport processes in `folder`; returns them.

    Args:
        folder: the folder an output is about to be written into.
        quiet: do not report the removals on stderr.

    Example:
        >>> clean_stale("/tmp")  # doctest: +SKIP
        []
    """
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return []
    removed = []
    for name in names:
        if name.startswith(PREFIX) and not _owner_alive(name):
            path = os.path.join(folder, name)
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(path)
            removed.append(path)
            if not quiet:
                print(
                    f"tfport: removed {path}, a temporary output left by a dead tfport process",
                    file=sys.stderr,
                )
    return removed


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def check_output(
    output: str,
    inputs: Iterable[str] = (),
    *,
    overwrite: bool = False,
    is_kind: Callable[[str], bool] | None = None,
    kind: str = "output",
) -> None:
    """Refuses an output that overlaps an input, or that exists and may not be replaced.

    Args:
        output: the file or folder the command writes.
        inputs: every file or folder the command reads (checkpoint files, a SavedModel...).
        overwrite: whether an existing output may be replaced.
        is_kind: ``is_kind(path)`` says whether an existing `output` is one this command
            writes (``None``: anything may be replaced).
        kind: what the command writes, for messages ("checkpoint folder", "SavedModel").

    Raises:
        TfportInputError: overlap, an existing output without `overwrite`, or one of
            another kind.

    Example:
        >>> check_output("/tmp/new_out", ["/tmp/model_dir/model.ckpt-1.index"])
    """
    out = os.path.realpath(output)
    for given in inputs:
        src = os.path.realpath(given)
        if _inside(src, out) or _inside(out, src):
            raise TfportInputError(
                message(
                    f"The output {output} overlaps the input {given}: writing it would "
                    "replace or sit inside what is read",
                    "Choose an output outside the input (inputs are never modified)",
                    output=output,
                    input=given,
                )
            )
    if not os.path.lexists(output):
        parent = os.path.dirname(os.path.abspath(output))
        _check_parent(parent, output)
        return
    if not overwrite:
        raise TfportInputError(
            message(
                f"Output {output} already exists",
                "Pass --overwrite (overwrite=True) or choose another output path",
                output=output,
            )
        )
    if os.path.islink(output) or (is_kind is not None and not is_kind(output)):
        raise TfportInputError(
            message(
                f"Output {output} exists and is not a {kind}; --overwrite replaces only a "
                f"previous {kind}",
                "Choose another output path (tfport never deletes other files)",
                output=output,
            )
        )


def _check_parent(parent: str, output: str) -> None:
    probe = parent
    while probe and not os.path.exists(probe):
        up = os.path.dirname(probe)
        if up == probe:
            break
        probe = up
    if probe and not os.path.isdir(probe):
        raise TfportInputError(
            message(
                f"Cannot create output {output}: {probe} is a file, not a folder",
                "Choose an output path under a folder",
                output=output,
            )
        )


@contextlib.contextmanager
def build_aside(
    output: str,
    inputs: Iterable[str] = (),
    *,
    overwrite: bool = False,
    is_kind: Callable[[str], bool] | None = None,
    kind: str = "output",
) -> Iterator[str]:
    """Yields a temporary folder that becomes `output` only when the block succeeds.

    Checks the output with :func:`check_output`, removes stale temporaries of dead
    processes next to it, then builds aside; an existing output is replaced only
    after the new one is complete. On any failure the temporary folder is removed,
    and OS errors become one-line tfport errors (ENOSPC, EROFS: exit 1).

    Example:
        >>> with build_aside("/tmp/doc_out2", overwrite=True) as tmp:
        ...     open(os.path.join(tmp, "a"), "w").close()
    """
    inputs = list(inputs)
    check_output(output, inputs, overwrite=overwrite, is_kind=is_kind, kind=kind)
    path = os.path.abspath(output)
    parent = os.path.dirname(path)
    try:
        os.makedirs(parent, exist_ok=True)
    except OSError as err:
        raise os_error(err, f"Cannot create the output folder {parent}") from None
    clean_stale(parent)
    tmp = os.path.join(parent, temp_name(os.path.basename(path)))
    try:
        os.mkdir(tmp)
        yield tmp
        swap_into_place(tmp, path)
    except BaseException as err:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(err, OSError):
            raise os_error(err, f"Cannot write {output}") from None
        raise


def swap_into_place(tmp: str, path: str) -> None:
    """Moves the complete `tmp` to `path`; an existing `path` is moved aside, then removed.

    Example:
        >>> swap_into_place("/tmp/.tfport-tmp.x", "/tmp/out")  # doctest: +SKIP
    """
    if not os.path.lexists(path):
        os.replace(tmp, path)
        return
    old = os.path.join(os.path.dirname(path), temp_name(os.path.basename(path) + ".old"))
    os.replace(path, old)
    try:
        os.replace(tmp, path)
    except OSError:
        os.replace(old, path)
        raise
    if os.path.isdir(old) and not os.path.islink(old):
        shutil.rmtree(old, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            os.unlink(old)
