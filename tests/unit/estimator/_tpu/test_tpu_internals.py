"""Issue 27d: the TPU private internals that need no TPU, against legacy's values
(legacy/goldens/tpu_internals, made by legacy/scripts/tpu_internals.py on TF 2.15);
`params['context']` of a TPUEstimator run: tests/estimator/test_tpu_params_context.py.
"""

from __future__ import annotations

import json
import logging
import pathlib
import signal

import numpy as np
import pytest
from tests.legacy import compare

from tfport._common.errors import TfportInputError
from tfport._common.tfenv import import_tf
from tfport.estimator._tpu import tpu_host
from tfport.estimator._tpu.tpu_context import HOST_DEVICE, EmulatedDeployment, TPUContext

LEGACY = pathlib.Path(__file__).parents[4] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/tpu_internals/values.json").read_text())
# the golden's script as a module (its legacy imports resolve to tfport): its features,
# feature columns and error rendering serve both stacks
SCRIPT = compare.load_script_installed(LEGACY, "tpu_internals")
_error, _features, _columns = SCRIPT._error, SCRIPT._features, SCRIPT._columns
BATCHES = {"train": 8, "eval": 4, "infer": 2}  # the legacy script's batch sizes


@pytest.mark.parametrize("mode", ["train", "eval", "infer"])
def test_tpu_context_of_one_replica_reports_what_legacy_one_core_reports(mode):
    batch = BATCHES[mode]
    deployment = EmulatedDeployment(1, batch_size_for_input_fn=batch, batch_size_for_model_fn=batch)
    inp = TPUContext(deployment, HOST_DEVICE, invocation_index=0, host_id=0)
    mod = TPUContext(deployment, call_from_input_fn=False)
    got = {
        "current_input_fn_deployment": list(inp.current_input_fn_deployment()),
        "num_replicas": inp.num_replicas,
        "num_hosts": inp.num_hosts,
        "current_host": inp.current_host,
        "num_of_replicas_per_host": inp.num_of_replicas_per_host,
        "device_for_replica_0": list(inp.device_for_replica(0)),
        "host_placement_0": inp.tpu_host_placement_function(0),
        "model_fn_device_assignment": mod.device_assignment,
        "model_fn_num_replicas": mod.num_replicas,
        "input_fn_device_assignment_error": _error(lambda: inp.device_assignment),
        "model_fn_current_host_error": _error(lambda: mod.current_host),
        "model_fn_deployment_error": _error(mod.current_input_fn_deployment),
        "batch_size_for_input_fn": deployment.batch_size_for_input_fn,
        "batch_size_for_model_fn": deployment.batch_size_for_model_fn,
    }
    assert got == GOLDEN["context"][mode]


def test_tpu_context_of_n_replicas_and_its_bad_indices():
    ctx = TPUContext(EmulatedDeployment(4), HOST_DEVICE, invocation_index=0, host_id=0)
    assert ctx.current_input_fn_deployment() == (HOST_DEVICE, 0, 1, 4)
    assert [ctx.device_for_replica(i)[1] for i in range(4)] == [0, 1, 2, 3]
    assert ctx.num_of_replicas_per_host * ctx.num_hosts == ctx.num_replicas == 4
    with pytest.raises(TfportInputError, match=r"replica_id .*Received: replica_id=4"):
        ctx.device_for_replica(4)
    with pytest.raises(TfportInputError, match=r"host_id .*Received: host_id=1"):
        ctx.tpu_host_placement_function(1)


@pytest.mark.parametrize("case", ["1_5", "2_5", "1_6"])
def test_tensor_packer_packs_and_unpacks_as_legacy(case):
    tf = import_tf()
    dim, minimum = (int(x) for x in case.split("_"))
    features = _features()
    original = {k: v.numpy().tolist() for k, v in features.items()}
    packer = tpu_host.TensorPacker(dim, minimum)
    packer.maybe_concatenate_features(features)
    packed = {k: v.numpy().tolist() for k, v in features.items()}
    packer.maybe_split_features(features)
    expected = GOLDEN["packer"][case]
    assert sorted(packed) == expected["packed_keys"]
    for key, value in expected["packed"].items():
        np.testing.assert_array_equal(np.array(packed[key]), np.array(value))
    assert list(features) == expected["unpacked_keys"]
    assert {k: v.numpy().tolist() for k, v in features.items()} == original
    assert packer._get_small_feature_key(tf.float32) == expected["small_key"]


def test_periodic_logger_logs_at_most_once_per_period(caplog):
    tf = import_tf()
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        logger = tpu_host.PeriodicLogger(seconds=3600)
        logger.log("first %d", 1)
        logger.log("second %d", 2)
        quick = tpu_host.PeriodicLogger(seconds=-1)
        quick.log("third %s", "x")
        quick.log("fourth")
    words = ("first", "second", "third", "fourth")
    got = [r.getMessage() for r in caplog.records if r.getMessage().split()[0] in words]
    assert got == GOLDEN["periodic_logger"]


def test_install_signal_handler_hook_restores_the_handler():
    def handler(signum, frame):
        del signum, frame

    previous = signal.signal(signal.SIGINT, handler)
    try:
        hook = tpu_host.InstallSignalHandlerHook()
        hook.before_run(None)
        during = signal.getsignal(signal.SIGINT)
        hook.end(None)
        after = signal.getsignal(signal.SIGINT)
    finally:
        signal.signal(signal.SIGINT, previous)
    got = {"during_is_default": during is signal.SIG_DFL, "after_is_handler": after is handler}
    assert got == GOLDEN["signal_hook"]


def test_catch_invalid_hostcall_functions_refuses_v1_summaries_inside_only():
    tf = import_tf()
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(1.0)
        context = tpu_host.CatchInvalidHostcallFunctions()
        context.Enter()
        ok = tf.add(x, 1.0)
        with pytest.raises(ValueError, match=r"TF1 summary op.*Received: op=.*ScalarSummary"):
            tf.compat.v1.summary.scalar("loss", x)
        context.Exit()
        after = tf.compat.v1.summary.scalar("after", x)
    expected = GOLDEN["hostcall"]
    assert expected["summary_error"].startswith("ValueError")
    assert (ok.op.type, after.op.type) == (expected["plain_op_type"], expected["after"])


def test_embedding_configs_and_variable_names_match_legacy():
    from tfport.estimator._tpu import embedding
    from tfport.estimator._tpu import tpu_embedding_internals as emb

    tf = import_tf()
    expected = GOLDEN["embedding"]
    columns = _columns()
    kept = emb.get_tpu_embedding_columns(columns)
    assert [columns.index(c) for c in kept] == expected["kept"]
    tables, features = emb.get_configs_from_feature_columns(kept)
    got_tables = {
        name: [t.vocabulary_size, t.dimension, t.combiner, type(t.initializer).__name__]
        + [t.learning_rate_fn, t.learning_rate, t.hot_id_replication]
        for name, t in tables.items()
    }
    assert got_tables == expected["tables"]
    assert {k: list(f) for k, f in features.items()} == expected["features"]
    with pytest.raises(TypeError, match="Received: column="):
        emb.get_configs_from_feature_columns(columns[:1])
    graph = tf.Graph()
    with pytest.raises(RuntimeError, match="recorded no variable scope"):
        emb.get_full_variable_names(graph, tables)
    scopes = {
        "a": ("input_layer/a_embedding", "embedding_weights"),
        "b_c_shared_embedding": ("", "b_c_shared_embedding"),
        "s": ("sequence_input_layer/s_embedding", "embedding_weights"),
    }
    optimizers = {
        "none": None,
        "adagrad": embedding.AdagradParameters(0.1),
        "adam": embedding.AdamParameters(0.1),
        "sgd": embedding.StochasticGradientDescentParameters(0.1),
    }
    for name, opt in optimizers.items():
        graph.add_to_collection("_tpu_feature_column_scope", dict(scopes))
        names, slots = emb.get_full_variable_names(graph, tables, opt)
        slots = {k: None if v is None else list(v) for k, v in slots.items()}
        left = len(graph.get_collection("_tpu_feature_column_scope"))
        assert [names, slots, left] == expected["names_" + name], name


def test_embedding_config_and_split_inputs():
    from tfport.estimator._tpu import embedding
    from tfport.estimator._tpu import tpu_embedding_internals as emb
    from tfport.estimator._tpu.tpu_estimator import RunConfig

    tf = import_tf()
    kept = emb.get_tpu_embedding_columns(_columns())
    spec = embedding.EmbeddingConfigSpec(
        feature_columns=kept,
        optimization_parameters=embedding.AdagradParameters(0.1),
        experimental_gradient_multiplier_fn=lambda step: tf.cast(step, tf.float32) * 0.5 + 2.0,
    )
    config = emb.EmbeddingConfig(spec, 8, 4, 1, 1, RunConfig())
    with tf.Graph().as_default():
        step = tf.compat.v1.train.create_global_step()
        multiplier = config.get_grad_multiplier()
        with tf.compat.v1.Session() as session:
            session.run(step.initializer)
            session.run(step.assign(4))
            got = [multiplier.dtype.name, float(session.run(multiplier))]
    assert got == GOLDEN["embedding"]["grad_multiplier"]
    assert config.has_embedding_tables() is GOLDEN["embedding"]["has_embedding_tables"]
    with pytest.raises(TfportInputError, match=r"TPU embedding engine.*Received: mode='train'"):
        config.get_tpu_embedding("train")
    with pytest.raises(TfportInputError, match="split_inputs of TPU embedding tables"):
        emb.split_inputs(type("Ctx", (), {"embedding_config": config})(), {}, None)
    from tfport.estimator._tpu.tpu_infeed import TPUInfeedOutfeedSessionHook

    with pytest.raises(TfportInputError, match=r"TPU embedding engine.*Received: mode='eval'"):
        TPUInfeedOutfeedSessionHook(
            type("Ctx", (), {"embedding_config": config, "mode": "eval"})(), [], [], None
        )
    ctx = type("Ctx", (), {"embedding_config": None, "tensor_core_embedding_columns": None})()
    for cores in (1, 2):
        features = {"x": tf.constant([[1.0], [2.0]])}
        f, labels, datas = emb.split_inputs(ctx, dict(features), tf.constant([0, 1]), cores)
        expected = GOLDEN["split_inputs"][str(cores)]
        assert {k: v.numpy().tolist() for k, v in f.items()} == expected["features"]
        assert (labels.numpy().tolist(), datas) == (expected["labels"], expected["enqueue_datas"])


def _run_hook(hook_class, loops, **kwargs):
    """(enqueue runs, dequeue runs) after `loops` session runs of 3 iterations each."""
    from tfport.estimator._tpu import tpu_infeed

    tf = import_tf()
    with tf.Graph().as_default():
        enqueued = tf.compat.v1.get_variable("enq", [], tf.int32, use_resource=True)
        dequeued = tf.compat.v1.get_variable("deq", [], tf.int32, use_resource=True)
        ctx = EmulatedDeployment(1)
        hook = hook_class(ctx, enqueued.assign_add(1), dequeued.assign_add(1), None, **kwargs)
        hook.begin()
        iterations = tpu_infeed.iterations_per_loop_variable()
        with tf.compat.v1.Session() as session:
            session.run([tf.compat.v1.global_variables_initializer(), iterations.initializer])
            session.run(iterations.assign(3))
            hook.after_create_session(session, None)
            for _ in range(loops):
                hook.before_run(tf.compat.v1.train.SessionRunContext(None, session))
            hook.end(session)
            return tuple(session.run([enqueued, dequeued]))


def test_infeed_outfeed_hook_runs_the_ops_per_iteration_in_threads():
    from tfport.estimator._tpu import tpu_infeed

    hook = tpu_infeed.TPUInfeedOutfeedSessionHook
    assert _run_hook(hook, 2) == (6, 6)
    assert _run_hook(hook, 2, outfeed_every_n_steps=2) == (6, 4)  # iterations 0 and 2
    assert _run_hook(hook, 2, run_infeed_loop_on_coordinator=False) == (2, 6)
    # prediction: the infeed op runs once (it loops over its input itself)
    assert _run_hook(tpu_infeed.TPUInfeedOutfeedSessionHookForPrediction, 2) == (1, 6)


def test_infeed_outfeed_hook_reraises_a_thread_error_at_end():
    from tfport.estimator._tpu import tpu_infeed

    tf = import_tf()
    with tf.Graph().as_default():
        nan = tf.compat.v1.get_variable("nan", initializer=float("nan"), use_resource=True)
        failing = tf.debugging.check_numerics(nan.read_value(), "bad batch")
        hook = tpu_infeed.TPUInfeedOutfeedSessionHook(EmulatedDeployment(1), failing, [], None)
        hook.begin()
        iterations = tpu_infeed.iterations_per_loop_variable()
        with tf.compat.v1.Session() as session:
            session.run([iterations.initializer, nan.initializer])
            session.run(iterations.assign(1))
            hook.after_create_session(session, None)
            hook.before_run(tf.compat.v1.train.SessionRunContext(None, session))
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad batch"):
                hook.end(session)


def test_call_computation_and_model_fn_inference_run_on_this_device():
    import tfport.estimator
    from tfport.estimator._tpu import tpu_infeed
    from tfport.estimator._tpu.tpu_estimator import BatchConfig

    tf = import_tf()

    def model_fn(features, mode, params):
        y = features["x"] * params["scale"]
        outputs = {"serving_default": tfport.estimator.export.PredictOutput({"y": y})}
        return tfport.estimator.EstimatorSpec(mode, predictions={"y": y}, export_outputs=outputs)

    rows = np.arange(6, dtype="float32").reshape(3, 2)
    batching = BatchConfig(1, 4, 1000, [4], 10)
    with tf.Graph().as_default():
        x = tf.constant(rows)
        plain = tpu_infeed.call_computation({"x": x}, lambda f: [f["x"] + 1.0])
        batched = tpu_infeed.call_computation({"x": x}, lambda f: [f["x"] + 1.0], batching)
        direct = tpu_infeed.inference_on_tpu(lambda a: [a * 3.0], [x], 1, 0, 1000)
        queued = tpu_infeed.inference_on_tpu(lambda a: [a * 3.0], [x], 1, 4, 1000, [4])
        spec = tpu_infeed.model_fn_inference_on_tpu(model_fn, {"x": x}, params={"scale": 2.0})
        spec_b = tpu_infeed.model_fn_inference_on_tpu(
            model_fn, {"x": x}, params={"scale": 2.0}, batch_config=batching
        )
        out = spec_b.export_outputs["serving_default"].outputs["y"]
        with tf.compat.v1.Session() as session:
            got = session.run(
                [plain[0], batched[0], direct[0], queued[0], spec.predictions["y"], out]
            )
    for value, expected in zip(got, [rows + 1, rows + 1, rows * 3, rows * 3, rows * 2, rows * 2]):
        np.testing.assert_allclose(value, expected)


def test_split_inputs_pads_tensor_core_embedding_ids():
    from tfport.estimator._tpu import tpu_embedding_internals as emb

    tf = import_tf()
    ids = tf.compat.v1.feature_column.categorical_column_with_identity("a", 10)
    column = tf.compat.v1.tpu.experimental.embedding_column(
        ids, 4, embedding_lookup_device="tpu_tensor_core", tensor_core_shape=[2, 3]
    )
    ctx = type(
        "Ctx",
        (),
        {
            "embedding_config": None,
            "tensor_core_embedding_columns": [column],
            "batch_size_for_input_fn": 2,
        },
    )()
    sparse = tf.sparse.SparseTensor(
        [[0, 0], [1, 0], [1, 1]], tf.constant([3, 5, 7], tf.int64), [2, 3]
    )
    features, _, datas = emb.split_inputs(ctx, {"a": sparse}, None, 2)
    assert sorted(features) == ["a", "a__TENSOR_CORE_MASK"] and datas == [{}, {}]
    assert features["a"].numpy().tolist() == [[3, 0, 0], [5, 7, 0]]  # ids padded to 3 per row
    assert features["a__TENSOR_CORE_MASK"].numpy().tolist() == [[1, 0, 0], [1, 1, 0]]


def _tpu_estimator_params_seen(tmp_path):
    """What input_fn and model_fn receive when a TPUEstimator subclass calls
    `_call_input_fn` / `_call_model_fn` itself (use_tpu=False, batch sizes 8 / 4)."""
    tf = import_tf()
    from tfport.estimator.tpu import RunConfig, TPUEstimator, TPUEstimatorSpec

    seen: dict = {}

    def model_fn(features, labels, mode, params):
        seen[mode] = sorted(params), params.get("batch_size"), params.get("use_tpu")
        w = tf.compat.v1.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        return TPUEstimatorSpec(mode, loss=loss, train_op=tf.no_op())

    def input_fn(params):
        seen["input"] = sorted(params), params.get("batch_size")
        x = np.ones((8, 2), "float32")
        return tf.data.Dataset.from_tensors(({"x": x}, x[:, :1])).repeat()

    config = RunConfig(model_dir=str(tmp_path))
    est = TPUEstimator(
        model_fn=model_fn, config=config, use_tpu=False, train_batch_size=8,
        eval_batch_size=4, params={"a": 1},
    )  # fmt: skip
    with tf.Graph().as_default():
        dataset = est._call_input_fn(input_fn, "train")
        features, labels = tf.compat.v1.data.make_one_shot_iterator(dataset).get_next()
        est._call_model_fn(features, labels, "train", est.config)
    return seen, sorted(est.params)


def test_a_tpu_estimator_subclass_calling_the_internals_gets_legacys_params(tmp_path):
    seen, params = _tpu_estimator_params_seen(tmp_path)
    # measured on TF 2.15 + tensorflow-estimator 2.15 with the same calls
    assert seen["input"] == (["a", "batch_size"], 8)
    assert seen["train"] == (["a", "batch_size", "use_tpu"], 8, False)
    assert params == ["a"]


@pytest.mark.parametrize(("given", "kept"), [(True, 2), (False, 1), (3, 3), (5, 5)])
def test_tpu_config_keeps_the_input_pipeline_as_legacy_did(given, kept):
    # TF 2.15's TPUConfig stored True as InputPipelineConfig.PER_HOST_V1 (2) and False as
    # PER_SHARD_V1 (1), and other values as given (checked on the legacy stack)
    from tfport.estimator._tpu.tpu_estimator import TPUConfig

    config = TPUConfig(per_host_input_for_training=given)
    assert config.per_host_input_for_training == kept
    assert type(config.per_host_input_for_training) is int
