"""Issue 27: the private names published code imports (tests/api/private_usage.json) resolve
under both legacy prefixes, and each behaves as legacy (expected values computed here
independently, or legacy's documented rule); names tfport lacks give one tfport line."""

from __future__ import annotations

import importlib
import inspect
import json
import pathlib

import numpy as np
import pytest

API = pathlib.Path(__file__).resolve().parents[2] / "api"  # tests/api: the usage data
USAGE = json.loads((API / "private_usage.json").read_text())["modules"]
PREFIXES = ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator")
ENTRIES = [(m, n) for m, names in USAGE.items() for n in names]


@pytest.fixture(scope="module")
def tf():
    import tfport

    tfport.install()
    import tensorflow

    return tensorflow


def _module(suffix: str, prefix: str = PREFIXES[0]):
    return importlib.import_module(f"{prefix}.{suffix}")


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize(("suffix", "name"), ENTRIES)
def test_every_listed_name_resolves(tf, prefix, suffix, name):
    obj = _module(suffix, prefix)
    for part in name.split("."):
        if part.startswith("_") and inspect.isclass(obj) and obj.__name__ == "Estimator":
            assert hasattr(obj, part) or part in _instance_attributes(tf), name
            return
        obj = getattr(obj, part)
    assert obj is not None


def _instance_attributes(tf) -> set:
    est = tf.estimator.Estimator(lambda features, labels, mode: None)
    return set(vars(est))


def _run(tf, fetches, *, init_local=False):
    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        sess.run(tf.compat.v1.local_variables_initializer())
        return sess.run(fetches)


# -- canned.head -------------------------------------------------------------------------
def test_head_base_class_is_abstract_and_its_default_spec_says_what_to_implement(tf):
    head = _module("canned.head", PREFIXES[1])

    class Incomplete(head._Head):
        name = "x"
        logits_dimension = 1

    with pytest.raises(TypeError):
        Incomplete()  # create_loss is abstract, as legacy

    class Minimal(Incomplete):
        def create_loss(self, features, mode, logits, labels):
            return None

    with pytest.raises(NotImplementedError, match="create_estimator_spec"):
        Minimal().create_estimator_spec({}, "train", None)


def test_binary_head_loss_spec_is_the_summed_sigmoid_cross_entropy(tf):
    head = _module("canned.head")._binary_logistic_head_with_sigmoid_cross_entropy_loss()
    logits = np.array([[0.5], [-1.0], [2.0]], np.float32)
    labels = np.array([[1], [0], [0]], np.int64)
    with tf.Graph().as_default():
        spec = head.create_loss({}, "train", tf.constant(logits), tf.constant(labels))
        loss, unreduced = _run(tf, (spec.training_loss, spec.unreduced_loss))
    p = 1 / (1 + np.exp(-logits))
    want = -(labels * np.log(p) + (1 - labels) * np.log(1 - p))
    np.testing.assert_allclose(unreduced, want, rtol=1e-5)
    np.testing.assert_allclose(loss, want.sum(), rtol=1e-5)  # legacy default: weighted_sum
    assert head.logits_dimension == 1 and head.name is None


def test_multiclass_and_regression_heads(tf):
    head_lib = _module("canned.head")
    with pytest.raises(ValueError, match="n_classes"):
        head_lib._multi_class_head_with_softmax_cross_entropy_loss(2)
    multi = head_lib._multi_class_head_with_softmax_cross_entropy_loss(3, name="m")
    reg = head_lib._RegressionHeadWithMeanSquaredErrorLoss(label_dimension=2)
    assert multi.logits_dimension == 3 and multi.name == "m" and reg.logits_dimension == 2
    assert head_lib._regression_head(label_dimension=2).logits_dimension == 2
    logits = np.array([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]], np.float32)
    labels = np.array([[1], [2]], np.int64)
    y = np.array([[1.0, 2.0], [0.0, 1.0]], np.float32)
    with tf.Graph().as_default():
        a = multi.create_loss({}, "eval", tf.constant(logits), tf.constant(labels))
        b = reg.create_loss({}, "eval", tf.constant(y * 0.5), tf.constant(y))
        got = _run(tf, (a.training_loss, b.training_loss))
        spec = multi.create_estimator_spec({}, "eval", tf.constant(logits), tf.constant(labels))
        assert {"accuracy/m", "average_loss/m"} <= set(spec.eval_metric_ops)
    shifted = logits - logits.max(1, keepdims=True)
    logp = shifted - np.log(np.exp(shifted).sum(1, keepdims=True))
    np.testing.assert_allclose(got[0], -(logp[0, 1] + logp[1, 2]), rtol=1e-5)
    np.testing.assert_allclose(got[1], ((y * 0.5 - y) ** 2).sum(), rtol=1e-5)


def test_head_helpers(tf):
    head_lib = _module("canned.head")
    assert (
        head_lib._summary_key("ctr", "auc") == "auc/ctr"
        and head_lib._summary_key(None, "auc") == "auc"
    )
    assert (head_lib._DEFAULT_SERVING_KEY, head_lib._PREDICT_SERVING_KEY) == (
        "serving_default",
        "predict",
    )
    assert head_lib.LossSpec._fields == (
        "training_loss",
        "unreduced_loss",
        "weights",
        "processed_labels",
    )
    with tf.Graph().as_default():
        out = head_lib._classification_output(
            tf.constant([[0.2, 0.8], [0.6, 0.4]]), 2, ["no", "yes"]
        )
        classes = _run(tf, out.classes)
    assert classes.tolist() == [[b"no", b"yes"], [b"no", b"yes"]]


# -- canned.optimizers ---------------------------------------------------------------------
def test_get_optimizer_instance_by_name_instance_and_callable(tf):
    opt = _module("canned.optimizers", PREFIXES[1])
    with tf.Graph().as_default():
        sgd = opt.get_optimizer_instance("SGD", learning_rate=0.3)
        assert isinstance(sgd, tf.compat.v1.train.GradientDescentOptimizer)
        assert sgd._learning_rate == 0.3
        with pytest.raises(ValueError, match="learning_rate must be specified"):
            opt.get_optimizer_instance("Adam")
        with pytest.raises(ValueError, match="Unsupported optimizer name"):
            opt.get_optimizer_instance("Nope", 0.1)
        adam = tf.compat.v1.train.AdamOptimizer(0.01)
        assert opt.get_optimizer_instance(adam) is adam
        assert isinstance(
            opt.get_optimizer_instance(lambda: adam), tf.compat.v1.train.AdamOptimizer
        )
        with pytest.raises(ValueError, match="not an Optimizer"):
            opt.get_optimizer_instance(object())
        v2 = opt.get_optimizer_instance_v2("Adam")
        assert isinstance(v2, tf.keras.optimizers.legacy.Adam)


# -- metric/prediction keys, export outputs, estimator_export, logit fns ------------------
def test_keys_outputs_and_the_export_decorator(tf):
    keys = _module("canned.metric_keys").MetricKeys
    assert keys.AUC_AT_CLASS % 2 == "auc/class2" and keys.LOSS_MEAN == "average_loss"
    assert _module("canned.prediction_keys").PredictionKeys.LOGISTIC == "logistic"
    assert _module("export.export_output").PredictOutput is tf.estimator.export.PredictOutput
    decorator = _module("estimator_export").estimator_export

    @decorator("estimator.Thing", v1=["estimator.OldThing"])
    def thing():
        return 1

    assert thing() == 1 and thing._estimator_api_names_v1 == ("estimator.OldThing",)
    assert callable(_module("canned.dnn").dnn_logit_fn_builder)


# -- gc --------------------------------------------------------------------------------------
def test_gc_filters(tf, tmp_path):
    gc = _module("gc", PREFIXES[1])
    paths = [gc.Path(f"/e/{v}", v) for v in (1, 2, 3, 5, 8, 9)] + [gc.Path("/e/x", None)]
    assert [p.export_version for p in gc._largest_export_versions(2)(paths)] == [8, 9]
    assert [p.export_version for p in gc._one_of_every_n_export_versions(4)(paths)] == [3, 8, 9]
    assert [p.export_version for p in gc._mod_export_version(3)(paths)] == [3, 9]
    keep = gc._union(gc._largest_export_versions(1), gc._mod_export_version(2))(paths)
    assert [p.export_version for p in keep] == [2, 8, 9]
    assert len(gc._negation(gc._largest_export_versions(2))(paths)) == 5
    for name in ("17", "42", "junk"):
        (tmp_path / name).mkdir()

    def parser(path):
        tail = pathlib.Path(path.path).name
        return path._replace(export_version=int(tail)) if tail.isdigit() else None

    assert [p.export_version for p in gc._get_paths(str(tmp_path), parser)] == [17, 42]


# -- util --------------------------------------------------------------------------------------
def test_parse_input_fn_result(tf):
    util = _module("util")
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensors(({"x": tf.constant([[1.0]])}, tf.constant([2.0])))
        features, labels, hooks = util.parse_input_fn_result(ds)
        assert len(hooks) == 1 and isinstance(hooks[0], tf.compat.v1.train.SessionRunHook)
        with tf.compat.v1.train.MonitoredSession(hooks=hooks) as sess:
            got = sess.run((features, labels))
    assert got[0]["x"].tolist() == [[1.0]] and got[1].tolist() == [2.0]
    assert util.parse_input_fn_result(({"x": 1}, None)) == ({"x": 1}, None, [])
    with pytest.raises(ValueError, match="len 2 tuple"):
        util.parse_iterator_result((1, 2, 3))
    assert util.fn_args(lambda features, mode: None) == ("features", "mode")


# -- Estimator internals -------------------------------------------------------------------
def _model_fn(tf):
    def model_fn(features, labels, mode, params, config):
        pred = tf.compat.v1.layers.dense(features["x"], 1, name="out") * params["scale"]
        loss = tf.reduce_mean(tf.square(pred - labels)) if labels is not None else None
        step = tf.compat.v1.train.get_global_step()
        train_op = None
        if mode == tf.estimator.ModeKeys.TRAIN:
            train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, {"pred": pred, "x": features["x"]}, loss, train_op)

    return model_fn


def _variable(tf, name):
    (var,) = [v for v in tf.compat.v1.global_variables() if v.name == name]
    return var


def test_estimator_internals_and_attributes(tf, tmp_path):
    est_mod = _module("estimator", PREFIXES[1])
    est = est_mod.Estimator(_model_fn(tf), model_dir=str(tmp_path), params={"scale": 2.0})
    assert isinstance(est._session_config, tf.compat.v1.ConfigProto)
    assert est._session_config.allow_soft_placement
    assert est._model_dir == str(tmp_path) and est._params == {"scale": 2.0}
    assert est._device_fn is None and est._train_distribution is None
    assert est._eval_distribution is None and est._warm_start_settings is None
    assert est._config.model_dir == str(tmp_path) and callable(est._model_fn)
    assert list(inspect.signature(est.model_fn).parameters) == [
        "features",
        "labels",
        "mode",
        "config",
    ]
    seen = {}

    def input_fn(params, config, mode):
        seen.update(params=params, model_dir=config.model_dir, mode=mode)
        return tf.data.Dataset.from_tensors(({"x": [[1.0, 2.0]]}, [[3.0]]))

    with tf.Graph().as_default() as g:
        step = est._create_and_assert_global_step(g)
        assert step is tf.compat.v1.train.get_global_step(g) and step.dtype.base_dtype == tf.int64
        features, labels, hooks = est._get_features_and_labels_from_input_fn(input_fn, "train")
        assert seen == {"params": {"scale": 2.0}, "model_dir": str(tmp_path), "mode": "train"}
        spec = est._call_model_fn(features, labels, "train", est.config)
        assert spec.train_op is not None
        with tf.compat.v1.train.MonitoredSession(hooks=hooks) as sess:
            pred, kernel = sess.run((spec.predictions["pred"], _variable(tf, "out/kernel:0")))
    np.testing.assert_allclose(pred, 2.0 * np.array([[1.0, 2.0]]) @ kernel, rtol=1e-5)
    with tf.Graph().as_default():
        tf.compat.v1.train.create_global_step()
        wrapped = est.model_fn({"x": tf.ones([1, 2])}, tf.ones([1, 1]), "eval", est.config)
        assert wrapped.mode == "eval" and wrapped.train_op is None
    assert est._extract_keys({"a": 1, "b": 2}, ["b"]) == {"b": 2}
    with pytest.raises(ValueError, match="at least one output"):
        est._extract_keys({"a": 1}, ["c"])
    assert est._extract_batch_length({"a": np.zeros((3, 1)), "b": np.zeros((3,))}) == 3
    with pytest.raises(ValueError, match="same"):
        est._extract_batch_length({"a": np.zeros((3, 1)), "b": np.zeros((2,))})


def test_subclasses_may_not_override_members_unless_the_check_is_switched_off(tf):
    Estimator = tf.estimator.Estimator

    class Overrides(Estimator):
        def evaluate(self, *args, **kwargs):
            return {}

    with pytest.raises(ValueError, match="cannot override members of Estimator"):
        Overrides(_model_fn(tf))
    saved = Estimator._assert_members_are_not_overridden
    Estimator._assert_members_are_not_overridden = lambda _: None  # as libraries do
    try:
        assert Overrides(_model_fn(tf)).evaluate(None) == {}
    finally:
        Estimator._assert_members_are_not_overridden = saved

    class AllowedOverride(Estimator):
        def latest_checkpoint(self):
            return None

    AllowedOverride(_model_fn(tf))


# -- names tfport does not provide -------------------------------------------------------------
def test_a_private_name_not_provided_gives_one_tfport_line(tf):
    with pytest.raises(ImportError) as info:
        exec("from tensorflow.python.estimator.canned.head import _no_such_name", {})
    text = str(info.value)
    assert "not provided by tfport" in text and "unknown location" not in text
    assert "\n" not in text and text.rstrip().endswith("Received: name='_no_such_name'")
    with pytest.raises(AttributeError, match="not provided by tfport"):
        _module("estimator")._no_such_name  # noqa: B018


def test_base_head_helpers_for_libraries_writing_v2_heads(tf):
    base = _module("head.base_head", PREFIXES[1])
    base.validate_loss_reduction("sum_over_batch_size")
    with pytest.raises(ValueError, match="Invalid loss_reduction"):
        base.validate_loss_reduction("none")
    with pytest.raises(ValueError, match="unexpected args"):
        base.validate_loss_fn_args(lambda labels, logits, extra: None)
    with pytest.raises(ValueError, match="Prediction key"):
        base.check_prediction_keys(["nope"], ["logits"])
    with pytest.raises(ValueError, match="list or a tuple"):
        base.validate_trainable_variables("w")
    fn, tensors = base.create_eval_metrics_tuple(lambda a, b: a + b, {"a": 1.0, "b": tf.ones([])})
    assert list(tensors) == ["b"] and fn(b=2.0) == 3.0
    with tf.Graph().as_default():
        labels = tf.constant([[0], [2]], tf.int64)
        checked = base.check_label_range(labels, 3)
        fed = tf.compat.v1.placeholder(tf.int64, [None, 1])
        bad = base.check_label_range(fed, 3)
        loss = base.call_loss_fn(
            lambda labels, logits: tf.square(logits - labels), tf.ones([2, 1]), tf.zeros([2, 1]), {}
        )
        with tf.compat.v1.Session() as sess:
            assert sess.run(checked).tolist() == [[0], [2]]
            assert sess.run(loss).tolist() == [[1.0], [1.0]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="n_classes - 1"):
                sess.run(bad, {fed: [[3]]})


def test_examples_per_second_hook_writes_its_rates(tf, tmp_path):
    hook_cls = _module("tpu.tpu_estimator").ExamplesPerSecondHook
    with tf.Graph().as_default():
        writer = tf.compat.v1.summary.FileWriter(str(tmp_path))
        hook = hook_cls(batch_size=8, every_n_steps=1, summary_writer=writer)
        hook._log_and_record(elapsed_steps=4, elapsed_time=2.0, global_step=5)
        writer.close()
    values = {}
    for path in tmp_path.glob("events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            values.update({v.tag: (event.step, v.simple_value) for v in event.summary.value})
    assert values == {"global_step/sec": (5, 2.0), "examples/sec": (5, 16.0)}
