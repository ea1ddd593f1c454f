"""Upgrading files: one value per file, never an exception, atomic writes.

Like LibCST's codemod runner, every file's outcome is a :class:`FileResult`
(changed / runs as is under tfport / needs manual work / failed with the reason);
one file's failure never stops the others. Usage errors (no such path, an existing output without
``overwrite``) are raised as :class:`TfportInputError` before anything is written.
"""

from __future__ import annotations

import difflib
import io
import os
import stat
import tokenize
from collections.abc import Callable, Sequence

from tfport._common.atomic import atomic_file
from tfport._common.errors import TfportInputError, message
from tfport.upgrade._codemods import upgrade_source
from tfport.upgrade._report import FileResult, Status

_SKIP_DIRS = ("__pycache__", "site-packages", "node_modules")


def upgrade_file(
    path: str,
    output: str | None = None,
    *,
    write: bool = True,
    tf_upgrade: bool = True,
    rewrite_all: bool = False,
) -> FileResult:
    """Upgrades one file into `output` (default: in place). Never raises.

    Args:
        path: the Python file to read.
        output: where to write the result; `path` itself (or None) means in place.
        write: False computes the result and the diff but writes nothing.
        tf_upgrade: also run TF's `tf_upgrade_v2` logic.
        rewrite_all: also rewrite a file that runs under tfport as it is (for plain `python`).

    Returns:
        A :class:`FileResult`.

    Example:
        >>> upgrade_file("train.py", "out/train.py").status  # doctest: +SKIP
        <Status.CHANGED: 'changed'>
    """
    output = output or path
    try:
        with open(path, "rb") as f:
            raw = f.read()
        encoding = tokenize.detect_encoding(io.BytesIO(raw).readline)[0]
        code = raw.decode(encoding)
        result = upgrade_source(code, path, tf_upgrade=tf_upgrade, rewrite_all=rewrite_all)
        changed = result.changed(code)
        diff = _diff(code, result.code, path, output) if changed else ""
        in_place = os.path.abspath(output) == os.path.abspath(path)
        if write and (changed or not in_place):
            target = os.path.realpath(output) if in_place else output  # keep symlinks
            _write(target, result.code.encode(encoding), os.stat(path).st_mode)
        status = Status.CHANGED if changed else Status.UNCHANGED
        if result.unresolved:
            status = Status.NEEDS_MANUAL
        return FileResult(
            path, output, status, result.items, diff=diff, unresolved=result.unresolved
        )
    except Exception as err:  # noqa: BLE001 - every failure becomes this file's value
        return FileResult(path, None, Status.FAILED, reason=_reason(err))


def upgrade_paths(
    paths: Sequence[str],
    *,
    in_place: bool = False,
    out_dir: str | None = None,
    write: bool = True,
    overwrite: bool = False,
    tf_upgrade: bool = True,
    rewrite_all: bool = False,
    progress: Callable[[FileResult], None] | None = None,
) -> list[FileResult]:
    """Upgrades every `.py` file under `paths` (files are taken as given).

    Args:
        paths: files and folders.
        in_place: rewrite the files where they are.
        out_dir: write the results here instead: a file `a.py` goes to `out_dir/a.py`, a
            folder's files keep their path relative to that folder.
        write: False writes nothing (a dry run for `--diff`).
        overwrite: allow replacing existing files under `out_dir`.
        tf_upgrade: also run TF's `tf_upgrade_v2` logic.
        rewrite_all: also rewrite files that run under tfport as they are (`tf.estimator` ->
            `tfport.estimator`, the tfport prelude), so that they run with plain `python`.
        progress: called with each file's result as soon as it is known.

    Returns:
        One :class:`FileResult` per file, in a stable order.

    Raises:
        TfportInputError: bad usage (checked before anything is written).

    Example:
        >>> results = upgrade_paths(["src/"], out_dir="upgraded")  # doctest: +SKIP
    """
    plan = plan_outputs(paths, in_place=in_place, out_dir=out_dir, write=write)
    if write and out_dir is not None and not overwrite:
        existing = [out for _, out in plan if os.path.lexists(out)]
        if existing:
            raise TfportInputError(
                message(
                    f"{len(existing)} output file(s) already exist, first {existing[0]}",
                    "Pass --overwrite or choose another --out folder",
                    out=out_dir,
                )
            )
    results = []
    for src, out in plan:
        results.append(
            upgrade_file(src, out, write=write, tf_upgrade=tf_upgrade, rewrite_all=rewrite_all)
        )
        if progress is not None:
            progress(results[-1])
    return results


def plan_outputs(
    paths: Sequence[str], *, in_place: bool, out_dir: str | None, write: bool = True
) -> list[tuple[str, str]]:
    """Returns (input, output) pairs; validates the usage.

    Example:
        >>> plan_outputs([], in_place=True, out_dir=None)
        Traceback (most recent call last):
        ...
        tfport._common.errors.TfportInputError: No PATH given. ...
    """
    if not paths:
        raise TfportInputError(message("No PATH given", "Name files or folders to upgrade"))
    if in_place and out_dir is not None:
        raise TfportInputError(
            message("--in-place and --out exclude each other", "Choose one", out=out_dir)
        )
    if write and not in_place and out_dir is None:
        raise TfportInputError(
            message("Nowhere to write", "Pass --in-place, --out DIR, or --diff for a dry run")
        )
    plan = [(src, _output(src, rel, out_dir)) for src, rel in _collect(paths)]
    _check_plan(plan, paths, out_dir)
    return plan


def _collect(paths: Sequence[str]) -> list[tuple[str, str]]:
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append((path, os.path.basename(path)))
        elif os.path.isdir(path):
            found.extend((src, os.path.relpath(src, path)) for src in _walk(path))
        else:
            raise TfportInputError(
                message(f"No such file or folder: {path}", "Check the PATH", path=path)
            )
    return found


def _walk(folder: str) -> list[str]:
    files: list[str] = []
    for root, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in _SKIP_DIRS)
        files.extend(os.path.join(root, n) for n in sorted(names) if n.endswith(".py"))
    return files


def _output(src: str, rel: str, out_dir: str | None) -> str:
    return src if out_dir is None else os.path.join(out_dir, rel)


def _check_plan(plan: list[tuple[str, str]], paths: Sequence[str], out_dir: str | None) -> None:
    if out_dir is None:
        return
    out_abs = os.path.abspath(out_dir)
    for path in paths:
        here = os.path.abspath(path)
        if os.path.isdir(path) and (out_abs == here or out_abs.startswith(here + os.sep)):
            raise TfportInputError(
                message("--out is inside an input folder", "Choose --out outside", out=out_dir)
            )
    seen: dict[str, str] = {}
    for src, out in plan:
        key = os.path.abspath(out)
        if key in seen and os.path.abspath(seen[key]) != os.path.abspath(src):
            raise TfportInputError(
                message(
                    f"{seen[key]} and {src} would both be written to {out}", "Upgrade them apart"
                )
            )
        if key == os.path.abspath(src):
            raise TfportInputError(
                message(f"--out would overwrite the input {src}", "Use --in-place")
            )
        seen[key] = src


def _write(path: str, data: bytes, mode: int) -> None:
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with atomic_file(path, "wb") as f:
        f.write(data)
        os.fchmod(f.fileno(), stat.S_IMODE(mode))


def _diff(old: str, new: str, path: str, output: str) -> str:
    lines = difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True), path, output
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _reason(err: Exception) -> str:
    text = str(err).splitlines()[0] if str(err) else ""
    if isinstance(err, TfportInputError):
        return text
    return f"{type(err).__name__}: {text}" if text else type(err).__name__
