"""Heads and public names: metric / prediction keys and values consistent with TF's outputs."""

from __future__ import annotations

import numpy as np
import pytest

from tfport.estimator.v1 import __all__ as V1_NAMES

BINARY_METRICS = {
    "accuracy",
    "accuracy_baseline",
    "auc",
    "auc_precision_recall",
    "average_loss",
    "global_step",
    "label/mean",
    "loss",
    "precision",
    "prediction/mean",
    "recall",
}
CLASS_PREDICTIONS = {
    "all_class_ids",
    "all_classes",
    "class_ids",
    "classes",
    "logits",
    "probabilities",
}


def _tf():
    from tfport._common.tfenv import import_tf

    return import_tf()


def _data(n=48):
    rng = np.random.RandomState(0)
    x = rng.normal(size=(n, 3)).astype("float32")
    color = np.array(["r", "g", "b"])[rng.randint(0, 3, n)]
    weight = rng.uniform(0.5, 2.0, n).astype("float32")
    return {"x": x, "color": color, "w": weight}


def _columns():
    fc = _tf().feature_column
    color = fc.categorical_column_with_vocabulary_list("color", ["r", "g", "b"])
    return [fc.numeric_column("x", shape=(3,)), fc.indicator_column(color)], color


def _fns(features, labels):
    tf = _tf()

    def train():
        return tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(16)

    def evaluate():
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(16)

    def predict():
        return tf.data.Dataset.from_tensor_slices(features).batch(16)

    return train, evaluate, predict


def test_v1_and_v2_public_names_come_from_the_registry():
    import importlib

    import tfport.estimator as v2
    from tfport._common import canned
    from tfport.estimator import v1

    stems = ("Baseline", "DNN", "DNNLinearCombined", "Linear")  # legacy's canned families
    kinds = ("Classifier", "Estimator", "Regressor")
    assert sorted(canned.FAMILY) == sorted(s + k for s in stems for k in kinds)
    for name in V1_NAMES:
        home_v1 = importlib.import_module(canned.home(name, v1=True))
        assert getattr(v1, name) is getattr(home_v1, name)
        assert getattr(v2, name) is getattr(importlib.import_module(canned.home(name)), name)
        assert getattr(v2, name) is not getattr(v1, name)
        assert name in v1.__all__ and name in v2.__all__ and name in dir(v2)
    assert {"MultiClassHead", "BinaryClassHead", "RegressionHead"} <= set(v2.__all__)


def test_default_optimizers_follow_legacy_rules():
    from tfport.estimator._canned import optimizers

    tf = _tf()
    assert optimizers.linear_learning_rate(2) == 0.2
    assert optimizers.linear_learning_rate(100) == pytest.approx(0.1)
    adam = optimizers.get_v2("Adam")
    assert isinstance(adam, tf.keras.optimizers.legacy.Adam)
    assert adam.get_config()["learning_rate"] == pytest.approx(0.001)
    with tf.Graph().as_default():
        adagrad = optimizers.get_v1("Adagrad", 0.05)
    assert isinstance(adagrad, tf.compat.v1.train.AdagradOptimizer)
    assert adagrad._learning_rate == 0.05


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_binary_classifier_metrics_match_its_own_predictions(tmp_path, v2):
    import tfport.estimator as _canned
    from tfport.estimator import v1 as _canned_v1

    module = _canned if v2 else _canned_v1
    features = _data()
    labels = (features["x"][:, 0] + 0.3 * features["x"][:, 1] > 0).astype("int64")
    dense, color = _columns()
    est = module.DNNLinearCombinedClassifier(
        str(tmp_path),
        linear_feature_columns=[color],
        dnn_feature_columns=dense,
        dnn_hidden_units=[4],
        weight_column="w",
    )
    train, evaluate, predict = _fns(features, labels)
    metrics = est.train(train, steps=5).evaluate(evaluate)
    preds = list(est.predict(predict))
    assert set(metrics) == BINARY_METRICS
    assert set(preds[0]) == CLASS_PREDICTIONS | {"logistic"}
    w = features["w"]
    logits = np.array([p["logits"][0] for p in preds], "float64")
    p1 = 1.0 / (1.0 + np.exp(-logits))
    xent = np.maximum(logits, 0) - logits * labels + np.log1p(np.exp(-np.abs(logits)))
    classes = np.array([p["class_ids"][0] for p in preds])
    np.testing.assert_allclose(metrics["average_loss"], np.sum(xent * w) / np.sum(w), rtol=1e-5)
    np.testing.assert_allclose(
        metrics["accuracy"], np.sum((classes == labels) * w) / np.sum(w), rtol=1e-5
    )
    np.testing.assert_allclose(metrics["label/mean"], np.sum(labels * w) / np.sum(w), rtol=1e-5)
    np.testing.assert_allclose(metrics["prediction/mean"], np.sum(p1 * w) / np.sum(w), rtol=1e-5)
    assert [p["classes"][0] for p in preds] == [str(c).encode() for c in classes]


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_regressor_loss_reduction_and_metrics(tmp_path, v2):
    import tfport.estimator as _canned
    from tfport.estimator import v1 as _canned_v1

    module = _canned if v2 else _canned_v1
    features = _data()
    labels = (features["x"] @ np.array([[1.0], [-2.0], [0.5]], "float32")).astype("float32")
    dense, color = _columns()
    est = module.LinearRegressor([dense[0], color], str(tmp_path))
    train, evaluate, predict = _fns(features, labels)
    metrics = est.train(train, steps=5).evaluate(evaluate)
    got = np.array([p["predictions"][0] for p in est.predict(predict)], "float64")
    assert set(metrics) == {"average_loss", "global_step", "label/mean", "loss", "prediction/mean"}
    squared = (got - labels[:, 0]) ** 2
    np.testing.assert_allclose(metrics["average_loss"], squared.mean(), rtol=1e-5)
    np.testing.assert_allclose(metrics["prediction/mean"], got.mean(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(metrics["label/mean"], labels.mean(), rtol=1e-5)
    # v1 reports the loss summed over each batch of 16, v2 its mean over the batch.
    batch_loss = squared.reshape(3, 16).sum(1) if not v2 else squared.reshape(3, 16).mean(1)
    np.testing.assert_allclose(metrics["loss"], batch_loss.mean(), rtol=1e-5)


def test_baseline_classifier_learns_the_prior(tmp_path):
    import tfport.estimator as _canned

    features = _data()
    labels = np.array([0, 1, 2, 2] * 12, "int64")
    est = _canned.BaselineClassifier(
        str(tmp_path), n_classes=3, optimizer=_tf().keras.optimizers.legacy.SGD(1.0)
    )
    train, evaluate, predict = _fns({"x": features["x"]}, labels)
    est.train(train, steps=200)
    probs = next(iter(est.predict(predict)))["probabilities"]
    np.testing.assert_allclose(probs, [0.25, 0.25, 0.5], atol=0.02)
    assert est.get_variable_names()[:1] == ["baseline/bias"]


def test_v1_estimator_takes_public_head_with_v1_semantics(tmp_path):
    import tfport.estimator as _canned
    from tfport.estimator import v1 as _canned_v1

    features = _data()
    labels = np.argmax(features["x"], 1).astype("int64")
    head = _canned.MultiClassHead(3, loss_reduction="sum")
    est = _canned_v1.DNNEstimator(head, [4], _columns()[0], str(tmp_path))
    train, evaluate, _ = _fns(features, labels)
    metrics = est.train(train, steps=3).evaluate(evaluate)
    names = est.get_variable_names()
    assert "dnn/hiddenlayer_0/kernel/t_0/Adagrad" in names  # v1 Adagrad slots, partitioned
    # SUM reduction: the loss metric is the per-batch sum (16 examples) of the average loss.
    np.testing.assert_allclose(metrics["loss"], 16 * metrics["average_loss"], rtol=1e-5)
