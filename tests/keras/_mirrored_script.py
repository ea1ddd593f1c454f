"""Trains a Keras model through model_to_estimator; run by test_mirrored.py under `tfport run`.

tfport run [--strategy mirrored:2] _mirrored_script.py tf_keras2out,keras3 WORK_DIR OUT
"""

import json
import sys

import numpy as np
import tensorflow as tf

import tfport

flavors, work_dir, out = sys.argv[1:4]
rng = np.random.RandomState(0)
x = rng.normal(size=(256, 4)).astype("float32")
y = np.argmax(x @ rng.normal(size=(4, 3)), 1).astype("int64")
y2 = (y + 1) % 3


def build(flavor):
    """The model and its labels."""
    if flavor == "keras3":
        return build_keras3()

    K = tf.keras
    K.utils.set_random_seed(3)
    inp = K.Input((4,), name="x")
    h = K.layers.Dense(8, activation="relu", name="h")(inp)
    outs = [K.layers.Dense(3, activation="softmax", name=n)(h) for n in ("a", "b")]
    model = K.Model(inp, outs)
    model.compile(
        optimizer=K.optimizers.legacy.SGD(0.05, momentum=0.9),
        loss={"a": "sparse_categorical_crossentropy", "b": "sparse_categorical_crossentropy"},
        loss_weights={"a": 1.0, "b": 0.5},
        metrics=["accuracy"],
    )
    return model, {"a": y, "b": y2}


def build_keras3():
    import keras as K

    K.utils.set_random_seed(3)
    model = K.Sequential(
        [
            K.Input((4,), name="x"),
            K.layers.Dense(8, activation="relu"),
            K.layers.Dense(3, activation="softmax", name="a"),
        ]
    )
    model.compile(
        optimizer=K.optimizers.SGD(0.05, momentum=0.9),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    return model, y


def run(flavor, model_dir):
    """Trains 12 steps, evaluates; returns metrics and the step-12 weights."""
    model, labels = build(flavor)
    est = tf.keras.estimator.model_to_estimator(
        keras_model=model, config=tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=1)
    )

    def train_fn():
        return (
            tf.data.Dataset.from_tensor_slices(({"x": x}, labels))
            .repeat()
            .batch(32, drop_remainder=True)
        )

    def eval_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, labels)).batch(32)

    est.train(train_fn, max_steps=12)
    metrics = est.evaluate(eval_fn)
    reader = tf.train.load_checkpoint(model_dir)
    weights = {
        k: reader.get_tensor(k).tolist()
        for k in reader.get_variable_to_shape_map()
        if k.startswith("layer_with_weights") and "OPTIMIZER" not in k
    }
    tfport.keras.load_estimator_weights(model, model_dir)
    return {"metrics": {k: float(v) for k, v in metrics.items()}, "weights": weights}


results = {f: run(f, f"{work_dir}/{f}") for f in flavors.split(",")}
with open(out, "w") as f:
    json.dump(results, f)
