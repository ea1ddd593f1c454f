"""Bad input to model_to_estimator / load_estimator_weights: one clear TfportInputError."""

from __future__ import annotations

import pytest
from tests.keras import _data


@pytest.fixture(scope="module")
def errors():
    from tfport._common import errors

    return errors


@pytest.mark.parametrize(
    "build", [_data.tf_keras_sequential, _data.keras3_sequential], ids=["tf_keras", "keras3"]
)
def test_uncompiled_model(tfport_mod, errors, build, tmp_path):
    with pytest.raises(errors.TfportInputError, match="has not been compiled.*model.compile"):
        tfport_mod.keras.model_to_estimator(
            keras_model=build(compile_model=False), model_dir=str(tmp_path)
        )


@pytest.mark.parametrize(
    "build", [_data.tf_keras_sequential, _data.keras3_sequential], ids=["tf_keras", "keras3"]
)
def test_feature_keys_not_matching_inputs(tfport_mod, errors, data, build, tmp_path):
    est = tfport_mod.keras.model_to_estimator(keras_model=build(), model_dir=str(tmp_path))
    train, _, _ = _data.input_fns(data, key="wrong_name")
    with pytest.raises(errors.TfportInputError) as info:
        est.train(train, max_steps=1)
    text = str(info.value)
    assert "expected_keys=['hidden_input']" in text and "received_keys=['wrong_name']" in text


def test_subclassed_model_with_object_checkpoints(tfport_mod, errors, tmp_path):
    import tf_keras

    class Net(tf_keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf_keras.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    model = Net()
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(errors.TfportInputError, match="checkpoint_format='saver'"):
        tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path))


def test_keras3_unbuilt_subclassed_model(tfport_mod, errors, tmp_path):
    import keras

    class Net(keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = keras.layers.Dense(3)

        def call(self, x):
            return self.dense(x)

    model = Net()
    model.compile(optimizer="sgd", loss="mse")
    with pytest.raises(errors.TfportInputError, match="is not built.*call a subclassed model"):
        tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path))


@pytest.mark.parametrize(
    "kwargs, pattern",
    [
        ({"checkpoint_format": "h5"}, "checkpoint_format must be"),
        ({}, "needs keras_model or keras_model_path"),
        ({"keras_model_path": "/nonexistent/model.h5"}, "does not exist"),
    ],
    ids=["format", "nothing", "missing-path"],
)
def test_bad_arguments(tfport_mod, errors, kwargs, pattern, tmp_path):
    if "checkpoint_format" in kwargs:
        kwargs["keras_model"] = _data.tf_keras_sequential()
    with pytest.raises(errors.TfportInputError, match=pattern):
        tfport_mod.keras.model_to_estimator(model_dir=str(tmp_path), **kwargs)


def test_load_weights_from_empty_dir(tfport_mod, errors, tmp_path):
    with pytest.raises(errors.TfportInputError, match="holds no checkpoint"):
        tfport_mod.keras.load_estimator_weights(_data.keras3_sequential(), str(tmp_path))
