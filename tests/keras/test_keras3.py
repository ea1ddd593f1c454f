"""Keras 3 models (TensorFlow backend) through model_to_estimator, and weights back."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _data  # noqa: E402
import compare  # noqa: E402

CASE = "keras_model_to_estimator"


@pytest.fixture(scope="module")
def tfport_mod():
    import tfport

    tfport.install()
    return tfport


@pytest.fixture(scope="module")
def data():
    return _data.data()


@pytest.fixture(scope="module")
def expected(goldens):
    return json.loads((goldens / CASE / "expected.json").read_text())


def _config(tfport, model_dir):
    return tfport.estimator.RunConfig(model_dir=str(model_dir), tf_random_seed=7,
                                      save_checkpoints_steps=20)


@pytest.fixture(scope="module")
def from_golden_step0(tfport_mod, goldens, data, tmp_path_factory):
    """A Keras 3 model resumed from the legacy (tf_keras) step-0 checkpoint."""
    model_dir = compare.step0_copy(goldens / CASE, tmp_path_factory.mktemp("k3golden"))
    model = _data.keras3_sequential()
    est = tfport_mod.keras.model_to_estimator(keras_model=model,
                                              config=_config(tfport_mod, model_dir))
    train, evaluate, predict = _data.input_fns(data)
    est.train(train, max_steps=40)
    return est, model, est.evaluate(evaluate), _data.predictions(est, predict)


@pytest.mark.slow
def test_keras3_resumes_legacy_checkpoint_and_matches_golden(from_golden_step0, goldens,
                                                             expected):
    est, _, metrics, preds = from_golden_step0
    compare.assert_checkpoints_match(str(pathlib.Path(est.model_dir) / "model.ckpt-40"),
                                     str(goldens / CASE / "model_dir" / "model.ckpt-40"), 1e-5)
    assert metrics["accuracy"] >= expected["eval_metrics"]["accuracy"] - 0.03
    assert compare.max_abs_diff(preds, expected["predictions"]) <= 1e-5


@pytest.mark.slow
def test_load_estimator_weights_into_keras3_model(from_golden_step0, tfport_mod, data):
    est, model, _, preds = from_golden_step0
    tfport_mod.keras.load_estimator_weights(model, est.model_dir)
    got = model.predict(data["test_x"], verbose=0)
    assert np.max(np.abs(got - preds)) <= 1e-5


@pytest.mark.slow
def test_keras3_trains_from_its_own_weights(tfport_mod, data, expected, tmp_path):
    model = _data.keras3_sequential()
    initial = [v.numpy() for v in model.weights]
    est = tfport_mod.keras.model_to_estimator(keras_model=model,
                                              config=_config(tfport_mod, tmp_path / "m"))
    train, evaluate, predict = _data.input_fns(data)
    est.train(train, max_steps=40)
    metrics = est.evaluate(evaluate)
    assert metrics["global_step"] == 40
    assert metrics["accuracy"] >= expected["eval_metrics"]["accuracy"] - 0.03
    # The first checkpoint is the model's weights (warm start from model_dir/keras/).
    tfport_mod.keras.load_estimator_weights(model, str(tmp_path / "m" / "model.ckpt-0"))
    for want, var in zip(initial, model.weights):
        np.testing.assert_array_equal(var.numpy(), want)
    assert (tmp_path / "m" / "keras" / "checkpoint").exists()


@pytest.mark.slow
def test_keras3_saver_format_name_based_and_export(tfport_mod, data, tmp_path):
    import tensorflow as tf

    model = _data.keras3_sequential()
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "m"),
                                              checkpoint_format="saver")
    train, _, predict = _data.input_fns(data)
    est.train(train, max_steps=5)
    names = {n for n, _ in tf.train.list_variables(str(tmp_path / "m"))}
    assert {v.path for v in model.weights} | {"global_step"} <= names
    assert not any(".ATTRIBUTES" in n for n in names)
    preds = _data.predictions(est, predict)
    tfport_mod.keras.load_estimator_weights(model, str(tmp_path / "m"))
    assert np.max(np.abs(model.predict(data["test_x"], verbose=0) - preds)) <= 1e-5
    _check_export(tfport_mod, est, tmp_path, data, preds)


def _check_export(tfport, est, tmp_path, data, preds):
    import tensorflow as tf

    def receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        return tfport.estimator.export.TensorServingInputReceiver(x, {"hidden_input": x})

    path = est.export_saved_model(str(tmp_path / "export"), receiver)
    signature = tf.saved_model.load(path).signatures["serving_default"]
    out = signature(tf.constant(data["test_x"]))
    assert set(out) == {"probs"}
    assert np.max(np.abs(out["probs"].numpy() - preds)) <= 1e-5
