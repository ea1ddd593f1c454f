"""The v2 heads' `metrics()` / `update_metrics()` against the legacy golden `api_head_metrics`.

The legacy script (`legacy/scripts/api_head_metrics.py`) runs in-process under
`tfport.install()`: eagerly (keys with and without regularization losses, two batches'
results) and through `Estimator.evaluate` of a custom model_fn whose `eval_metric_ops` are
the head's metric objects; and the whole script under `tfport run --strategy mirrored:2`
(the Estimator section then evaluates on two replicas).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

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
    assert compare.excess(got, want) <= ATOL


@pytest.mark.parametrize("kind", KINDS)
def test_head_metric_objects_as_eval_metric_ops_evaluate_as_legacy(kind, numbers):
    got, want = (n["estimator"][kind] for n in numbers)
    assert sorted(got) == sorted(want)
    assert compare.excess(got, want) <= ATOL


def test_binary_accuracy_baseline_follows_the_label_mean(numbers):
    got = numbers[0]["estimator"]["binary"]
    label_mean = got["label/mean/bin"]
    assert got["accuracy_baseline/bin"] == pytest.approx(max(label_mean, 1 - label_mean))


@pytest.mark.slow
def test_head_metric_objects_evaluate_as_legacy_on_two_replicas(goldens, tmp_path):
    script = compare.script(goldens.parent, CASE)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", "--strategy", "mirrored:2", str(script)]
    proc = subprocess.run(
        [*cmd, CASE, str(tmp_path)], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads((tmp_path / "expected.json").read_text())["estimator"]
    want = json.loads((goldens / CASE / "expected.json").read_text())["estimator"]
    for kind in KINDS:
        assert sorted(got[kind]) == sorted(want[kind]), kind
        assert compare.excess(got[kind], want[kind]) <= 1e-4, kind
