"""Helpers for the canned-estimator golden tests (runs of ../shared/legacy/cases.py)."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

CASES = (
    "canned_dnn",
    "canned_linear",
    "canned_combined",
    "canned_dnn_v2",
    "canned_linear_regressor_v2",
)
# Cases whose DNN is trained by the v1 Adagrad optimizer. Their accumulators (values up to
# ~350) differ from the golden files by one float32 ulp (up to 3.05e-5) -- and so does the
# real TF 2.15 + tensorflow-estimator 2.15 stack when run on this machine from the same
# step-0 checkpoint (measured: tfport equals that local legacy run bit for bit). The golden
# files were made on a CPU whose kernels round differently, so for these cases the
# variables are compared within 1e-5 + 2.5e-7 * |value| (about two ulps).
ULP_CASES = ("canned_dnn", "canned_combined")
ATOL = 1e-5


def expected(goldens: pathlib.Path, case: str) -> dict:
    """The golden expected.json of `case`."""
    return json.loads((goldens / case / "expected.json").read_text())


def assert_variables_match(got_prefix: str, want_prefix: str, case: str) -> None:
    """Same names, dtypes and shapes; values within ATOL (plus ~2 ulps for ULP_CASES)."""
    if case not in ULP_CASES:
        compare.assert_checkpoints_match(got_prefix, want_prefix, ATOL)
        return
    got, want = compare.read_checkpoint(got_prefix), compare.read_checkpoint(want_prefix)
    assert sorted(got) == sorted(want), sorted(set(got) ^ set(want))
    for name, value in want.items():
        assert got[name].dtype == value.dtype and got[name].shape == value.shape, name
        np.testing.assert_allclose(got[name], value, rtol=2.5e-7, atol=ATOL, err_msg=name)


def summary_tags(model_dir: pathlib.Path, sub: str) -> list:
    """Sorted tags of the event files under model_dir/sub."""
    return sorted(compare.summary_tags(model_dir, sub))


def step40_copy(golden_case: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """Copies a golden model_dir keeping only model.ckpt-40 (to evaluate it directly)."""
    return compare.step_copy(golden_case, dest, 40)
