"""Issue 27c: custom Estimators built on the canned internals give legacy's numbers
(legacy/scripts/private_canned.py): `canned.dnn.dnn_model_fn_v2` with a v2 head and batch
norm, `canned.linear.linear_logit_fn_builder_v2` with the `head.base_head` label, weight and
train-op helpers, and a wide & deep model_fn on `canned.linear.LinearModel` plus
`canned.dnn.dnn_logit_fn_builder_v2` in a variable scope.

Each case resumes from the legacy step-0 checkpoint under `tfport run`, trains to step 40
and must give the legacy step-40 checkpoint (exactly legacy's variable names, values within
1e-5), metrics, predictions and training summary tags; on `mirrored:2` within 1e-4.
"""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
CASES = ("private_dnn_model_fn", "private_linear_logit_fn", "private_linear_model")
REPLICATED = ("private_linear_logit_fn",)  # create_estimator_spec_train_op scales by replica
pytestmark = pytest.mark.slow


def _run(goldens: pathlib.Path, root: pathlib.Path, cases: tuple, *extra: str) -> dict:
    return compare.run_cases(goldens, root, HERE / "run_private_canned.py", cases, *extra)


@pytest.fixture(scope="module")
def one_device(goldens, tmp_path_factory):
    return _run(goldens, tmp_path_factory.mktemp("canned"), CASES)


@pytest.fixture(scope="module")
def replicas(goldens, tmp_path_factory):
    root = tmp_path_factory.mktemp("canned_mirrored")
    return _run(goldens, root, REPLICATED, "--strategy", "mirrored:2")


def _assert_matches(case: str, model_dir: pathlib.Path, out: dict, goldens, atol: float) -> None:
    want = compare.assert_run_matches(goldens / case, model_dir, out, atol)
    assert compare.summary_tags(model_dir) == set(want["summary_tags"]["."])


@pytest.mark.parametrize("case", CASES)
def test_case_matches_legacy(case, goldens, one_device):
    model_dir, out = one_device[case]
    _assert_matches(case, model_dir, out, goldens, 1e-5)


@pytest.mark.parametrize("case", REPLICATED)
def test_case_on_two_replicas_matches_legacy(case, goldens, replicas):
    model_dir, out = replicas[case]
    _assert_matches(case, model_dir, out, goldens, 1e-4)
