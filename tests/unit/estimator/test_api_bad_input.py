"""Bad input to the new public functions: one clear line naming what was received."""

from __future__ import annotations

import json
import sys

import numpy as np
import pytest

import tfport
from tfport._common.errors import TfportInputError


@pytest.fixture(scope="module")
def tf():
    tfport.install()
    import tensorflow

    return tensorflow


def _one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text and "Received" in text, text
    return text


@pytest.mark.parametrize(
    "kwargs, fragment",
    [
        ({"x": {"a": np.zeros(3)}, "shuffle": None}, "shuffle"),
        ({"x": [1, 2], "shuffle": False}, "dict or a numpy array"),
        ({"x": {}, "shuffle": False}, "empty dict"),
        ({"x": {"a": np.zeros(3)}, "y": {"a": np.zeros(3)}, "shuffle": False}, "duplicate"),
        ({"x": {"a": np.zeros(3)}, "y": np.zeros(2), "shuffle": False}, "mismatched"),
        ({"x": {"a": np.zeros(3)}, "batch_size": 0, "shuffle": False}, "batch_size"),
    ],
)
def test_numpy_input_fn_rejects(tf, kwargs, fragment):
    with pytest.raises(TfportInputError) as err:
        tf.compat.v1.estimator.inputs.numpy_input_fn(**kwargs)
    assert fragment in _one_line(err)


def test_pandas_input_fn_rejects(tf):
    import pandas as pd

    with pytest.raises(TfportInputError) as err:
        tf.estimator.inputs.pandas_input_fn(np.zeros(3), shuffle=False)
    assert "DataFrame" in _one_line(err)
    frame = pd.DataFrame({"a": [1.0, 2.0]})
    with pytest.raises(TfportInputError) as err:
        tf.estimator.inputs.pandas_input_fn(frame, pd.Series([1, 2], index=[5, 6]), shuffle=False)
    assert "Index" in _one_line(err)


def test_pandas_input_fn_without_pandas_gives_the_install_hint(tf, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(TfportInputError) as err:
        tf.estimator.inputs.pandas_input_fn(object(), shuffle=False)
    assert "tfport[pandas]" in _one_line(err)


def test_hooks_and_extenders_reject(tf, tmp_path):
    est = tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path))
    exp = tf.estimator.experimental
    cases = [
        (lambda: exp.make_early_stopping_hook(object(), lambda: True), "Estimator"),
        (lambda: exp.make_early_stopping_hook(est, 3), "callable"),
        (lambda: exp.stop_if_higher_hook(est, 7, 0.5), "metric_name"),
        (lambda: exp.InMemoryEvaluatorHook(est, lambda: None, every_n_iter=0), "positive"),
        (lambda: exp.make_stop_at_checkpoint_step_hook(est, "10"), "last_step"),
        (lambda: exp.call_logit_fn(lambda features: 3, {}, "train", {}, None), "Tensor"),
        (lambda: tf.estimator.add_metrics(est, lambda labels: {}), "predictions"),
        (lambda: tf.estimator.add_metrics(est, lambda predictions, x: {}), "unexpected"),
        (lambda: tf.estimator.add_metrics(object(), lambda predictions: {}), "Estimator"),
        (lambda: tf.estimator.classifier_parse_example_spec([], label_key=3), "label_key"),
        (lambda: tf.estimator.regressor_parse_example_spec([], "y", label_dimension=0), "dim"),
        (lambda: exp.build_raw_supervised_input_receiver_fn({"x": 1}, 2), "Tensor"),
        (lambda: tf.estimator.BinaryClassHead(thresholds=[2.0]), "thresholds"),
        (lambda: tf.estimator.MultiHead([tf.estimator.RegressionHead()]), "name"),
        (lambda: tf.estimator.RegressionHead(label_dimension="2"), "label_dimension"),
        (lambda: est.experimental_export_all_saved_models("e", {"bogus": lambda: 0}), "ModeKeys"),
    ]
    for call, fragment in cases:
        with pytest.raises(TfportInputError) as err:
            call()
        assert fragment in _one_line(err), fragment


def test_numpy_input_fn_batches_like_legacy(tf):
    x = {"b": np.arange(5.0), "a": np.arange(5) * 10}
    ds = tf.compat.v1.estimator.inputs.numpy_input_fn(
        x, np.arange(5), batch_size=2, num_epochs=2, shuffle=False
    )()
    batches = [(f["a"].numpy().tolist(), y.numpy().tolist()) for f, y in ds]
    # batches span the epoch boundary; the last one is short; then the input ends
    assert batches == [
        ([0, 10], [0, 1]),
        ([20, 30], [2, 3]),
        ([40, 0], [4, 0]),
        ([10, 20], [1, 2]),
        ([30, 40], [3, 4]),
    ]
    single = tf.estimator.inputs.numpy_input_fn(np.ones((4, 2)), batch_size=3, shuffle=False)()
    assert [b.shape.as_list() for b in single] == [[3, 2], [1, 2]]


def test_heads_are_classes_with_the_legacy_interface(tf):
    head = tf.estimator.BinaryClassHead(thresholds=[0.3], name="h")
    assert isinstance(head, tf.estimator.Head) and head.name == "h"
    assert head.logits_dimension == 1 and head.loss_reduction == "sum_over_batch_size"
    with tf.Graph().as_default():
        logits = tf.constant([[0.5], [-1.0]])
        labels = tf.constant([[1], [0]])
        loss = head.loss(labels, logits)
        preds = head.predictions(logits, keys=["logistic"])
        metrics = head.update_metrics(head.metrics(), {}, logits, labels)
        with tf.compat.v1.Session() as s:
            s.run(tf.compat.v1.local_variables_initializer())
            s.run(tf.compat.v1.global_variables_initializer())
            want = np.mean(np.log1p(np.exp(-np.array([0.5, -1.0]) * np.array([1, -1]))))
            assert abs(s.run(loss) - want) < 1e-6
            assert list(preds) == ["logistic"]
            # the legacy binary head's keys (values: tests/api/test_head_metrics.py)
            legacy = ["accuracy", "accuracy_baseline", "auc", "auc_precision_recall"]
            legacy += ["average_loss", "label/mean", "precision", "prediction/mean", "recall"]
            legacy += [f"{m}/positive_threshold_0.3" for m in ("accuracy", "precision", "recall")]
            assert sorted(metrics) == sorted(f"{key}/h" for key in legacy)
            got = s.run(preds["logistic"]).ravel()
            assert np.allclose(got, 1 / (1 + np.exp(-np.array([0.5, -1.0]))), atol=1e-6)


def test_more_new_functions_reject_bad_input(tf, tmp_path):
    import pandas as pd

    est = tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path))
    exp = tf.estimator.experimental
    frame = pd.DataFrame({"a": [1.0]})
    numeric = [tf.feature_column.numeric_column("x")]
    cases = [
        (lambda: tf.estimator.MultiClassHead("3"), "n_classes"),
        (lambda: tf.estimator.MultiLabelHead(3, thresholds=[1.5]), "thresholds"),
        (lambda: tf.estimator.RegressionHead(loss_reduction="bogus"), "loss_reduction"),
        (lambda: tf.estimator.PoissonRegressionHead(label_dimension=0), "label_dimension"),
        (lambda: tf.estimator.LogisticRegressionHead(weight_column=3), "weight_column"),
        (lambda: tf.estimator.BinaryClassHead(label_vocabulary="ab"), "label_vocabulary"),
        (lambda: tf.estimator.BinaryClassHead(loss_fn=3), "loss_fn"),
        (lambda: tf.estimator.RegressionHead(inverse_link_fn=3), "inverse_link_fn"),
        (lambda: tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a")], [1, 2]), "size"),
        (lambda: exp.stop_if_lower_hook(est, "loss", 0.1, run_every_secs=None), "run_every"),
        (lambda: exp.stop_if_no_increase_hook(est, "loss", "10"), "max_steps_without"),
        (lambda: exp.stop_if_higher_hook(est, "auc", "0.9"), "threshold"),
        (lambda: exp.InMemoryEvaluatorHook(est, 3), "callable"),
        (lambda: tf.estimator.classifier_parse_example_spec(numeric, "y", None, None, 3), "weight"),
        (lambda: tf.estimator.inputs.pandas_input_fn(frame, np.zeros(1), shuffle=False), "Series"),
        (lambda: tf.estimator.inputs.numpy_input_fn(frame, shuffle=False), "pandas_input_fn"),
        (
            lambda: tf.estimator.inputs.numpy_input_fn({"a": np.zeros(1)}, frame, shuffle=False),
            "pandas_input_fn",
        ),
        (
            lambda: tf.estimator.inputs.pandas_input_fn(
                frame, pd.Series([1]), target_column=3, shuffle=False
            ),
            "target_column",
        ),
        (
            lambda: tf.estimator.inputs.pandas_input_fn(
                pd.DataFrame({"target": [1.0]}), pd.Series([1]), shuffle=False
            ),
            "target column",
        ),
        (
            lambda: tf.compat.v1.estimator.inputs.numpy_input_fn(
                {"a": np.zeros(3)}, num_epochs=0, shuffle=False
            ),
            "num_epochs",
        ),
    ]
    for call, fragment in cases:
        with pytest.raises(TfportInputError) as err:
            call()
        assert fragment in _one_line(err), fragment
    with tf.Graph().as_default():
        head = tf.estimator.MultiHead([tf.estimator.RegressionHead(name="a")])
        with pytest.raises(TfportInputError) as err:  # labels without the head's key
            head.loss({"b": tf.constant([[1.0]])}, tf.constant([[1.0]]))
        assert "missing_keys=['a']" in _one_line(err)
        with pytest.raises(TfportInputError) as err:
            tf.estimator.BinaryClassHead().predictions(tf.constant([[1.0]]), keys=["bogus"])
        assert "bogus" in _one_line(err)


def test_run_config_service_comes_from_tf_config(tf, monkeypatch):
    service = {"name": "my-platform", "endpoint": "10.0.0.1:80"}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"service": service}))
    config = tf.estimator.RunConfig()
    assert config.service == service
    assert config.replace(save_summary_steps=7).service == service
    monkeypatch.delenv("TF_CONFIG")
    assert tf.estimator.RunConfig().service is None
    monkeypatch.setenv("TF_CONFIG", json.dumps({"service": ["not", "a", "dict"]}))
    with pytest.raises(TfportInputError) as err:
        tf.estimator.RunConfig()
    line = _one_line(err)
    assert "must be a dict" in line and "service_type='list'" in line


def test_numpy_and_pandas_input_fn_return_tensors_in_a_graph(tf):
    """Legacy's input_fn returned the queue's (features, labels); code calling it directly
    (inside its own input_fn or a model_fn) gets the next batch's tensors, batch after
    batch, then the end of input."""
    import pandas as pd

    x = np.arange(10.0).reshape(5, 2)
    y = np.arange(5)
    fns = {
        "numpy": tf.compat.v1.estimator.inputs.numpy_input_fn(
            {"x": x}, y, batch_size=2, num_epochs=1, shuffle=False
        ),
        "pandas": tf.compat.v1.estimator.inputs.pandas_input_fn(
            pd.DataFrame({"x0": x[:, 0], "x1": x[:, 1]}),
            pd.Series(y),
            batch_size=2,
            num_epochs=1,
            shuffle=False,
        ),
    }
    for kind, input_fn in fns.items():
        with tf.Graph().as_default():
            result = input_fn()
            assert isinstance(result, tuple) and len(result) == 2, kind
            features, labels = result
            assert isinstance(features, dict) and tf.is_tensor(labels), kind
            got = []
            with tf.compat.v1.train.MonitoredSession() as session:
                while not session.should_stop():
                    got.append(session.run((features, labels)))
            assert [b[1].tolist() for b in got] == [[0, 1], [2, 3], [4]], kind
            first = got[0][0]
            if kind == "numpy":
                np.testing.assert_array_equal(first["x"], x[:2])
            else:
                np.testing.assert_array_equal(first["x1"], x[:2, 1])
