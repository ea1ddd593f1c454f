"""`tfport.compat.contrib` keeps TF1 contrib's variable names, defaults and numbers."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tfport.compat.contrib import framework, layers, training


@pytest.fixture()
def tf():
    from tfport._common.tfenv import import_tf

    v1 = import_tf().compat.v1
    with v1.Graph().as_default():
        yield v1


def _names(tf) -> list[str]:
    return sorted(v.op.name for v in tf.global_variables())


def test_layer_norm_variable_names_and_epsilon(tf) -> None:
    x = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]], np.float32)
    with tf.variable_scope("bert"):
        y = layers.layer_norm(tf.constant(x), begin_norm_axis=-1, begin_params_axis=-1)
    assert _names(tf) == ["bert/LayerNorm/beta", "bert/LayerNorm/gamma"]
    assert len(tf.get_collection(tf.GraphKeys.MODEL_VARIABLES)) == 2
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(y)
    mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
    np.testing.assert_allclose(got, (x - mean) / np.sqrt(var + 1e-12), rtol=1e-5)
    assert got[1].tolist() == [0.0, 0.0, 0.0]  # epsilon 1e-12, not 1e-3 (Keras)


def test_fully_connected_names_regularizer_and_relu_default(tf) -> None:
    x = tf.constant(-np.ones((2, 3), np.float32))
    init = tf.constant_initializer(1.0)
    y = layers.fully_connected(
        x, 4, weights_initializer=init, weights_regularizer=layers.l2_regularizer(0.5)
    )
    with framework.arg_scope([layers.fully_connected], activation_fn=None):
        z = layers.fully_connected(x, 2, scope="fc2", weights_initializer=init)
    assert _names(tf) == ["fc2/biases", "fc2/weights", "fully_connected/biases",
                          "fully_connected/weights"]  # fmt: skip
    (reg,) = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(y).tolist() == [[0.0] * 4] * 2  # relu
        assert sess.run(z).tolist() == [[-3.0] * 2] * 2  # arg_scope: no activation
        assert sess.run(reg) == pytest.approx(0.5 * 12 / 2)  # scale * l2_loss (half)


def test_xavier_and_variance_scaling_follow_tf1_formulas(tf) -> None:
    uniform = layers.xavier_initializer(seed=1)([100, 300])
    normal = layers.variance_scaling_initializer(seed=1)([400, 50])
    with tf.Session() as sess:
        u, n = sess.run([uniform, normal])
    limit = math.sqrt(6.0 / 400)
    assert np.abs(u).max() <= limit and np.abs(u).max() > 0.95 * limit
    stddev = math.sqrt(1.3 * 2.0 / 400)  # TF1 contrib's truncated-normal scaling
    assert np.abs(n).max() <= 2 * stddev + 1e-6


def test_hparams_parse_and_json() -> None:
    hp = training.HParams(lr=0.1, layers=[16], name="bert", use_tpu=False)
    hp.parse("lr=0.5,layers=[8,4],use_tpu=true")
    assert hp.values() == {"lr": 0.5, "layers": [8, 4], "name": "bert", "use_tpu": True}
    assert training.HParams(**{"a": 1}).parse_json('{"a": 3}').a == 3
    with pytest.raises(ValueError, match="Unknown hyperparameter"):
        hp.set_hparam("missing", 1)


def test_the_40_most_used_contrib_names_are_rewritten_or_get_an_exact_fix() -> None:
    import json
    import pathlib

    from tfport.upgrade._contrib_table import MANUAL, lookup, manual_fix
    from tfport.upgrade._estimator import match

    data = pathlib.Path(__file__).parents[3] / "upgrade" / "data"  # tests/upgrade/data
    usage = json.loads((data / "contrib_usage.json").read_text())
    top = list(usage["counts"])[:40]
    rewritten = [n for n in top if lookup(n) is not None or match(n) is not None]
    manual = [n for n in top if n not in rewritten]
    assert all(manual_fix(n) != MANUAL["tf.contrib"] for n in manual), manual
    assert len(rewritten) >= 31, manual
    for name in rewritten:
        target = lookup(name) or match(name)[1]
        assert target.startswith(("tf.", "tfport.")), name
