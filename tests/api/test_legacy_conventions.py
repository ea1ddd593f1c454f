"""Issue 41, Build 3: legacy's internal call conventions that libraries built on Estimator's
internals rely on, against TF 2.15 (legacy/goldens/library_conventions, made by
legacy/scripts/library_conventions.py): the class-level `_assert_members_are_not_overridden`
call, session runs with empty fetches, saving listeners reaching the saver hook once,
serialized `Summary` metrics written to the eval event file, and a subclass overriding
legacy's training, evaluation and export steps (`_train_model_default`,
`_train_with_estimator_spec`, `_evaluate_build_graph`/`_evaluate_run`,
`_add_meta_graph_for_mode`).
"""

from __future__ import annotations

import json
import pathlib

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/library_conventions/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "library_conventions")


@pytest.fixture(scope="module")
def installed():
    import tfport

    tfport.install()


@pytest.mark.slow
def test_a_class_level_staticmethod_patch_reaches_subclasses_and_keras_estimators(
    installed, tmp_path
):
    assert SCRIPT.class_level(str(tmp_path)) == GOLDEN["class_level"]


@pytest.mark.slow
def test_empty_fetches_return_the_empty_structure_in_training_and_evaluation_hooks(
    installed, tmp_path
):
    assert SCRIPT.empty_fetches(str(tmp_path)) == GOLDEN["empty_fetches"]


@pytest.mark.slow
def test_a_saving_listener_is_called_once_per_save_however_often_it_is_named(installed, tmp_path):
    assert SCRIPT.listeners(str(tmp_path)) == GOLDEN["listeners"]


@pytest.mark.slow
def test_serialized_summary_metrics_reach_the_eval_event_file_as_legacy_wrote_them(
    installed, tmp_path
):
    got = SCRIPT.eval_summaries(str(tmp_path))
    want = GOLDEN["eval_summaries"]
    assert got["result_types"] == want["result_types"]
    assert [v[:3] + v[4:] for v in got["event_values"]] == [
        v[:3] + v[4:] for v in want["event_values"]
    ]
    for mine, theirs in zip(got["event_values"], want["event_values"], strict=True):
        if isinstance(theirs[3], float):
            assert compare.excess(mine[3], theirs[3]) <= 1e-5, mine
        else:
            assert mine[3] == theirs[3], mine


@pytest.mark.slow
def test_a_subclass_overriding_legacy_training_and_evaluation_steps_runs_as_on_legacy(
    installed, tmp_path
):
    got = SCRIPT.subclass_steps(str(tmp_path))
    want = GOLDEN["subclass_steps"]
    calls = [c for c in got["calls"] if c[0] != "loss"]
    assert calls == [c for c in want["calls"] if c[0] != "loss"]
    losses = [c[1] for c in got["calls"] if c[0] == "loss"]
    assert compare.excess(losses, [c[1] for c in want["calls"] if c[0] == "loss"]) <= 1e-5
    assert compare.excess(got["kernel"], want["kernel"]) <= 1e-5
    assert got["results"].keys() == want["results"].keys()
    assert compare.excess(list(got["results"].values()), list(want["results"].values())) <= 1e-5
    assert got["eval_events"] == want["eval_events"]
    assert got["export_tags"] == want["export_tags"]


def test_legacy_steps_refuse_a_strategy_other_than_the_run_configs(installed, tmp_path):
    import tensorflow as tf

    est = tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path))
    with pytest.raises(ValueError, match="RunConfig's eval_distribute"):
        est._actual_eval(None, strategy=object())
    with pytest.raises(ValueError, match="RunConfig's train_distribute"):
        est._actual_train_model_distributed(object(), None, [], [])
