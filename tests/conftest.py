"""The two tiers and shared fixtures. Every test outside tests/unit (golden, scenario and
subprocess suites) is marked `slow` here, so `pytest -m "not slow"` runs the unit tier:
tests/unit, whose folders mirror the packages of src/tfport. Fixtures: the repo's legacy
folder, its committed goldens and the repo root; after each test module, the legacy
variable names of the checkpoints it wrote into golden copies."""

from __future__ import annotations

import os
import pathlib
import sys
import tempfile

import pytest

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
# tfport's home (the key that seals exports) is the suite's own, not the user's ~/.tfport
os.environ.setdefault("TFPORT_HOME", tempfile.mkdtemp(prefix="tfport-home-"))

REPO = pathlib.Path(__file__).resolve().parents[1]
LEGACY = REPO / "legacy"
GOLDENS = LEGACY / "goldens"
UNIT = REPO / "tests" / "unit"


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Marks every test outside tests/unit `slow` (an explicit mark stays as it is)."""
    for item in items:
        if item.get_closest_marker("slow") is None and UNIT not in item.path.resolve().parents:
            item.add_marker(pytest.mark.slow)


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


@pytest.fixture(scope="module", autouse=True)
def _golden_copies_hold_legacy_names():
    """After each module: every checkpoint tfport wrote into a copy of a golden model_dir
    (`compare.step_copy`) holds exactly the variable names of legacy's checkpoint of that
    case. Checked where the copies were made, so the check holds however pytest spreads the
    modules over processes (`make test` runs them on several)."""
    yield
    problems: list[str] = []
    for name in ("compare", "tests.legacy.compare"):  # imported by either name
        module = sys.modules.get(name)
        if module is not None:
            problems += module.unchecked_names()
    assert not problems, "\n".join(problems)
