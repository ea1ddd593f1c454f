"""The v2 heads' `metrics()` / `update_metrics()` against the legacy golden `api_head_metrics`.

The legacy script (`legacy/scripts/api_head_metrics.py`) runs in-process under
`tfport.install()`: eagerly (keys with and without regularization losses, two batches'
results) and through `Estimator.evaluate` of a custom model_fn whose `eval_metric_ops` are
the head's metric objects.
"""

from __future__ import annotations

import json

import pytest
from tests.legacy import compare

CASE = "api_head_metrics"
ATOL = 1e-5
KINDS = ["binary", "multi_label", "multi_label_vocab", "multi_class", "regression"]


@pytest.fixture(scope="module")
def numbers(goldens, tmp_path_factory):
    """(tfport's, legacy's) numbers: the script's eager and Estimator sections."""
    import tfport

    tfport.install()
    script = compare.load_script(goldens.parent, CASE)
    want = json.loads((goldens / CASE / "expected.json").read_text())
    got = {
        "eager": script.eager_numbers(),
        "estimator": script.estimator_numbers(str(tmp_path_factory.mktemp("heads"))),
    }
    return got, want


@pytest.mark.parametrize("kind", KINDS)
def test_head_metrics_have_the_legacy_keys(kind, numbers):
    got, want = (n["eager"][kind] for n in numbers)
    assert got["keys"] == want["keys"]
    assert got["keys_with_regularization"] == want["keys_with_regularization"]


@pytest.mark.parametrize("kind", KINDS)
def test_update_metrics_gives_the_legacy_results_eagerly(kind, numbers):
    got, want = (n["eager"][kind]["results"] for n in numbers)
    assert sorted(got) == sorted(want)
    assert compare.max_abs_diff(got, want) <= ATOL


@pytest.mark.parametrize("kind", KINDS)
def test_head_metric_objects_as_eval_metric_ops_evaluate_as_legacy(kind, numbers):
    got, want = (n["estimator"][kind] for n in numbers)
    assert sorted(got) == sorted(want)
    assert compare.max_abs_diff(got, want) <= ATOL


def test_binary_accuracy_baseline_follows_the_label_mean(numbers):
    got = numbers[0]["estimator"]["binary"]
    label_mean = got["label/mean/bin"]
    assert got["accuracy_baseline/bin"] == pytest.approx(max(label_mean, 1 - label_mean))
