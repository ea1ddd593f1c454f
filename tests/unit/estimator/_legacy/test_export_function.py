"""Legacy `export.function` (`ModelFunction`, `EstimatorSpecFunction`) against the golden
`private_export_function` (`legacy/scripts/private_test_utils.py`).

On TF 2.15 `ModelFunction` itself fails (the golden records the error), so the legacy
numbers come from the graph functions it was built on (`_EstimatorWrappedGraph` per mode,
shared `VariableHolder`). tfport runs the same model_fn (Adam, `get_variable`, a
`tf.Variable` with a callable initial value, the global step) through `ModelFunction`:
3 train steps, evaluate, predict, save with `tf.saved_model.save`, reload, one more train
step, evaluate and predict through the loaded object.
"""

from __future__ import annotations

import json

import pytest
from tests.legacy import compare

CASE = "private_export_function"
ATOL = 1e-5


@pytest.fixture(scope="module")
def tf():
    import tfport

    tfport.install()
    import tensorflow

    return tensorflow


@pytest.fixture(scope="module")
def function(tf):
    from tensorflow_estimator.python.estimator.export import function as module

    return module


@pytest.fixture(scope="module")
def numbers(goldens, tf, tmp_path_factory):
    script = compare.load_script(goldens.parent, CASE)
    got = script.model_function_numbers(str(tmp_path_factory.mktemp("mfn") / "saved"))
    return got, json.loads((goldens / CASE / "expected.json").read_text())


@pytest.mark.parametrize("part", ["before", "variables_before", "after", "variables_after"])
def test_model_function_gives_the_legacy_numbers(part, numbers):
    got, want = numbers[0][part], numbers[1]["numbers"][part]
    if part.startswith("variables"):
        assert sorted(got) == sorted(want)
    assert compare.excess(got, want) <= ATOL


def test_the_golden_records_why_legacy_could_not_run_it(numbers):
    assert "No variables to optimize" in numbers[1]["model_function_error"]


def _legacy_test_model_fn(features, labels, mode):
    """The model_fn of legacy's own `function_test.py` (expected values are its own)."""
    import tensorflow as tf

    v = tf.Variable(tf.constant(23), name="v")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=features + 1)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode, loss=tf.constant(5) + v, predictions=features + labels
        )
    step = tf.compat.v1.train.get_global_step()
    return tf.estimator.EstimatorSpec(
        mode,
        predictions=features * labels,
        loss=tf.constant(5) + v,
        train_op=tf.compat.v1.assign_add(step, 1),
    )


def test_legacy_function_test_save_and_load(tf, function, tmp_path):
    mfn = function.ModelFunction.from_function(_legacy_test_model_fn)
    for _ in range(3):
        out = mfn.train(tf.constant(3), tf.constant(5))
    assert int(out["predictions"]) == 15 and out["train_op"] is None
    assert int(mfn._variable_holder.variables["global_step"]) == 3
    assert int(mfn.evaluate(tf.constant(7), tf.constant(9))["predictions"]) == 16
    assert int(mfn.predict(tf.constant(10))["predictions"]) == 11
    assert sorted(mfn.variables) == ["global_step", "v"]
    tf.saved_model.save(mfn, str(tmp_path))
    obj = tf.saved_model.load(str(tmp_path))
    assert int(obj._variables_by_name.global_step) == 3
    assert int(obj._functions["train"](tf.constant(3), tf.constant(5))["predictions"]) == 15
    assert int(obj._variables_by_name.global_step) == 4
    assert int(obj._functions["eval"](tf.constant(7), tf.constant(9))["predictions"]) == 16
    assert int(obj._functions["infer"](tf.constant(10))["predictions"]) == 11


def test_one_mode_only_and_undefined_modes(tf, function):
    def predict_only(features):
        return tf.estimator.EstimatorSpec("infer", predictions=features + 1)

    mfn = function.ModelFunction()
    mfn.add_mode(predict_only, "infer", input_signature=[tf.TensorSpec([], tf.int32)])
    assert int(mfn.predict(tf.constant(4))["predictions"]) == 5
    assert mfn._functions["infer"].input_signature[0].dtype == tf.int32
    with pytest.raises(ValueError, match="not defined"):
        mfn.evaluate(tf.constant(7), tf.constant(9))
    with pytest.raises(ValueError, match="multiple functions"):
        mfn.add_mode(predict_only, "infer")


def test_model_fn_arguments_are_checked(function):
    with pytest.raises(ValueError, match="features"):
        function.EstimatorSpecFunction(lambda x: x, "infer")
    with pytest.raises(ValueError, match="params"):
        function.ModelFunction.from_function(lambda features: features, params={"a": 1})


def test_an_initial_value_computed_in_the_function_is_one_clear_line(tf, function):
    from tfport._common.errors import TfportInputError

    def model_fn(features, mode):
        v = tf.Variable(tf.random.normal([1]) + features, name="drawn")
        return tf.estimator.EstimatorSpec(mode, predictions=v + 1.0)

    mfn = function.ModelFunction.from_function(model_fn, all_modes=["infer"])
    with pytest.raises(TfportInputError, match="tf.Variable\\(lambda") as err:
        mfn.predict(tf.constant(1.0))
    assert "drawn" in str(err.value).splitlines()[0] and "Received: " in str(err.value)


def test_wrapped_graph_over_a_shared_holder_gives_the_legacy_numbers(numbers, goldens, function):
    """Legacy's own path (`_EstimatorWrappedGraph` per mode, one holder), run by tfport."""
    import tensorflow as tf

    script = compare.load_script(goldens.parent, CASE)
    x, y, w0 = script._data()
    holder = function.ModelFunction()._variable_holder
    fns = {}
    for mode in ("train", "eval", "infer"):
        fn, _ = function._wrap_and_verify_model_fn(
            script.model_fn, mode, params={"w0": w0, "lr": script.LR}
        )
        args = [{"x": tf.constant(x)}] + ([tf.constant(y)] if mode != "infer" else [])
        graph = function._EstimatorWrappedGraph(holder)
        fns[mode] = graph.wrap_model_fn(fn, mode, args=args, kwargs={})

    def call(mode, features, labels):
        return fns[mode](features) if labels is None else fns[mode](features, labels)

    got = {"before": script._section(call, x, y)}
    got["variables_before"] = script._variables(holder.variables)
    got["after"] = script._after(call, x, y)
    got["variables_after"] = script._variables(holder.variables)
    assert compare.excess(got, numbers[1]["numbers"]) <= ATOL


def _serving_input_fn():
    import tensorflow as tf

    receiver_1 = tf.compat.v1.placeholder(tf.string)
    receiver_2 = tf.compat.v1.placeholder(tf.string)
    concat = tf.strings.join([receiver_1, receiver_2])
    concat2 = tf.identity(concat)
    features = {"feature0": tf.strings.join([concat, concat2], ":"), "feature1": tf.constant([1])}
    alternatives = {"alt_name_1": concat, "alt_name_2": {"tensor1": concat, "tensor2": concat2}}
    return tf.estimator.export.ServingInputReceiver(
        features, {"rec1": receiver_1, "rec2": receiver_2}, alternatives
    )


def test_legacy_wrapped_graph_tests(tf, function):
    """Legacy's `EstimatorWrappedGraphTest` (its expected values)."""
    graph = function._EstimatorWrappedGraph()
    features, labels = tf.constant(3), tf.constant(4)
    fn = graph.wrap_model_fn(_legacy_test_model_fn, "train", args=[features, labels, "train"])
    assert int(graph.global_step) == 0
    assert int(fn(features, labels)["predictions"]) == 12
    assert int(graph.global_step) == 1
    assert graph.estimator_spec.train_op.type == "AssignAddVariableOp"
    graph = function._EstimatorWrappedGraph()
    args = [tf.constant(7), None, "infer"]
    assert (
        int(graph.wrap_model_fn(_legacy_test_model_fn, "infer", args=args)(args[0])["predictions"])
        == 8
    )
    calls = {None: ("1", "2"), "alt_name_1": ("3",), "alt_name_2": ("4", "5")}
    want = {None: b"12:12", "alt_name_1": b"3:3", "alt_name_2": b"4:5"}
    fns = function._EstimatorWrappedGraph().wrap_input_receiver_fn(_serving_input_fn)
    assert sorted(name or "" for _, name in fns) == ["", "alt_name_1", "alt_name_2"]
    for fn, name in fns:
        out = fn(*[tf.constant(v) for v in calls[name]])
        assert out["feature0"].numpy() == want[name] and out["feature1"].numpy().tolist() == [1]
    with pytest.raises(ValueError, match="tfport's variable holder"):
        function._EstimatorWrappedGraph(object())
