"""Shared fixtures: paths to the legacy goldens (read-only) and the repo root."""

from __future__ import annotations

import os
import pathlib

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

REPO = pathlib.Path(__file__).resolve().parents[1]
SHARED_LEGACY = (REPO / ".." / "shared" / "legacy").resolve()
GOLDENS = SHARED_LEGACY / "goldens"


@pytest.fixture(scope="session")
def goldens() -> pathlib.Path:
    """The read-only golden artifacts made by the real TF 2.15 stack."""
    return GOLDENS


@pytest.fixture(scope="session")
def legacy_dir() -> pathlib.Path:
    """`../shared/legacy` (cases.py, make_goldens.py, goldens/)."""
    return SHARED_LEGACY


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO
