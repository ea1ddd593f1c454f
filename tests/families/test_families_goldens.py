"""KMeans, the logit-fn builders and the RNN estimators reproduce the legacy goldens.

Each case of legacy/scripts/families_cases.py resumes from the legacy step-0 checkpoint
under `tfport run`, trains to step 40 and must give the legacy step-40 variables (names,
shapes, dtypes, values within 1e-5), metrics and predictions (and, for KMeans, cluster
centres, scores, cluster indices and distances).
"""

from __future__ import annotations

import json

import pytest

from conftest import ATOL, compare

CASES = (
    "families_kmeans",
    "families_kmeans_pp",
    "families_logit_fns",
    "families_rnn_simple_rnn",
    "families_rnn_lstm",
    "families_rnn_gru",
)
KMEANS_KEYS = ("cluster_centers", "score", "cluster_index", "transform")

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("case", CASES)
def test_case_reproduces_the_legacy_golden(case, goldens, families_runs):
    model_dir, out = families_runs[case]
    want = json.loads((goldens / case / "expected.json").read_text())
    assert out["variables"] == want["variables"]
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"),
        str(goldens / case / "model_dir" / "model.ckpt-40"),
        ATOL,
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= ATOL
    assert compare.excess(out["predictions"], want["predictions"]) <= ATOL
    if case.startswith("families_kmeans"):
        for key in KMEANS_KEYS:
            assert compare.excess(out[key], want[key]) <= ATOL, key
