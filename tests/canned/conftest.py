"""Runs of the golden canned cases shared by the tests of this folder (one per case)."""

from __future__ import annotations

import pytest
from canned_helpers import compare


@pytest.fixture(scope="session")
def canned_runs(goldens, legacy_dir, tmp_path_factory):
    """case -> (work dir, model_dir, out dict) of `tfport run SCRIPT CASE` from step 0."""
    cache: dict = {}

    def get(case: str):
        if case not in cache:
            work = tmp_path_factory.mktemp(case) / "case"
            model_dir = compare.step0_copy(goldens / case, work)
            out = compare.run_case(legacy_dir, case, model_dir, work / "out.json")
            cache[case] = (work, model_dir, out)
        return cache[case]

    return get
