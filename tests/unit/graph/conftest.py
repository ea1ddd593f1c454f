"""Fixtures of the graph unit tests: those of the graph scenario tests (tests/graph)."""

from __future__ import annotations

from tests.graph.conftest import frozen_dir, while_readfile_pb

__all__ = ["frozen_dir", "while_readfile_pb"]
