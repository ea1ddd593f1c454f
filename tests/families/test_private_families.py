"""Families only private modules reach reproduce the legacy goldens (families_private.py).

`TimeSeriesRegressor` over an `ARModel`, `LSTMAutoRegressor` and `SavedModelEstimator`
(over a DNNRegressor's `experimental_export_all_saved_models` export), imported from the
legacy `tensorflow_estimator.python.estimator.canned...` paths, resume from the legacy
step-0 checkpoint under `tfport run` and must give the legacy step-40 variables (names,
shapes, dtypes, values within 1e-5), metrics, predictions and what their exports serve;
on `mirrored:2` the same within 1e-4. The `saved_model_utils` functions also serve the
legacy stack's own export.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import ATOL, HERE, compare, tfport_run

pytestmark = pytest.mark.slow

TS_CASES = ("private_ts_ar", "private_ts_lstm")
SME = "private_saved_model"
# SavedModelEstimator first: the time-series cases turn resource variables off for the
# rest of the process (TF 2.15 needed that to evaluate them), which canned v2 estimators
# (Keras optimizers) do not survive on TF 2.21
CASES = (SME, *TS_CASES)
REPLICAS_ATOL = 1e-4
SME_KEYS = ("saved_model_eval", "saved_model_eval_after_train", "saved_model_vars_after_train")


def _run(goldens, root, *extra):
    jobs, runs = [], {}
    for case in CASES:
        model_dir = compare.step0_copy(goldens / case, root / case)
        runs[case] = (model_dir, root / case / "out.json")
        jobs.append(f"{case},{model_dir},{root / case / 'out.json'}")
    script = HERE / "run_cases_with_loops.py"
    proc = tfport_run(*extra, str(script), "families_private", *jobs)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {case: (d, json.loads(out.read_text())) for case, (d, out) in runs.items()}, proc


@pytest.fixture(scope="module")
def one_device(goldens, tmp_path_factory):
    """case -> (model_dir, out) on one device (one subprocess for the three cases)."""
    return _run(goldens, tmp_path_factory.mktemp("private"))[0]


@pytest.fixture(scope="module")
def mirrored(goldens, tmp_path_factory):
    """(case -> (model_dir, out), the process) on `--strategy mirrored:2`."""
    return _run(goldens, tmp_path_factory.mktemp("private_m2"), "--strategy", "mirrored:2")


def _assert_matches(goldens, case, model_dir, out, atol):
    want = json.loads((goldens / case / "expected.json").read_text())
    assert out["variables"] == want["variables"]
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / case / "model_dir" / "model.ckpt-40"), atol
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= atol
    assert len(out["predictions"]) == len(want["predictions"])
    for got, expected in zip(out["predictions"], want["predictions"]):
        assert compare.excess(got, expected) <= atol
    keys = SME_KEYS if case == SME else ("served",)
    for key in keys:
        assert compare.excess(out[key], want[key]) <= atol, key


@pytest.mark.parametrize("case", CASES)
def test_case_reproduces_the_legacy_golden(case, goldens, one_device):
    model_dir, out = one_device[case]
    _assert_matches(goldens, case, model_dir, out, ATOL)
    want = json.loads((goldens / case / "expected.json").read_text())
    for folder, tags in want["summary_tags"].items():  # array metrics: tensor summaries
        assert compare.summary_tags(model_dir, folder) == set(tags), folder


@pytest.mark.parametrize("case", CASES)
def test_case_on_two_replicas_gives_one_devices_numbers(case, goldens, mirrored):
    runs, _ = mirrored
    model_dir, out = runs[case]
    _assert_matches(goldens, case, model_dir, out, REPLICAS_ATOL)


def test_saved_model_estimator_says_it_runs_on_one_device(mirrored):
    _, proc = mirrored
    lines = [line for line in proc.stderr.splitlines() if "SavedModelEstimator runs on one" in line]
    assert len(lines) == 1, proc.stderr[-2000:]


def test_saved_model_utils_serve_the_legacy_export(goldens):
    """tfport's cold_start_filter / filter_continuation / predict_continuation on the
    SavedModel the TF 2.15 stack exported give what the TF 2.15 functions gave."""
    import tfport

    tfport.install()
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned.timeseries import saved_model_utils

    script = compare.load_script(goldens.parent, "private_ts_ar")
    want = json.loads((goldens / "private_ts_ar" / "expected.json").read_text())
    export = goldens / "private_ts_ar" / "export" / want["export_dir"]
    times, values = script._series(2, seed=3)
    got = script._serve_ar(tf, saved_model_utils, str(export), times, values)
    assert compare.excess(json.loads(json.dumps(script._plain(got))), want["served"]) <= ATOL


def test_one_shot_export_signature_takes_examples_and_no_state(goldens, one_device):
    """LSTMAutoRegressor's export: one `serving_default` over tf.Examples, state left out."""
    import tensorflow as tf

    model_dir, out = one_device["private_ts_lstm"]
    path = model_dir.parent / "export" / out["export_dir"]
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.loader.load(session, ["serve"], str(path))
    assert sorted(meta.signature_def) == ["serving_default"]
    signature = meta.signature_def["serving_default"]
    assert sorted(signature.inputs) == ["examples"]
    assert sorted(signature.outputs) == ["covariance", "mean"]
    assert np.asarray(out["served"]["mean"]).shape == (2, 4, 1)
