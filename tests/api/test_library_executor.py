"""Issue 41, Build 1: `training._TrainingExecutor` (its `run` / `run_local` / `run_evaluator`,
`_Evaluator`), `_ContinuousEvalListener`, `_EvalResult`, `_assert_eval_spec` and
`exporter._SavedModelExporter(name, serving_input_receiver_fn, assets_extra, as_text)`, as a
recommender library uses them to build its own `train_and_evaluate`, against TF 2.15
(legacy/goldens/library_executor, made by legacy/scripts/library_executor.py; the model's
weights start from constants, so legacy's numbers repeat)."""

from __future__ import annotations

import inspect
import json
import pathlib

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/library_executor/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "library_executor")
NUMBERS = ("metrics", "stopped_metrics", "evaluated", "served")
ATOL = 1e-5  # legacy's values are rounded to 5 decimals


@pytest.fixture(scope="module")
def installed():
    import tfport

    tfport.install()


def _assert_matches(got: dict, want: dict) -> None:
    assert set(got) == set(want)
    for key, value in want.items():
        if key in NUMBERS:
            assert compare.excess(got[key], value) <= ATOL, (key, got[key], value)
        else:
            assert got[key] == value, key


def test_the_names_a_library_imports_resolve_with_legacy_signatures(installed):
    from tensorflow.python.estimator import exporter, training

    params = list(inspect.signature(exporter._SavedModelExporter).parameters)
    assert params == ["name", "serving_input_receiver_fn", "assets_extra", "as_text"]
    params = list(inspect.signature(training._TrainingExecutor).parameters)
    assert params == [
        "estimator",
        "train_spec",
        "eval_spec",
        "train_hooks",
        "continuous_eval_listener",
    ]
    assert {"run", "run_chief", "run_worker", "run_master", "run_evaluator", "run_ps"} <= set(
        dir(training._TrainingExecutor)
    )
    assert list(inspect.signature(training._assert_eval_spec).parameters) == ["eval_spec"]


def test_executor_and_eval_result_checks_raise_legacy_errors(installed, tmp_path):
    assert SCRIPT.errors(str(tmp_path)) == GOLDEN["errors"]


@pytest.mark.slow
def test_run_local_evaluates_after_each_save_and_a_listener_stops_it(installed, tmp_path):
    _assert_matches(SCRIPT.run_local(str(tmp_path)), GOLDEN["run_local"])


@pytest.mark.slow
def test_the_evaluator_statuses_and_run_evaluator_stopped_by_its_listener(installed, tmp_path):
    _assert_matches(SCRIPT.evaluator(str(tmp_path)), GOLDEN["evaluator"])


@pytest.mark.slow
def test_saved_model_exporter_writes_and_serves_what_legacy_did(installed, tmp_path):
    _assert_matches(SCRIPT.exporter(str(tmp_path)), GOLDEN["exporter"])


def test_a_worker_waits_as_long_as_the_patched_legacy_constant_says(installed, monkeypatch):
    import tensorflow as tf
    from tensorflow.python.estimator import training

    from tfport.estimator._engine.running import training_executor

    slept, trained = [], []
    est = tf.estimator.Estimator(lambda features, labels, mode: None)
    est._config._task_type, est._config._task_id = "worker", 2
    monkeypatch.setattr(training_executor.time, "sleep", slept.append)
    monkeypatch.setattr(training_executor, "_is_google_env", lambda: True)  # no server
    monkeypatch.setattr(est, "train", lambda **kwargs: trained.append(kwargs["max_steps"]))
    spec = tf.estimator.TrainSpec(lambda: None, max_steps=3)
    executor = training._TrainingExecutor(est, spec, None)
    executor.run_worker()
    monkeypatch.setattr(training, "_DELAY_SECS_PER_WORKER", 0)  # as scripts do
    executor.run_worker()
    assert slept == [15] and trained == [3, 3]  # legacy: min(60, (2 + 1) * 5), then none


def test_public_train_and_evaluate_runs_the_executor_libraries_patch(installed, monkeypatch):
    """Without a cluster, tf.estimator.train_and_evaluate is _TrainingExecutor(...).run(),
    as on TF 2.15: a library's patch of run_local is what it runs."""
    import tensorflow as tf
    from tensorflow.python.estimator import training

    seen = []

    def run_local(self):
        seen.append((self.estimator, self._train_spec.max_steps))
        return {"loss": 0.5}, ["export"]

    monkeypatch.setattr(training._TrainingExecutor, "run_local", run_local)
    est = tf.estimator.Estimator(lambda features, labels, mode: None)
    train, evaluate = tf.estimator.TrainSpec(lambda: None, 7), tf.estimator.EvalSpec(lambda: None)
    assert tf.estimator.train_and_evaluate(est, train, evaluate) == ({"loss": 0.5}, ["export"])
    assert seen == [(est, 7)]
