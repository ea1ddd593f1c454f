"""Issue 27: code below the public API gives legacy's numbers (legacy/scripts/private_cases.py).

A `_Head` subclass (CTR-library style), the v1 head factories, `get_optimizer_instance` by
name, instance and callable, an `Estimator` subclass building graphs on the internals
(`_call_model_fn`, `_get_features_and_labels_from_input_fn`, `_session_config`, ...) and
evaluated through the `model_fn` wrapper, and input_fns returning Python lists and
`(features, None)`. Each case resumes from the legacy step-0 checkpoint under `tfport run`,
trains to step 40 and must give the legacy step-40 checkpoint (exactly the legacy variable
names, values within 1e-5), metrics and predictions; on `--strategy mirrored:2` within 1e-4.
All one-device cases share one subprocess, all mirrored ones another.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ATOL, ATOL_REPLICAS = 1e-5, 1e-4
CASES = (
    "private_head_subclass",
    "private_head_factory",
    "private_multiclass_head",
    "private_subclass",
    "private_list_input",
)
pytestmark = pytest.mark.slow


def _run_all(goldens: pathlib.Path, root: pathlib.Path, *extra: str) -> dict:
    return compare.run_cases(goldens, root, HERE / "run_private_cases.py", CASES, *extra)


@pytest.fixture(scope="module")
def one_device(goldens, tmp_path_factory):
    return _run_all(goldens, tmp_path_factory.mktemp("private"))


@pytest.fixture(scope="module")
def replicas(goldens, tmp_path_factory):
    return _run_all(
        goldens, tmp_path_factory.mktemp("private_mirrored"), "--strategy", "mirrored:2"
    )


def _assert_matches(case: str, model_dir: pathlib.Path, out: dict, goldens, atol: float) -> None:
    want = compare.assert_run_matches(goldens / case, model_dir, out, atol)
    if case == "private_subclass":
        assert (
            out["model_fn_args"]
            == want["model_fn_args"]
            == ["config", "features", "labels", "mode"]
        )
        assert (
            out["raw_keys"] == want["raw_keys"]
            and out["raw_batch_length"] == want["raw_batch_length"]
        )
        assert abs(out["raw_loss"] - want["raw_loss"]) <= atol
        assert compare.excess(out["raw_predict"], want["raw_predict"]) <= atol


@pytest.mark.parametrize("case", CASES)
def test_case_matches_legacy(case, goldens, one_device):
    model_dir, out = one_device[case]
    _assert_matches(case, model_dir, out, goldens, ATOL)


@pytest.mark.parametrize("case", CASES)
def test_case_on_two_replicas_matches_legacy(case, goldens, replicas):
    model_dir, out = replicas[case]
    _assert_matches(case, model_dir, out, goldens, ATOL_REPLICAS)
