"""Values of the TPU private internals that run without a TPU, on the legacy stack.

``python tpu_internals.py tpu_internals OUT_DIR`` writes ``OUT_DIR/values.json``:
what a ``TPUContext`` reports for a one-core TPU system (``TPUConfig(num_shards=1)``,
the deployment tfport's one-device run emulates), ``TensorPacker``'s packing and
unpacking of small features, ``PeriodicLogger``, ``InstallSignalHandlerHook``,
``CatchInvalidHostcallFunctions`` and ``split_inputs`` without embeddings.
"""

import json
import logging
import os
import signal
import sys

import numpy as np
import tensorflow as tf
from tensorflow_estimator.python.estimator.tpu import _tpu_estimator_embedding as tpu_emb
from tensorflow_estimator.python.estimator.tpu import tpu_context
from tensorflow_estimator.python.estimator.tpu import tpu_estimator as tpu_est

ARTIFACTS = ("tpu_internals",)
HOST = "/replica:0/task:0/device:CPU:0"


def _error(fn):
    try:
        fn()
    except (RuntimeError, ValueError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def _context_values():
    config = tf.compat.v1.estimator.tpu.RunConfig(
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(num_shards=1, iterations_per_loop=2)
    )
    internal = tpu_context._get_tpu_context(config, 8, 4, 2, True, True, None)
    out = {}
    for mode in ("train", "eval", "infer"):
        with internal.with_mode(mode) as ctx:
            inp = tpu_context.TPUContext(ctx, HOST, invocation_index=0, host_id=0)
            mod = tpu_context.TPUContext(ctx, call_from_input_fn=False)
            out[mode] = {
                "current_input_fn_deployment": list(inp.current_input_fn_deployment()),
                "num_replicas": inp.num_replicas,
                "num_hosts": inp.num_hosts,
                "current_host": inp.current_host,
                "num_of_replicas_per_host": inp.num_of_replicas_per_host,
                "device_for_replica_0": list(inp.device_for_replica(0)),
                "host_placement_0": inp.tpu_host_placement_function(0),
                "model_fn_device_assignment": mod.device_assignment,
                "model_fn_num_replicas": mod.num_replicas,
                "input_fn_device_assignment_error": _error(lambda c=inp: c.device_assignment),
                "model_fn_current_host_error": _error(lambda c=mod: c.current_host),
                "model_fn_deployment_error": _error(mod.current_input_fn_deployment),
                "batch_size_for_input_fn": ctx.batch_size_for_input_fn,
                "batch_size_for_model_fn": ctx.batch_size_for_model_fn,
            }
    return out


def _features():
    rng = np.random.RandomState(7)
    features = {f"s{i}": tf.constant(rng.rand(4, 1).astype("float32")) for i in range(5)}
    features["wide"] = tf.constant(rng.rand(4, 3).astype("float32"))
    features["pair"] = tf.constant(rng.rand(4, 2).astype("float32"))
    features["ids"] = tf.constant(rng.randint(0, 9, size=(4, 1)).astype("int64"))
    return features


def _packer_values():
    out = {}
    for dim, minimum in ((1, 5), (2, 5), (1, 6)):
        features = _features()
        original = {k: v.numpy().tolist() for k, v in features.items()}
        packer = tpu_est.TensorPacker(dim, minimum)
        packer.maybe_concatenate_features(features)
        packed = {k: v.numpy().tolist() for k, v in features.items()}
        packer.maybe_split_features(features)
        unpacked = {k: v.numpy().tolist() for k, v in features.items()}
        out[f"{dim}_{minimum}"] = {
            "packed_keys": sorted(packed),
            "packed": packed,
            "round_trip_equal": unpacked == original,
            "unpacked_keys": list(features),
            "small_key": packer._get_small_feature_key(tf.float32),
        }
    return out


class _Records(logging.Handler):
    def __init__(self):
        super().__init__()
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


def _logger_values():
    records = _Records()
    tf.get_logger().addHandler(records)
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    logger = tpu_est.PeriodicLogger(seconds=3600)
    logger.log("first %d", 1)
    logger.log("second %d", 2)
    quick = tpu_est.PeriodicLogger(seconds=-1)
    quick.log("third %s", "x")
    quick.log("fourth")
    tf.get_logger().removeHandler(records)
    return [m for m in records.messages if m.split()[0] in ("first", "second", "third", "fourth")]


def _signal_values():
    def handler(signum, frame):
        del signum, frame

    previous = signal.signal(signal.SIGINT, handler)
    hook = tpu_est.InstallSignalHandlerHook()
    hook.before_run(None)
    during = signal.getsignal(signal.SIGINT)
    hook.end(None)
    after = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, previous)
    return {"during_is_default": during is signal.SIG_DFL, "after_is_handler": after is handler}


def _hostcall_values():
    graph = tf.Graph()
    with graph.as_default():
        x = tf.constant(1.0)
        context = tpu_est.CatchInvalidHostcallFunctions()
        context.Enter()
        ok = tf.add(x, 1.0)
        error = _error(lambda: tf.compat.v1.summary.scalar("loss", x))
        context.Exit()
        after = tf.compat.v1.summary.scalar("after", x)
    return {"plain_op_type": ok.op.type, "summary_error": error, "after": after.op.type}


class _NoEmbedding:
    embedding_config = None
    tensor_core_embedding_columns = None


def _split_values():
    features = {"x": tf.constant([[1.0], [2.0]])}
    labels = tf.constant([0, 1])
    out = {}
    for cores in (1, 2):
        f, lab, datas = tpu_emb.split_inputs(_NoEmbedding(), dict(features), labels, cores)
        out[str(cores)] = {
            "features": {k: v.numpy().tolist() for k, v in f.items()},
            "labels": lab.numpy().tolist(),
            "enqueue_datas": datas,
        }
    return out


def _columns():
    fc = tf.compat.v1.feature_column
    tpu = tf.compat.v1.tpu.experimental
    a, b, c = (
        fc.categorical_column_with_identity(k, n) for k, n in (("a", 10), ("b", 7), ("c", 7))
    )
    seq = fc.sequence_categorical_column_with_identity("s", 6)
    single = tpu.embedding_column(a, 4, combiner="sum")
    shared = tpu.shared_embedding_columns([b, c], 3)
    sequence = tpu.embedding_column(seq, 2, max_sequence_length=5)
    return [fc.numeric_column("n"), single, *shared, sequence]


def _embedding_values():
    columns = _columns()
    kept = tpu_emb.get_tpu_embedding_columns(columns)
    tables, features = tpu_emb.get_configs_from_feature_columns(kept)
    out = {
        "kept": [columns.index(c) for c in kept],
        "tables": {
            name: [
                t.vocabulary_size,
                t.dimension,
                t.combiner,
                type(t.initializer).__name__,
                t.learning_rate_fn,
                t.learning_rate,
                t.hot_id_replication,
            ]
            for name, t in tables.items()
        },
        "features": {k: list(f) for k, f in features.items()},
        "numeric_error": _error_type(lambda: tpu_emb.get_configs_from_feature_columns(columns[:1])),
    }
    graph = tf.Graph()
    scopes = {
        "a": ("input_layer/a_embedding", "embedding_weights"),
        "b_c_shared_embedding": ("", "b_c_shared_embedding"),
        "s": ("sequence_input_layer/s_embedding", "embedding_weights"),
    }
    out["no_scope_error"] = _error_type(lambda: tpu_emb.get_full_variable_names(graph, tables))
    optimizers = tf.compat.v1.tpu.experimental
    for name, opt in (
        ("none", None),
        ("adagrad", optimizers.AdagradParameters(0.1)),
        ("adam", optimizers.AdamParameters(0.1)),
        ("sgd", optimizers.StochasticGradientDescentParameters(0.1)),
    ):
        graph.add_to_collection("_tpu_feature_column_scope", dict(scopes))
        names, slots = tpu_emb.get_full_variable_names(graph, tables, opt)
        out["names_" + name] = [
            names,
            {k: None if v is None else list(v) for k, v in slots.items()},
            len(graph.get_collection("_tpu_feature_column_scope")),
        ]
    spec = tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec(
        feature_columns=kept,
        optimization_parameters=optimizers.AdagradParameters(0.1),
        experimental_gradient_multiplier_fn=lambda step: tf.cast(step, tf.float32) * 0.5 + 2.0,
    )
    config = tpu_emb.EmbeddingConfig(spec, 8, 4, 1, 1, tf.compat.v1.estimator.tpu.RunConfig())
    with tf.Graph().as_default():
        step = tf.compat.v1.train.create_global_step()
        multiplier = config.get_grad_multiplier()
        with tf.compat.v1.Session() as session:
            session.run(step.initializer)
            session.run(step.assign(4))
            out["grad_multiplier"] = [multiplier.dtype.name, float(session.run(multiplier))]
    out["has_embedding_tables"] = config.has_embedding_tables()
    return out


def _error_type(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type is what is recorded
        return type(exc).__name__
    return None


def main(argv):
    name, out_dir = argv
    assert name == "tpu_internals", name
    os.makedirs(out_dir, exist_ok=True)
    values = {
        "context": _context_values(),
        "packer": _packer_values(),
        "periodic_logger": _logger_values(),
        "signal_hook": _signal_values(),
        "hostcall": _hostcall_values(),
        "split_inputs": _split_values(),
        "embedding": _embedding_values(),
    }
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
