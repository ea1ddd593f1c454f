"""Helpers for the upgrade tests."""

from __future__ import annotations

import textwrap

PRELUDE = (
    "import tfport  # tfport upgrade: keep this before TensorFlow is imported\ntfport.install()\n"
)


def src(text: str) -> str:
    """Dedents a triple-quoted source snippet (first newline dropped)."""
    return textwrap.dedent(text).lstrip("\n")
