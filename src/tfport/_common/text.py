"""Words and numbers for people: byte sizes in KiB/MiB/GiB and counted nouns.

Example:
    >>> human_bytes(1536), plural(1, "file"), plural(2, "file")
    ('1.5 KiB', '1 file', '2 files')
"""

from __future__ import annotations

_UNITS = ("KiB", "MiB", "GiB", "TiB")


def human_bytes(count: int) -> str:
    """A byte count as people read it: `512 B`, `1.5 KiB`, `3.0 MiB`, `2.1 GiB`.

    Example:
        >>> human_bytes(0), human_bytes(2048), human_bytes(5 * 1024**3)
        ('0 B', '2.0 KiB', '5.0 GiB')
    """
    if count < 1024:
        return f"{count} B"
    value = float(count)
    for unit in _UNITS[:-1]:
        value /= 1024
        if value < 1024:
            return f"{value:.1f} {unit}"
    return f"{value / 1024:.1f} {_UNITS[-1]}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """`count` and `word`, in the plural (`many`, default `word + "s"`) unless `count` is 1.

    Example:
        >>> plural(2, "file"), plural(1, "tensor"), plural(3, "mismatch", "mismatches")
        ('2 files', '1 tensor', '3 mismatches')
    """
    return f"{count} {word if count == 1 else (many or word + 's')}"
