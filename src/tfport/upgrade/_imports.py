"""`--check-imports`: import each upgraded module in its own process, with `tfport.install()`.

One process per module (modules of a TF1 project often define the same absl flags,
which cannot be defined twice in one process), a few at a time. A module is
imported under its package name (the folders above it that hold ``__init__.py``),
with its own folder and the package root on `sys.path`, so that sibling imports
(``import modeling``) work as they did. The first error is kept, with the line of
the upgraded file it came from.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import os
import subprocess
import sys
from collections.abc import Sequence

from tfport.upgrade._report import FileResult, Status

_PROBE = r"""
import importlib, os, sys, traceback
path, name, *dirs = sys.argv[1:]
sys.path[:0] = dirs
sys.argv = [path]
import tfport
tfport.install()
try:
    importlib.import_module(name)
except BaseException as err:
    if isinstance(err, SystemExit) and err.code in (None, 0):
        sys.exit(0)
    frames = [f for f in traceback.extract_tb(err.__traceback__)
              if os.path.abspath(f.filename) == os.path.abspath(path)]
    where = f" ({path}:{frames[-1].lineno})" if frames else ""
    text = " ".join(str(err).split())
    print("TFPORT-IMPORT-ERROR " + type(err).__name__ + (": " + text if text else "") + where)
    sys.exit(1)
"""
_TAG = "TFPORT-IMPORT-ERROR "


def module_name(path: str) -> tuple[str, str]:
    """Returns (dotted module name, root folder) of a Python file.

    Example:
        >>> module_name("/nonexistent/pkg/train.py")
        ('train', '/nonexistent/pkg')
    """
    folder = os.path.dirname(os.path.abspath(path))
    parts = [os.path.splitext(os.path.basename(path))[0]]
    while os.path.exists(os.path.join(folder, "__init__.py")):
        parts.insert(0, os.path.basename(folder))
        folder = os.path.dirname(folder)
    return ".".join(parts), folder


def import_error(path: str, timeout: float = 600.0) -> str:
    """Imports `path` in a fresh interpreter; returns its first error ("" when it imports).

    Example:
        >>> import_error("missing.py")  # doctest: +SKIP
        "ModuleNotFoundError: No module named 'missing'"
    """
    name, root = module_name(path)
    here = os.path.dirname(os.path.abspath(path))
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": os.environ.get("TF_CPP_MIN_LOG_LEVEL", "2")}
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _PROBE, path, name, here, root],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
    except subprocess.TimeoutExpired:
        return f"TimeoutError: importing took more than {timeout:.0f} s"
    found = [line[len(_TAG) :] for line in proc.stdout.splitlines() if line.startswith(_TAG)]
    if found:
        return found[0]
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        return f"the import process exited with {proc.returncode}: {tail}"
    return ""


def check_imports(results: Sequence[FileResult], jobs: int | None = None) -> list[FileResult]:
    """Imports every upgraded output (failed files skipped); failures need manual work.

    Args:
        results: the upgrade results (their outputs must be written).
        jobs: processes at a time (default: the CPU count, at most 4).

    Returns:
        The results, with `import_error` set and the status `needs manual work` where the
        import failed.

    Example:
        >>> check_imports([])
        []
    """
    todo = [r for r in results if not r.failed and r.output and os.path.exists(r.output)]
    jobs = jobs or min(4, os.cpu_count() or 1)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        errors = dict(
            zip([r.output for r in todo], pool.map(import_error, [r.output for r in todo]))
        )
    out = []
    for result in results:
        error = errors.get(result.output, "") if result.output else ""
        if error:
            result = dataclasses.replace(result, status=Status.NEEDS_MANUAL, import_error=error)
        out.append(result)
    return out
