"""Inputs users rely on: sample weights in the features dict, saved models, subclassed models."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _data  # noqa: E402

KERNEL = "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE"


def _train(est, data, weights, steps=3):
    import tensorflow as tf

    def input_fn():
        features = {"features": {"hidden_input": data["train_x"]}, "sample_weights": weights}
        return tf.data.Dataset.from_tensor_slices((features, data["train_y"])).repeat().batch(32)

    est.train(input_fn, max_steps=steps)


@pytest.mark.slow
@pytest.mark.parametrize(
    "build", [_data.tf_keras_sequential, _data.keras3_sequential], ids=["tf_keras", "keras3"]
)
def test_sample_weights_through_features_dict(tfport_mod, data, build, tmp_path):
    import tensorflow as tf

    zero = tfport_mod.keras.model_to_estimator(keras_model=build(), model_dir=str(tmp_path / "z"))
    _train(zero, data, np.zeros(384, "float32"))
    one = tfport_mod.keras.model_to_estimator(keras_model=build(), model_dir=str(tmp_path / "o"))
    _train(one, data, np.ones(384, "float32"))
    start = tf.train.load_variable(str(tmp_path / "z" / "model.ckpt-0"), KERNEL)
    np.testing.assert_array_equal(tf.train.load_variable(str(tmp_path / "z"), KERNEL), start)
    assert np.abs(tf.train.load_variable(str(tmp_path / "o"), KERNEL) - start).max() > 1e-4


def test_keras_model_path_h5_and_keras(tfport_mod, tmp_path):
    import tensorflow as tf

    tf_keras_model = _data.tf_keras_sequential()
    tf_keras_model.save(tmp_path / "model.h5")
    keras3_model = _data.keras3_sequential()
    keras3_model.save(tmp_path / "model.keras")
    for name, want in (("model.h5", tf_keras_model), ("model.keras", keras3_model)):
        est = tfport_mod.keras.model_to_estimator(
            keras_model_path=str(tmp_path / name), model_dir=str(tmp_path / f"m_{name}")
        )
        first = est.model_dir + "/keras/keras_model.ckpt"
        np.testing.assert_allclose(tf.train.load_variable(first, KERNEL), want.weights[0].numpy())


@pytest.mark.slow
def test_subclassed_tf_keras_model_with_saver_format(tfport_mod, data, tmp_path):
    import tensorflow as tf
    import tf_keras

    class Net(tf_keras.Model):
        def __init__(self, units=3, **kwargs):
            super().__init__(**kwargs)
            self.units = units
            self.dense = tf_keras.layers.Dense(units, activation="softmax")

        def call(self, x):
            return self.dense(x)

        def get_config(self):
            return {"units": self.units}

    model = Net()
    model.compile(
        optimizer=tf_keras.optimizers.legacy.SGD(0.1), loss="sparse_categorical_crossentropy"
    )
    est = tfport_mod.keras.model_to_estimator(
        keras_model=model, model_dir=str(tmp_path), checkpoint_format="saver"
    )
    est.train(
        lambda: (
            tf.data.Dataset.from_tensor_slices((data["train_x"], data["train_y"]))
            .repeat()
            .batch(32)
        ),
        max_steps=2,
    )
    names = {n for n, _ in tf.train.list_variables(str(tmp_path))}
    assert {"global_step", "net/dense/kernel", "net/dense/bias"} <= names
