"""Fixtures of the checkpoint tests."""

from __future__ import annotations

import pytest
from ckpt_helpers import write_adam_ckpt


@pytest.fixture
def small_ckpt(tmp_path) -> str:
    """A small name-based TF1 Adam checkpoint written by tfport."""
    return write_adam_ckpt(str(tmp_path / "src" / "model.ckpt-3"))
