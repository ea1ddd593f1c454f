"""Shared data and models for the Keras tests (the golden cases' data, from their script)."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy as np

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "legacy" / "scripts" / "estimator_cases.py"


def data() -> dict:
    """The golden cases' synthetic data (numpy seed 1234), from legacy/scripts."""
    spec = importlib.util.spec_from_file_location("legacy_estimator_cases", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DATA


def keras3_sequential(compile_model: bool = True):
    """The golden model built with Keras 3."""
    import keras

    keras.utils.set_random_seed(7)
    model = keras.Sequential(
        [
            keras.Input((4,), name="hidden_input"),
            keras.layers.Dense(16, activation="relu", name="hidden"),
            keras.layers.Dense(3, activation="softmax", name="probs"),
        ]
    )
    if compile_model:
        model.compile(
            optimizer=keras.optimizers.SGD(learning_rate=0.05, momentum=0.9),
            loss="sparse_categorical_crossentropy",
            metrics=["accuracy"],
        )
    return model


def tf_keras_sequential(compile_model: bool = True):
    """The golden model built with tf_keras (Keras 2)."""
    import tf_keras

    tf_keras.utils.set_random_seed(7)
    model = tf_keras.Sequential(
        [
            tf_keras.layers.Dense(16, activation="relu", input_shape=(4,), name="hidden"),
            tf_keras.layers.Dense(3, activation="softmax", name="probs"),
        ]
    )
    if compile_model:
        model.compile(
            optimizer=tf_keras.optimizers.legacy.SGD(learning_rate=0.05, momentum=0.9),
            loss="sparse_categorical_crossentropy",
            metrics=["accuracy"],
        )
    return model


def input_fns(d: dict, key: str = "hidden_input"):
    """(train, eval, predict) input_fns as in the golden case."""
    import tensorflow as tf

    def train():
        return (
            tf.data.Dataset.from_tensor_slices(({key: d["train_x"]}, d["train_y"]))
            .repeat()
            .batch(32, drop_remainder=True)
        )

    def evaluate():
        return tf.data.Dataset.from_tensor_slices(({key: d["test_x"]}, d["test_y"])).batch(32)

    def predict():
        return tf.data.Dataset.from_tensor_slices({key: d["test_x"]}).batch(32)

    return train, evaluate, predict


def predictions(est, predict_fn, key: str = "probs") -> np.ndarray:
    return np.array([p[key] for p in est.predict(predict_fn)])
