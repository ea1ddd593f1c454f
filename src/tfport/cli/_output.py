"""Output a person reads: sizes, plurals, terminal detection, colour, progress.

Everything here is decided per stream: a table, colour or a progress display is used
only when the stream is a terminal (and `NO_COLOR` is unset for colour); piped output is
plain text that never cuts a name. Imports no TensorFlow.

Example:
    >>> human_bytes(1536)
    '1.5 KiB'
    >>> plural(1, "file")
    '1 file'
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator, Sequence
from typing import IO, Any

from tfport._common.text import human_bytes, plural

__all__ = [
    "Counter",
    "colour_diff",
    "human_bytes",
    "is_terminal",
    "plural",
    "print_table",
    "spinner",
    "use_colour",
]

_DIFF_COLOURS = (("+++", "1"), ("---", "1"), ("@@", "36"), ("+", "32"), ("-", "31"))


def is_terminal(stream: IO[str] | None = None) -> bool:
    """Whether `stream` (default stdout) is a terminal.

    Example:
        >>> is_terminal(open(os.devnull, "w"))
        False
    """
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def use_colour(stream: IO[str] | None = None) -> bool:
    """Colour only on a terminal, and never when `NO_COLOR` is set (no-color.org).

    Example:
        >>> use_colour(open(os.devnull, "w"))
        False
    """
    return is_terminal(stream) and not os.environ.get("NO_COLOR")


def colour_diff(text: str) -> str:
    """A unified diff with ANSI colours: additions green, removals red, hunks cyan.

    Example:
        >>> colour_diff("+x\\n") == "\\x1b[32m+x\\x1b[0m\\n"
        True
    """
    out = []
    for line in text.splitlines(keepends=True):
        body = line.rstrip("\n")
        end = line[len(body) :]
        code = next((c for prefix, c in _DIFF_COLOURS if body.startswith(prefix)), None)
        out.append(f"\x1b[{code}m{body}\x1b[0m{end}" if code else line)
    return "".join(out)


@contextlib.contextmanager
def spinner(text: str, stream: IO[str] | None = None) -> Iterator[None]:
    """Shows `text` with a spinner and the elapsed time on `stream` (default stderr),
    only when it is a terminal; the line goes away when the block ends.

    Example:
        >>> with spinner("converting"):
        ...     pass
    """
    stream = sys.stderr if stream is None else stream
    if not is_terminal(stream):
        yield
        return
    from rich.console import Console

    with Console(file=stream).status(f"{text} …"):
        yield


class Counter:
    """Progress of N items on a terminal (`text 12/300`), silent otherwise.

    `note(line)` prints a line above the progress display (or plainly when not on a
    terminal), so per-item lines and the display never mix.

    Example:
        >>> with Counter("upgrading", 2, open(os.devnull, "w")) as counter:
        ...     counter.advance()
    """

    def __init__(self, text: str, total: int, stream: IO[str] | None = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.text, self.total = text, total
        self._progress: Any = None
        self._task: Any = None

    def __enter__(self) -> Counter:
        if is_terminal(self.stream) and self.total > 1:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                console=Console(file=self.stream, highlight=False),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(self.text, total=self.total)
        return self

    def note(self, line: str) -> None:
        """Prints one line for a person (above the display on a terminal)."""
        if self._progress is not None:
            self._progress.console.print(line, markup=False)
        else:
            print(line, file=self.stream, flush=True)

    def advance(self) -> None:
        """Counts one item done."""
        if self._progress is not None:
            self._progress.advance(self._task)

    def __exit__(self, *exc: object) -> None:
        if self._progress is not None:
            self._progress.stop()


def print_table(
    title: str, columns: list[str], rows: Sequence[Sequence[object]], stream: IO[str] | None = None
) -> None:
    """Prints rows for people: a rich table on a terminal (long cells wrap, never cut),
    plain columns separated by two spaces otherwise (every cell whole, so `grep` and
    `cut` find full names).

    Example:
        >>> print_table("t", ["name", "size"], [["a/b", "1 B"]], open(os.devnull, "w"))
    """
    stream = sys.stdout if stream is None else stream
    cells = [["" if x is None else str(x) for x in row] for row in rows]
    if is_terminal(stream):
        from rich.console import Console
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        last = len(columns) - 1
        for index, column in enumerate(columns):  # the first and last cells may wrap
            table.add_column(column, overflow="fold", no_wrap=0 < index < last)
        for row in cells:
            table.add_row(*row)
        Console(file=stream, highlight=False, markup=False).print(table)
        return
    widths = [max([len(c)] + [len(r[i]) for r in cells]) for i, c in enumerate(columns)]
    print(title, file=stream)
    for row in [columns, *cells]:
        line = "  ".join(cell.ljust(width) for cell, width in zip(row, widths))
        print(line.rstrip(), file=stream)
