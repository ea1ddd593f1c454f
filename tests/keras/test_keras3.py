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
def expected(goldens):
    return json.loads((goldens / CASE / "expected.json").read_text())


def _config(tfport, model_dir):
    return tfport.estimator.RunConfig(
        model_dir=str(model_dir), tf_random_seed=7, save_checkpoints_steps=20
    )


@pytest.fixture(scope="module")
def from_golden_step0(tfport_mod, goldens, data, tmp_path_factory):
    """A Keras 3 model resumed from the legacy (tf_keras) step-0 checkpoint."""
    model_dir = compare.step0_copy(goldens / CASE, tmp_path_factory.mktemp("k3golden"))
    model = _data.keras3_sequential()
    est = tfport_mod.keras.model_to_estimator(
        keras_model=model, config=_config(tfport_mod, model_dir)
    )
    train, evaluate, predict = _data.input_fns(data)
    est.train(train, max_steps=40)
    return est, model, est.evaluate(evaluate), _data.predictions(est, predict)


@pytest.mark.slow
def test_keras3_resumes_legacy_checkpoint_and_matches_golden(from_golden_step0, goldens, expected):
    est, _, metrics, preds = from_golden_step0
    compare.assert_checkpoints_match(
        str(pathlib.Path(est.model_dir) / "model.ckpt-40"),
        str(goldens / CASE / "model_dir" / "model.ckpt-40"),
        1e-5,
    )
    assert metrics["accuracy"] >= expected["eval_metrics"]["accuracy"] - 0.03
    assert compare.excess(preds, expected["predictions"]) <= 1e-5


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
    est = tfport_mod.keras.model_to_estimator(
        keras_model=model, config=_config(tfport_mod, tmp_path / "m")
    )
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
    est = tfport_mod.keras.model_to_estimator(
        keras_model=model, model_dir=str(tmp_path / "m"), checkpoint_format="saver"
    )
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


def _keras3_two_outputs(metrics):
    import keras

    keras.utils.set_random_seed(3)
    x = keras.Input((4,), name="x")
    h = keras.layers.Dense(
        8, activation="relu", name="h", kernel_regularizer=keras.regularizers.l2(0.01)
    )(x)
    h = keras.layers.BatchNormalization(name="bn")(h)
    a = keras.layers.Dense(3, activation="softmax", name="a")(h)
    b = keras.layers.Dense(3, activation="softmax", name="b")(h)
    model = keras.Model(x, [a, b])
    model.compile(
        optimizer=keras.optimizers.Adam(0.01),
        loss={"a": "sparse_categorical_crossentropy", "b": "sparse_categorical_crossentropy"},
        loss_weights={"a": 1.0, "b": 0.5},
        metrics=metrics,
    )
    return model


@pytest.mark.slow
def test_keras3_two_outputs_batchnorm_regularizer(tfport_mod, data, tmp_path):
    import tensorflow as tf

    model = _keras3_two_outputs({"a": ["accuracy"], "b": ["accuracy"]})
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path))
    labels = {"a": data["train_y"], "b": (data["train_y"] + 1) % 3}
    test_labels = [data["test_y"], (data["test_y"] + 1) % 3]
    est.train(
        lambda: (
            tf.data.Dataset.from_tensor_slices(({"x": data["train_x"]}, labels)).repeat().batch(32)
        ),
        max_steps=10,
    )
    metrics = est.evaluate(
        lambda: tf.data.Dataset.from_tensor_slices(
            ({"x": data["test_x"]}, {"a": test_labels[0], "b": test_labels[1]})
        ).batch(32)
    )
    preds = list(
        est.predict(lambda: tf.data.Dataset.from_tensor_slices({"x": data["test_x"]}).batch(32))
    )
    assert set(preds[0]) == {"a", "b"}
    tfport_mod.keras.load_estimator_weights(model, est.model_dir)
    got = model.predict(data["test_x"], verbose=0)
    for i, key in enumerate("ab"):
        assert np.max(np.abs(got[i] - np.array([p[key] for p in preds]))) <= 1e-5
    # Keras 3's own evaluation of the same weights: same metric names, same numbers.
    want = model.evaluate(data["test_x"], test_labels, batch_size=32, verbose=0, return_dict=True)
    names = {k for k in want if not k.endswith("loss")}
    assert names and names <= set(metrics)
    for key in names | {"loss"}:
        assert abs(want[key] - metrics[key]) <= 1e-5, key


def test_keras3_metrics_not_fitting_outputs(tfport_mod, data, tmp_path):
    import tensorflow as tf

    from tfport._common.errors import TfportInputError

    model = _keras3_two_outputs(["accuracy"])
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path))
    labels = {"a": data["train_y"], "b": data["train_y"]}
    with pytest.raises(TfportInputError, match="compiled metrics do not fit"):
        est.train(
            lambda: tf.data.Dataset.from_tensor_slices(({"x": data["train_x"]}, labels)).batch(32),
            max_steps=1,
        )


@pytest.mark.slow
def test_keras3_subclassed_model(tfport_mod, data, tmp_path):
    import tensorflow as tf

    import keras

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.hidden = keras.layers.Dense(16, activation="relu")
            self.out = keras.layers.Dense(3, activation="softmax")

        def call(self, x):
            return self.out(self.hidden(x))

    model = Net()
    model(data["train_x"][:2])  # builds the weights
    model.compile(
        optimizer=keras.optimizers.SGD(0.05, momentum=0.9),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path))
    est.train(
        lambda: (
            tf.data.Dataset.from_tensor_slices((data["train_x"], data["train_y"]))
            .repeat()
            .batch(32)
        ),
        max_steps=5,
    )
    assert "layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE" in {
        n for n, _ in tf.train.list_variables(str(tmp_path))
    }
    preds = _data.predictions(
        est, lambda: tf.data.Dataset.from_tensor_slices(data["test_x"]).batch(32), key="output_1"
    )
    tfport_mod.keras.load_estimator_weights(model, est.model_dir)
    assert np.max(np.abs(model.predict(data["test_x"], verbose=0) - preds)) <= 1e-5
