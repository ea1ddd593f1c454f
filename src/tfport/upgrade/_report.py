"""Report items and per-file results, formatted like `tf_upgrade_v2`'s report."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence

from tfport._common.text import plural as _n

INFO = "INFO"
WARNING = "WARNING"
ERROR = "ERROR"


@dataclasses.dataclass(frozen=True, order=True)
class ReportItem:
    """One finding: 1-based line, 0-based column (as `tf_upgrade_v2` counts), level, message.

    Example:
        >>> ReportItem(3, 4, "INFO", "Renamed 'a' to 'b'").format("x.py")
        "x.py:3:4: INFO: Renamed 'a' to 'b'"
    """

    line: int
    col: int
    level: str
    message: str

    def format(self, path: str) -> str:
        return f"{path}:{self.line}:{self.col}: {self.level}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return dataclasses.asdict(self)


class Status(str, enum.Enum):
    """What happened to one file (a str, so it compares equal to its value).

    `UNCHANGED`: every name of the file resolves on the installed TensorFlow + tfport, so
    the file was left as it is (written as a copy under ``--out``).
    """

    CHANGED = "changed"
    UNCHANGED = "runs as is under tfport"
    NEEDS_MANUAL = "needs manual work"
    FAILED = "failed"


@dataclasses.dataclass(frozen=True)
class SourceResult:
    """The upgrade of one source text: the new code, what was found, and what cannot resolve.

    `unresolved` holds positions in the new code (see :mod:`tfport.upgrade._check`);
    `runs_as_is`: every name resolved in the input, which was left as it is.
    """

    code: str
    items: tuple[ReportItem, ...]
    unresolved: tuple[ReportItem, ...] = ()
    runs_as_is: bool = False

    def changed(self, original: str) -> bool:
        return self.code != original


@dataclasses.dataclass(frozen=True)
class FileResult:
    """The outcome of one file: changed, unchanged, needs manual work, or failed.

    A file needs manual work when its upgraded text still references names that do
    not resolve on TF 2.21 (`unresolved`), or when importing it failed (`import_error`).

    Attributes:
        path: the input file.
        output: where the result was (or would be) written; None when failed.
        status: a :class:`Status`.
        items: the report items of this file (positions in the input).
        reason: why it failed (failed only).
        diff: the unified diff of the change ("" when unchanged or failed).
        unresolved: the unresolved references (positions in the output).
        import_error: the first error of importing the output (`--check-imports`).
    """

    path: str
    output: str | None
    status: Status
    items: tuple[ReportItem, ...] = ()
    reason: str = ""
    diff: str = ""
    unresolved: tuple[ReportItem, ...] = ()
    import_error: str = ""

    @property
    def failed(self) -> bool:
        return self.status is Status.FAILED

    def lines(self) -> list[str]:
        """The report lines of this file (`file:line:col: LEVEL: message`)."""
        out = [item.format(self.path) for item in sorted(self.items)]
        if self.failed:
            out.insert(0, f"{self.path}:1:0: {ERROR}: failed: {self.reason}")
        where = self.output or self.path
        out += [item.format(where) for item in self.unresolved]
        if self.import_error:
            out.append(f"{where}:1:0: {ERROR}: import failed: {self.import_error}")
        return out

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "output": self.output,
            "status": self.status.value,
            "reason": self.reason,
            "items": [item.to_json() for item in sorted(self.items)],
            "diff": self.diff,
            "unresolved": [item.to_json() for item in self.unresolved],
            "import_error": self.import_error,
        }


def group_items(items: Iterable[ReportItem]) -> tuple[ReportItem, ...]:
    """One item per cause (level and message), at its first position, with the lines it covers.

    Example:
        >>> a = ReportItem(3, 0, "ERROR", "'tf.flags' does not resolve")
        >>> group_items([a, ReportItem(5, 2, "ERROR", a.message)])[0].message
        "'tf.flags' does not resolve (2 uses: lines 3, 5)"
    """
    groups: dict[tuple[str, str], list[ReportItem]] = {}
    for item in sorted(items):
        groups.setdefault((item.level, item.message), []).append(item)
    out = []
    for (level, text), found in groups.items():
        lines = sorted({item.line for item in found})
        if len(found) > 1:
            text += f" ({len(found)} uses: {_lines_text(lines)})"
        out.append(ReportItem(found[0].line, found[0].col, level, text))
    return tuple(sorted(out))


def _lines_text(lines: list[int]) -> str:
    spans: list[list[int]] = []
    for line in lines:
        if spans and line == spans[-1][1] + 1:
            spans[-1][1] = line
        else:
            spans.append([line, line])
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
    return ("line " if len(lines) == 1 else "lines ") + text


def summary(results: Sequence[FileResult]) -> dict[str, int]:
    """Counts files per status (and report items per level).

    `errors` counts every ERROR line of the report: the items', and also each unresolved
    name, import error and failed file, so a file that cannot run never reads "0 errors".

    Example:
        >>> summary([])["files"]
        0
    """
    counts = {"files": len(results)}
    for status in Status:
        counts[status.name.lower()] = sum(r.status is status for r in results)
    for level in (INFO, WARNING, ERROR):
        counts[level.lower() + "s"] = sum(i.level == level for r in results for i in r.items)
    counts["unresolved"] = sum(len(r.unresolved) for r in results)
    counts["import_errors"] = sum(bool(r.import_error) for r in results)
    counts["errors"] += counts["unresolved"] + counts["import_errors"] + counts["failed"]
    return counts


def report_text(results: Iterable[FileResult]) -> str:
    """The full report: a summary header, then every file's lines.

    Example:
        >>> report_text([]).splitlines()[0]
        'tfport upgrade report'
    """
    results = list(results)
    counts = summary(results)
    head = [
        "tfport upgrade report",
        f"Processed {files_text(counts)}",
        (
            f"Found {_n(counts['errors'], 'error')}, {_n(counts['warnings'], 'warning')}, "
            f"{_n(counts['infos'], 'info')}; {_n(counts['unresolved'], 'unresolved name')}, "
            f"{_n(counts['import_errors'], 'import error')}"
        ),
        "-" * 80,
    ]
    if results and counts["unchanged"] == len(results):
        head.insert(-1, "Nothing to upgrade: every file runs as is under tfport")
    body = [line for result in results for line in result.lines()]
    return "\n".join(head + body) + "\n"


def files_text(counts: dict[str, int]) -> str:
    """`N files: C changed, U run(s) as is under tfport, M need(s) manual work, F failed`.

    Example:
        >>> files_text(summary([]))
        '0 files: 0 changed, 0 run as is under tfport, 0 need manual work, 0 failed'
    """
    manual = counts["needs_manual"]
    return (
        f"{_n(counts['files'], 'file')}: {counts['changed']} changed, "
        f"{counts['unchanged']} {'runs' if counts['unchanged'] == 1 else 'run'} as is "
        "under tfport, "
        f"{manual} {'needs' if manual == 1 else 'need'} manual work, {counts['failed']} failed"
    )
