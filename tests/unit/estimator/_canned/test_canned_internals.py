"""Issue 27c: the canned internals below the public API, one behaviour at a time.

`head.base_head` helpers (label reshaping, example weights, the train op), `LinearModel`,
`RNNModel` (legacy's signature and config) and the v2 logit_fn builders' argument checks.
Expected values are computed here with numpy; error types are legacy's (ValueError,
TypeError, and `InvalidArgumentError` for shapes only known when the graph runs).
The end-to-end numbers against legacy are in `test_private_canned.py`.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from tfport import estimator as tfport_estimator
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import linear_model, rnn, v2_entry
from tfport.estimator._heads import base_head

tf = import_tf()
v1 = tf.compat.v1


def _run(fetches, feed=None):
    with v1.Session() as sess:
        sess.run([v1.global_variables_initializer(), v1.tables_initializer()])
        return sess.run(fetches, feed)


# -- check_dense_labels_match_logits_and_reshape -----------------------------------------
def test_labels_of_rank_one_less_get_a_last_axis():
    with tf.Graph().as_default():
        labels = base_head.check_dense_labels_match_logits_and_reshape(
            tf.constant([1.0, 0.0, 2.0]), tf.zeros([3, 1]), 1
        )
        assert labels.shape.as_list() == [3, 1]
        np.testing.assert_array_equal(_run(labels), [[1.0], [0.0], [2.0]])


def test_label_errors_are_legacy_value_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="labels"):
            base_head.check_dense_labels_match_logits_and_reshape(None, tf.zeros([2, 1]), 1)
        sparse = tf.SparseTensor([[0, 0]], [1.0], [2, 1])
        with pytest.raises(ValueError, match="SparseTensor"):
            base_head.check_dense_labels_match_logits_and_reshape(sparse, tf.zeros([2, 1]), 1)
        with pytest.raises(ValueError, match="Expected labels dimension=1"):
            base_head.check_dense_labels_match_logits_and_reshape(
                tf.zeros([2, 2]), tf.zeros([2, 1]), 1
            )


def test_a_batch_mismatch_known_only_at_run_time_fails_the_run():
    with tf.Graph().as_default():
        labels = v1.placeholder(tf.float32, [None, 1])
        checked = base_head.check_dense_labels_match_logits_and_reshape(labels, tf.zeros([3, 1]), 1)
        with pytest.raises(tf.errors.InvalidArgumentError, match="labels shape must be"):
            _run(checked, {labels: np.zeros((2, 1))})


def test_labels_checked_eagerly():
    got = base_head.check_dense_labels_match_logits_and_reshape([[1.0], [2.0]], tf.zeros([2, 3]), 1)
    np.testing.assert_array_equal(got.numpy(), [[1.0], [2.0]])
    with pytest.raises(ValueError, match="labels shape must be"):
        base_head.check_dense_labels_match_logits_and_reshape([[1.0]], tf.zeros([2, 3]), 1)


# -- get_weights_and_check_match_logits --------------------------------------------------
def test_no_weight_column_weighs_one():
    assert base_head.get_weights_and_check_match_logits({}, None, tf.zeros([2, 1])) == 1.0


def test_weights_by_name_and_by_normalized_column():
    with tf.Graph().as_default():
        features = {"w": tf.constant([2, 4], dtype=tf.int64)}
        logits = tf.zeros([2, 1])
        by_name = base_head.get_weights_and_check_match_logits(features, "w", logits)
        column = tf.feature_column.numeric_column("w", normalizer_fn=lambda t: t / 2)
        normalized = base_head.get_weights_and_check_match_logits(features, column, logits)
        assert by_name.dtype == tf.float32
        got = _run([by_name, normalized])
    np.testing.assert_array_equal(got[0], [[2.0], [4.0]])
    np.testing.assert_array_equal(got[1], [[1.0], [2.0]])


def test_per_logit_weights_only_when_allowed():
    weights = np.arange(6, dtype=np.float32).reshape(2, 3)
    with tf.Graph().as_default():
        features = {"w": tf.constant(weights)}
        allowed = base_head.get_weights_and_check_match_logits(
            features, "w", tf.zeros([2, 3]), allow_per_logit_weights=True
        )
        np.testing.assert_array_equal(_run(allowed), weights)
    with tf.Graph().as_default():
        features = {"w": v1.placeholder(tf.float32, [None, None])}
        refused = base_head.get_weights_and_check_match_logits(features, "w", tf.zeros([2, 3]))
        with pytest.raises(tf.errors.InvalidArgumentError, match="weights shape must be"):
            _run(refused, {features["w"]: weights})
    with pytest.raises(ValueError, match="weights shape must be"):
        base_head.get_weights_and_check_match_logits(
            {"w": tf.constant(weights)}, "w", tf.zeros([2, 3])
        )


def test_weight_column_errors():
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="Weight column must be"):
            base_head.get_weights_and_check_match_logits({"w": [1.0]}, 3, tf.zeros([1, 1]))
        # legacy built a string -> float Cast that failed only when run; tfport says it here
        with pytest.raises(ValueError, match="castable to float"):
            base_head.get_weights_and_check_match_logits(
                {"w": tf.constant(["a"])}, "w", tf.zeros([1, 1])
            )


# -- create_estimator_spec_train_op ------------------------------------------------------
def _sgd():
    opt = tf.keras.optimizers.legacy.SGD(learning_rate=0.1)
    opt.iterations = v1.train.get_or_create_global_step()
    return opt


def test_train_op_from_a_keras_optimizer_with_update_ops():
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=1.0)
        counter = v1.get_variable("counter", initializer=0.0, trainable=False)
        with v1.name_scope("head"):
            train_op = base_head.create_estimator_spec_train_op(
                "h",
                optimizer=_sgd(),
                trainable_variables=[w],
                update_ops=[v1.assign_add(counter, 1.0)],
                regularized_training_loss=tf.square(w - 3.0),
            )
        assert train_op.name.startswith("training/")
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(train_op)
            got = sess.run([w, counter, v1.train.get_global_step()])
    # one SGD step: w - 0.1 * d/dw (w - 3)^2 = 1 - 0.1 * 2 * (1 - 3)
    np.testing.assert_allclose(got[:2], [1.4, 1.0], rtol=1e-6)
    assert got[2] == 1


def test_train_op_from_train_op_fn():
    with tf.Graph().as_default():
        loss = tf.constant(2.5)
        seen = []
        train_op = base_head.create_estimator_spec_train_op(
            "h",
            train_op_fn=lambda value: seen.append(value) or tf.no_op(),
            regularized_training_loss=loss,
        )
        assert seen == [loss] and train_op.type == "NoOp"


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"train_op_fn": lambda loss: loss, "optimizer": "sgd"}, "cannot both be set"),
        ({}, "cannot both be None"),
        ({"optimizer": "v1"}, "not a tf.keras.optimizers.Optimizer"),
        ({"optimizer": "sgd"}, "trainable_variables cannot be None"),
        ({"optimizer": "sgd", "trainable_variables": "w"}, "list or a tuple"),
        ({"train_op_fn": lambda loss: loss, "update_ops": "op"}, "update_ops"),
    ],
)
def test_train_op_argument_errors(kwargs, match):
    with tf.Graph().as_default():
        made = {"sgd": _sgd, "v1": lambda: v1.train.GradientDescentOptimizer(0.1)}
        if "optimizer" in kwargs:
            kwargs["optimizer"] = made[kwargs["optimizer"]]()
        with pytest.raises(ValueError, match=match):
            base_head.create_estimator_spec_train_op(
                "h", regularized_training_loss=tf.constant(1.0), **kwargs
            )


# -- LinearModel ---------------------------------------------------------------------------
def test_linear_model_weighted_sum_and_variable_names():
    x = tf.feature_column.numeric_column("x", shape=(2,))
    c = tf.feature_column.categorical_column_with_identity("c", 3)
    with tf.Graph().as_default():
        model = linear_model.LinearModel([x, c], units=2, name="lm")
        features = {"x": tf.constant([[1.0, 2.0], [3.0, 4.0]]), "c": tf.constant([[2], [0]])}
        out = model(features)
        names = sorted(v.op.name for v in model.variables)
        assert names == ["lm/bias_weights", "lm/c/weights", "lm/x/weights"]
        assert model.bias.op.name == "lm/bias_weights"
        wx = np.array([[0.5, -1.0], [2.0, 0.25]], np.float32)
        wc = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], np.float32)
        bias = np.array([0.1, -0.2], np.float32)
        weights = {v.op.name: v for v in model.variables}
        assigns = [
            v1.assign(weights["lm/x/weights"], wx),
            v1.assign(weights["lm/c/weights"], wc),
            v1.assign(model.bias, bias),
        ]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(assigns)
            got = sess.run(out)
    xs = np.array([[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_allclose(got, xs @ wx + wc[[2, 0]] + bias, rtol=1e-6)


def test_linear_model_mean_combiner_and_config():
    c = tf.feature_column.categorical_column_with_identity("c", 4)
    with tf.Graph().as_default():
        model = linear_model.LinearModel([c], units=1, sparse_combiner="mean", name="m")
        ids = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([1, 3, 2], tf.int64), [2, 2])
        out = model({"c": ids})
        table = [v for v in model.variables if v.op.name == "m/c/weights"][0]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(v1.assign(table, [[0.0], [1.0], [2.0], [4.0]]))
            got = sess.run(out)
        config = model.layer.get_config()
        again = type(model.layer).from_config(config)
    np.testing.assert_allclose(got, [[(1.0 + 4.0) / 2], [2.0]])
    assert (config["units"], config["sparse_combiner"]) == (1, "mean")
    assert [col.name for col in again._feature_columns] == ["c"]


def test_linear_model_errors():
    x = tf.feature_column.numeric_column("x")
    with pytest.raises(ValueError, match="must not be empty"):
        linear_model.LinearModel([])
    with pytest.raises(ValueError, match="Duplicate feature column"):
        linear_model.LinearModel([x, tf.feature_column.numeric_column("x")])
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="expected a dictionary"):
            linear_model.LinearModel([x])(tf.zeros([2, 1]))


# -- RNNModel ------------------------------------------------------------------------------
def _sequence_column():
    return tf.feature_column.sequence_numeric_column("t")


def test_rnn_model_has_legacy_signature_and_checks_units():
    params = list(inspect.signature(rnn.RNNModel).parameters)
    assert params == [
        "rnn_layer",
        "units",
        "sequence_feature_columns",
        "context_feature_columns",
        "activation",
        "return_sequences",
        "kwargs",
    ]
    with pytest.raises(ValueError, match="units must be an int"):
        rnn.RNNModel(tf.keras.layers.SimpleRNN(2), 1.5, [_sequence_column()])


def test_rnn_model_config_round_trip():
    model = rnn.RNNModel(
        tf.keras.layers.SimpleRNN(3),
        2,
        [_sequence_column()],
        activation="sigmoid",
        return_sequences=True,
        name="my_rnn",
    )
    config = model.get_config()
    again = rnn.RNNModel.from_config(dict(config))
    assert config["units"] == 2 and config["return_sequences"] is True
    assert config["rnn_layer"]["class_name"] == "SimpleRNN"
    assert again.name == "my_rnn" and again.get_config() == config


def test_rnn_model_sequence_logits_carry_the_mask():
    with tf.Graph().as_default():
        model = rnn.RNNModel(
            tf.keras.layers.SimpleRNN(2, return_sequences=True),
            1,
            [_sequence_column()],
            return_sequences=True,
        )
        values = tf.SparseTensor([[0, 0, 0], [0, 1, 0], [1, 0, 0]], [1.0, 2.0, 3.0], [2, 2, 1])
        logits = model({"t": values}, False)
        mask = logits._keras_mask  # what legacy callers read
        got = _run(mask)
    np.testing.assert_array_equal(got, [[True, True], [True, False]])


# -- the v2 logit_fn builders ----------------------------------------------------------------
def test_builders_refuse_what_legacy_refused():
    x = tf.feature_column.numeric_column("x")
    with pytest.raises(ValueError, match="units must be an int"):
        v2_entry.dnn_logit_fn_builder_v2(2.0, [4], [x], tf.nn.relu, None, False)
    with tf.Graph().as_default():
        features = {"x": tf.zeros([2, 1]), "c": tf.constant([[1]])}
        ids = v1.feature_column.categorical_column_with_identity("c", 3)
        v1_only = v1.feature_column.shared_embedding_columns([ids], 2)  # legacy refused it
        fn = v2_entry.linear_logit_fn_builder_v2(1, v1_only)
        with pytest.raises(ValueError, match="feature column from TensorFlow v1"):
            fn(features)
        with pytest.raises(ValueError, match="features should be a dictionary"):
            v2_entry.dnn_model_fn_v2(
                tf.zeros([2, 1]), None, "infer", tfport_estimator.RegressionHead(), [4], [x]
            )


def test_dnn_builder_names_layers_after_the_name_scopes_as_legacy():
    """Names measured on TF 2.15: Keras took them from the name scopes of the call."""
    x = tf.feature_column.numeric_column("x")
    with tf.Graph().as_default():
        fn = v2_entry.dnn_logit_fn_builder_v2(2, [3], [x], tf.nn.relu, None, False)
        features = {"x": tf.zeros([4, 1])}
        assert fn(features, "train").shape.as_list() == [4, 2]
        fn(features, "train")  # a second DNN in the same scope
        with v1.variable_scope("a"):
            fn(features, "train")
        with v1.name_scope("ns"):
            fn(features, "train")
        names = {v.op.name.rpartition("/")[0] for v in v1.trainable_variables()}
    assert names == {
        "dnn/hiddenlayer_0",
        "dnn/logits",
        "dnn_1/hiddenlayer_0_1",
        "dnn_1/logits_1",
        "a/dnn/a/hiddenlayer_0",
        "a/dnn/a/logits",
        "ns/dnn/ns/hiddenlayer_0",
        "ns/dnn/ns/logits",
    }


def test_dnn_model_fn_v2_use_tpu_gives_a_tpu_spec():
    x = tf.feature_column.numeric_column("x")
    with tf.Graph().as_default():
        spec = v2_entry.dnn_model_fn_v2(
            {"x": tf.ones([4, 1])},
            tf.zeros([4, 1]),
            "eval",
            tfport_estimator.RegressionHead(),
            [2],
            [x],
            use_tpu=True,
        )
        assert type(spec).__name__ == "TPUEstimatorSpec"
        metrics = spec.as_estimator_spec().eval_metric_ops
        assert {"average_loss", "label/mean", "prediction/mean"} <= set(metrics)
        assert sorted(v.op.name for v in v1.trainable_variables()) == [
            "dnn/hiddenlayer_0/bias",
            "dnn/hiddenlayer_0/kernel",
            "dnn/logits/bias",
            "dnn/logits/kernel",
        ]


def test_unnamed_linear_models_of_later_replicas_take_replica_0_names():
    """Each replica builds the model_fn in one graph; Keras would name replica 1's models
    `linear_model_2`, ... (variables replica 0 lacks); they take replica 0's names instead."""
    x = tf.feature_column.numeric_column("x")
    with tf.Graph().as_default():
        first, second = linear_model.LinearModel([x]), linear_model.LinearModel([x])
        assert (first.name, second.name) == ("linear_model", "linear_model_1")
        taken = [linear_model._replica0_name(1) for _ in range(3)]
    assert taken == ["linear_model", "linear_model_1", None]
