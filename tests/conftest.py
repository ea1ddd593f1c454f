"""Shared fixtures: the repo's legacy folder, its committed goldens and the repo root."""

from __future__ import annotations

import os
import pathlib

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")

REPO = pathlib.Path(__file__).resolve().parents[1]
LEGACY = REPO / "legacy"
GOLDENS = LEGACY / "goldens"


@pytest.fixture(scope="session")
def goldens() -> pathlib.Path:
    """`legacy/goldens`: artifacts made by the real TF 2.15 stack (read them, never write)."""
    return GOLDENS


@pytest.fixture(scope="session")
def legacy_dir() -> pathlib.Path:
    """`legacy/` (generate.py, scripts/ with the case scripts, goldens/)."""
    return LEGACY


@pytest.fixture(scope="session")
def repo_root() -> pathlib.Path:
    return REPO
