"""The golden canned cases run unmodified under tfport and give the legacy numbers."""

from __future__ import annotations

import json

import pytest
from canned_helpers import (
    ATOL,
    CASES,
    assert_variables_match,
    compare,
    expected,
    step40_copy,
    summary_tags,
)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_resume_from_step0_reproduces_step40(case, canned_runs, goldens):
    _, model_dir, out = canned_runs(case)
    want = expected(goldens, case)
    assert out["variables"] == want["variables"]
    assert_variables_match(
        str(model_dir / "model.ckpt-40"), str(goldens / case / "model_dir" / "model.ckpt-40"), case
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= ATOL
    assert compare.excess(out["predictions"], want["predictions"]) <= ATOL


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_summary_tags_match_golden(case, canned_runs, goldens):
    _, model_dir, _ = canned_runs(case)
    for sub, tags in expected(goldens, case)["summary_tags"].items():
        assert summary_tags(model_dir, sub) == sorted(tags), sub


def _load_cases(legacy_dir, case):
    return compare.load_script(legacy_dir, case)


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_golden_step40_checkpoint_evaluates_to_golden_numbers(case, goldens, legacy_dir, tmp_path):
    import tfport

    tfport.install()
    model_dir = step40_copy(goldens / case, tmp_path / "case")
    cases = _load_cases(legacy_dir, case)
    cases.main(case, str(model_dir), str(tmp_path / "out.json"))
    out = json.loads((tmp_path / "out.json").read_text())
    want = expected(goldens, case)
    assert out["eval_metrics"]["global_step"] == 40
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= ATOL
    assert compare.excess(out["predictions"], want["predictions"]) <= ATOL
