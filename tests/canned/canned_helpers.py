"""Helpers for the canned-estimator golden tests (runs of legacy/scripts/estimator_cases.py)."""

from __future__ import annotations

import json
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

CASES = (
    "canned_dnn",
    "canned_linear",
    "canned_combined",
    "canned_dnn_v2",
    "canned_linear_regressor_v2",
)
# Every variable of every canned case is compared within ATOL. The goldens that came from
# elsewhere held Adagrad accumulators (~350) that the legacy stack, re-run here, reproduced
# only to one float32 ulp (3.05e-5), so the canned DNN cases needed ~2 ulps. The project's
# own goldens are made on this kind of machine: resumed from step 0 under tfport, all five
# canned cases reproduce every step-40 variable exactly (measured max difference 0.0,
# predictions 6e-8), so no extra tolerance is kept.
ATOL = 1e-5


def expected(goldens: pathlib.Path, case: str) -> dict:
    """The golden expected.json of `case`."""
    return json.loads((goldens / case / "expected.json").read_text())


def assert_variables_match(got_prefix: str, want_prefix: str, case: str) -> None:
    """Same names, dtypes and shapes; values within ATOL (`case` names the failure)."""
    try:
        compare.assert_checkpoints_match(got_prefix, want_prefix, ATOL)
    except AssertionError as e:
        raise AssertionError(f"{case}: {e}") from e


def summary_tags(model_dir: pathlib.Path, sub: str) -> list:
    """Sorted tags of the event files under model_dir/sub."""
    return sorted(compare.summary_tags(model_dir, sub))


def step40_copy(golden_case: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """Copies a golden model_dir keeping only model.ckpt-40 (to evaluate it directly)."""
    return compare.step_copy(golden_case, dest, 40)
