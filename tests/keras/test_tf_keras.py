"""tf_keras (Keras 2) models: multi-output naming, saver format, weights back, export."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _data  # noqa: E402


def _two_output_model():
    import tf_keras

    tf_keras.utils.set_random_seed(3)
    x = tf_keras.Input((4,), name="x")
    h = tf_keras.layers.Dense(8, activation="relu", name="h")(x)
    a = tf_keras.layers.Dense(3, activation="softmax", name="a")(h)
    b = tf_keras.layers.Dense(3, activation="softmax", name="b")(h)
    model = tf_keras.Model(x, [a, b])
    model.compile(
        optimizer=tf_keras.optimizers.legacy.SGD(0.05),
        loss={"a": "sparse_categorical_crossentropy", "b": "sparse_categorical_crossentropy"},
        loss_weights={"a": 1.0, "b": 0.5},
        metrics=["accuracy"],
    )
    return model


def _legacy_metric_names() -> list[str]:
    """The names graph-mode tf_keras (what legacy model_to_estimator used) gives the metrics."""
    import tensorflow as tf

    with tf.Graph().as_default():
        model = _two_output_model()
        names = [n for n in model.metrics_names if not n.endswith("loss")]
    import tfport.keras._tfkeras as impl

    impl.restore_eager_classes(model)
    return names


@pytest.mark.slow
def test_two_output_metric_names_and_loss(tfport_mod, data, tmp_path):
    import tensorflow as tf

    want_names = _legacy_metric_names()
    assert len(want_names) == 2 and len(set(want_names)) == 2
    model = _two_output_model()
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "m"))
    y2 = (data["train_y"] + 1) % 3

    def train():
        return (
            tf.data.Dataset.from_tensor_slices(
                ({"x": data["train_x"]}, {"a": data["train_y"], "b": y2})
            )
            .repeat()
            .batch(32, drop_remainder=True)
        )

    def evaluate():
        return tf.data.Dataset.from_tensor_slices(
            ({"x": data["test_x"]}, {"a": data["test_y"], "b": (data["test_y"] + 1) % 3})
        ).batch(32)

    est.train(train, max_steps=10)
    metrics = est.evaluate(evaluate)
    assert set(metrics) == {"loss", "global_step", *want_names}
    # Loss and metrics equal tf_keras's own evaluation of the trained weights.
    tfport_mod.keras.load_estimator_weights(model, est.model_dir)
    keras_eval = model.evaluate(
        data["test_x"],
        [data["test_y"], (data["test_y"] + 1) % 3],
        batch_size=32,
        verbose=0,
        return_dict=True,
    )
    assert abs(keras_eval["loss"] - metrics["loss"]) <= 1e-5
    for name in want_names:
        assert abs(keras_eval[name] - metrics[name]) <= 1e-5
    renamed = tfport_mod.keras.model_to_estimator(
        keras_model=model,
        model_dir=str(tmp_path / "m"),
        metric_names_map={want_names[0]: "acc_a", want_names[1]: "acc_b"},
    )
    assert {"acc_a", "acc_b"} <= set(renamed.evaluate(evaluate))


@pytest.mark.slow
def test_saver_format_is_name_based_and_weights_load_back(tfport_mod, data, tmp_path):
    import tensorflow as tf

    model = _data.tf_keras_sequential()
    est = tfport_mod.keras.model_to_estimator(
        keras_model=model, model_dir=str(tmp_path / "m"), checkpoint_format="saver"
    )
    train, _, predict = _data.input_fns(data)
    est.train(train, max_steps=5)
    names = {n for n, _ in tf.train.list_variables(str(tmp_path / "m"))}
    assert {
        "global_step",
        "hidden/kernel",
        "hidden/bias",
        "probs/kernel",
        "probs/bias",
        "training/SGD/hidden/kernel/momentum",
    } <= names
    assert not any(".ATTRIBUTES" in n for n in names)
    preds = _data.predictions(est, predict)
    tfport_mod.keras.load_estimator_weights(model, est.model_dir)
    assert np.max(np.abs(model.predict(data["test_x"], verbose=0) - preds)) <= 1e-5


@pytest.mark.slow
def test_object_checkpoint_loads_back_and_exports(tfport_mod, data, tmp_path):
    import tensorflow as tf

    model = _data.tf_keras_sequential()
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "m"))
    train, _, predict = _data.input_fns(data)
    est.train(train, max_steps=5)
    preds = _data.predictions(est, predict)
    tfport_mod.keras.load_estimator_weights(model, est.model_dir)
    assert np.max(np.abs(model.predict(data["test_x"], verbose=0) - preds)) <= 1e-5

    def receiver():
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        return tfport_mod.estimator.export.TensorServingInputReceiver(x, {"hidden_input": x})

    path = est.export_saved_model(str(tmp_path / "export"), receiver)
    out = tf.saved_model.load(path).signatures["serving_default"](tf.constant(data["test_x"]))
    assert set(out) == {"probs"}
    assert np.max(np.abs(out["probs"].numpy() - preds)) <= 1e-5
    # export_outputs adds a signature per output name.
    classify = tfport_mod.keras.model_to_estimator(
        keras_model=model,
        model_dir=est.model_dir,
        export_outputs={"probs": tfport_mod.estimator.export.PredictOutput},
    )
    path = classify.export_saved_model(str(tmp_path / "export2"), receiver)
    signatures = tf.saved_model.load(path).signatures
    assert set(signatures) == {"serving_default", "probs"}
    scores = signatures["probs"](tf.constant(data["test_x"]))["output"].numpy()
    assert np.max(np.abs(scores - preds)) <= 1e-5


@pytest.mark.slow
def test_current_optimizer_keeps_its_learning_rate(tfport_mod, data, tmp_path):
    import tensorflow as tf
    import tf_keras

    model = _data.tf_keras_sequential(compile_model=False)
    model.compile(
        optimizer=tf_keras.optimizers.Adam(learning_rate=0.0123),
        loss="sparse_categorical_crossentropy",
    )
    est = tfport_mod.keras.model_to_estimator(keras_model=model, model_dir=str(tmp_path / "m"))
    train, _, _ = _data.input_fns(data)
    est.train(train, max_steps=2)
    lr = tf.train.load_variable(est.model_dir, "optimizer/learning_rate/.ATTRIBUTES/VARIABLE_VALUE")
    assert abs(float(lr) - 0.0123) < 1e-7
