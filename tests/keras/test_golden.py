"""Golden `keras_model_to_estimator`: the legacy script under `tfport run` from step 0."""

from __future__ import annotations

import json
import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

CASE = "keras_model_to_estimator"


@pytest.fixture(scope="module")
def run(goldens, legacy_dir, tmp_path_factory):
    work = tmp_path_factory.mktemp("golden")
    model_dir = compare.step0_copy(goldens / CASE, work)
    out = compare.run_case(legacy_dir, CASE, model_dir, work / "out.json")
    return out, model_dir, json.loads((goldens / CASE / "expected.json").read_text())


@pytest.mark.slow
def test_step40_checkpoint_matches_golden(run, goldens):
    _, model_dir, expected = run
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / CASE / "model_dir" / "model.ckpt-40"), 1e-5
    )
    import tensorflow as tf

    names = sorted(name for name, _ in tf.train.list_variables(str(model_dir / "model.ckpt-40")))
    assert names == expected["variables"]  # includes _CHECKPOINTABLE_OBJECT_GRAPH


@pytest.mark.slow
def test_metrics_and_predictions_match_golden(run):
    out, _, expected = run
    assert out["variables"] == expected["variables"]
    assert compare.excess(out["eval_metrics"], expected["eval_metrics"]) <= 1e-5
    assert compare.excess(out["predictions"], expected["predictions"]) <= 1e-5


@pytest.mark.slow
def test_first_checkpoint_in_keras_dir_has_legacy_keys(run, goldens):
    import tensorflow as tf

    _, model_dir, _ = run
    got = sorted(n for n, _ in tf.train.list_variables(str(model_dir / "keras")))
    golden_keras = goldens / CASE / "model_dir" / "keras"
    want = sorted(n for n, _ in tf.train.list_variables(str(golden_keras)))
    assert got == want


@pytest.mark.slow
def test_unmodified_script_on_mirrored_2_matches_golden(goldens, legacy_dir, tmp_path):
    """The seed scenario on 2 replicas (`tfport run --strategy mirrored:2`), no code change."""
    model_dir = compare.step0_copy(goldens / CASE, tmp_path)
    out = compare.run_case(
        legacy_dir, CASE, model_dir, tmp_path / "out.json", "--strategy", "mirrored:2"
    )
    expected = json.loads((goldens / CASE / "expected.json").read_text())
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / CASE / "model_dir" / "model.ckpt-40"), 1e-4
    )
    assert compare.excess(out["eval_metrics"], expected["eval_metrics"]) <= 1e-4
    assert compare.excess(out["predictions"], expected["predictions"]) <= 1e-4
