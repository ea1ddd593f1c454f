"""Model factories for the porting tests (`MODULE:FACTORY` for `tfport ckpt port`)."""

from __future__ import annotations

import numpy as np


def golden_inputs() -> np.ndarray:
    """The goldens' test rows (legacy/scripts/estimator_cases.py: RandomState(1234), rows 384:)."""
    rng = np.random.RandomState(1234)
    return rng.normal(size=(512, 4)).astype("float32")[384:]


def keras3_mlp(softmax: bool = False):
    """Keras 3: Dense 16 relu -> Dense 3 (the golden custom_v1_adam network)."""
    import keras

    model = keras.Sequential(
        [
            keras.Input((4,)),
            keras.layers.Dense(16, activation="relu"),
            keras.layers.Dense(3, activation="softmax" if softmax else None),
        ]
    )
    return model


def keras3_softmax_mlp():
    return keras3_mlp(softmax=True)


def tf_keras_mlp():
    """tf_keras (Keras 2): the same network."""
    import tf_keras

    return tf_keras.Sequential(
        [
            tf_keras.layers.Dense(16, activation="relu", input_shape=(4,)),
            tf_keras.layers.Dense(3),
        ]
    )
