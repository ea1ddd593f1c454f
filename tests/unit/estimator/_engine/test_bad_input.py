"""Bad input to the engine: one clear error (what, where, how to fix, Received: ...)."""

from __future__ import annotations

import pathlib

import pytest
import tensorflow as tf
from tests.estimator import models

import tfport.estimator as tfe
from tfport._common.errors import TfportInputError

v1 = tf.compat.v1


def _checkpoints(model_dir: pathlib.Path) -> list[str]:
    return sorted(p.name for p in model_dir.glob("model.ckpt-*")) if model_dir.exists() else []


def _assert_clear(err: pytest.ExceptionInfo, *words: str) -> None:
    text = str(err.value)
    assert "\n" not in text and "Received:" in text, text
    for word in words:
        assert word in text, text


def test_model_fn_returning_wrong_type(tmp_path):
    est = tfe.Estimator(
        lambda features, labels, mode: {"loss": 1}, config=tfe.RunConfig(model_dir=str(tmp_path))
    )
    with pytest.raises(TfportInputError) as err:
        est.train(models.input_fn(), max_steps=2)
    _assert_clear(err, "EstimatorSpec", "dict")
    assert _checkpoints(tmp_path) == []


def test_spec_missing_train_op(tmp_path):
    def model_fn(features, labels, mode):
        logits = v1.layers.dense(features, 2)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        return tfe.EstimatorSpec(mode, loss=loss)

    est = tfe.Estimator(model_fn, config=tfe.RunConfig(model_dir=str(tmp_path)))
    with pytest.raises(TfportInputError) as err:
        est.train(models.input_fn(), max_steps=2)
    _assert_clear(err, "train_op")
    assert _checkpoints(tmp_path) == []


@pytest.mark.parametrize(
    "mode,kwargs,field",
    [
        (tfe.ModeKeys.EVAL, {}, "loss"),
        (tfe.ModeKeys.PREDICT, {}, "predictions"),
        ("fit", {}, "mode"),
    ],
    ids=["eval-without-loss", "predict-without-predictions", "unknown-mode"],
)
def test_spec_validation_names_the_field(mode, kwargs, field):
    with tf.Graph().as_default(), pytest.raises(TfportInputError) as err:
        tfe.EstimatorSpec(mode, **kwargs)
    _assert_clear(err, field)


def test_input_fn_returning_something_else(tmp_path):
    est = models.estimator(tmp_path)
    with pytest.raises(TfportInputError) as err:
        est.train(lambda: "not features", max_steps=2)
    _assert_clear(err, "input_fn", "Dataset")
    assert _checkpoints(tmp_path) == []


def test_input_fn_not_callable(tmp_path):
    est = models.estimator(tmp_path)
    with pytest.raises(TfportInputError) as err:
        est.train(tf.data.Dataset.range(3), max_steps=2)
    _assert_clear(err, "callable")


def test_checkpoint_lacking_a_graph_variable(tmp_path):
    models.estimator(tmp_path).train(models.input_fn(), max_steps=2)

    def bigger_model_fn(features, labels, mode, params):
        features = v1.layers.dense(features, 4, name="extra")
        return models.model_fn(features, labels, mode, params)

    est = tfe.Estimator(
        bigger_model_fn, config=tfe.RunConfig(model_dir=str(tmp_path)), params={"lr": 0.1}
    )
    before = _checkpoints(tmp_path)
    for call in (
        lambda: est.train(models.input_fn(), max_steps=5),
        lambda: est.evaluate(models.input_fn(repeat=False)),
    ):
        with pytest.raises(TfportInputError) as err:
            call()
        _assert_clear(err, "extra/kernel", "missing")
    assert _checkpoints(tmp_path) == before


def test_unwritable_model_dir(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x")
    est = models.estimator(blocker / "model_dir")
    with pytest.raises(TfportInputError) as err:
        est.train(models.input_fn(), max_steps=2)
    _assert_clear(err, "not writable", "model_dir")


def test_run_config_rejects_both_checkpoint_triggers():
    with pytest.raises(TfportInputError) as err:
        tfe.RunConfig(save_checkpoints_steps=10, save_checkpoints_secs=10)
    _assert_clear(err, "exclusive")


def test_train_rejects_steps_and_max_steps(tmp_path):
    with pytest.raises(TfportInputError) as err:
        models.estimator(tmp_path).train(models.input_fn(), steps=1, max_steps=2)
    _assert_clear(err, "steps")


@pytest.mark.parametrize(
    "raw,words",
    [
        ("{not json", ["not valid JSON"]),
        ('{"cluster": {"worker": "127.0.0.1:1"}}', ["cluster"]),
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "ps", "index": 0}}', ["ps"]),
        ('{"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 3}}', ["index"]),
    ],
    ids=["syntax", "addresses-not-list", "unknown-task-type", "index-out-of-range"],
)
def test_malformed_tf_config(monkeypatch, raw, words):
    monkeypatch.setenv("TF_CONFIG", raw)
    with pytest.raises(TfportInputError) as err:
        tfe.RunConfig()
    _assert_clear(err, "TF_CONFIG", *words)
