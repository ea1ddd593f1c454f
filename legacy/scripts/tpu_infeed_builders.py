"""The legacy TPU infeed enqueue builders, built in a graph on the legacy stack (no TPU).

``python tpu_infeed_builders.py tpu_infeed_builders OUT_DIR`` writes ``OUT_DIR/values.json``:
for each ``generate_*_enqueue_ops_fn*`` builder of ``tpu_estimator`` and each mode, with a
one-core TPU context (``TPUConfig(num_shards=1)``): what the builder returns, what the
input_fn's context reported, the ops ``enqueue_ops_fn()`` builds (op types, the dtypes and
shapes they enqueue, device ordinals), the structure the recorder keeps (flattened
features/labels/signals keys) and the values of the enqueued tensors over successive
batches (a session runs the tensors feeding the enqueue ops; the ops themselves need a TPU).
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow_estimator.python.estimator.tpu import tpu_context
from tensorflow_estimator.python.estimator.tpu import tpu_estimator as tpu_est

ARTIFACTS = ("tpu_infeed_builders",)
HOST = "/replica:0/task:0/device:CPU:0"
ROWS = 6


def _data():
    rng = np.random.RandomState(11)
    return {
        "x": rng.rand(ROWS, 3).astype("float32"),
        "ids": rng.randint(0, 9, size=(ROWS, 1)).astype("int64"),
        "y": rng.rand(ROWS, 1).astype("float32"),
    }


def _input_fn(kind, batch, seen):
    def input_fn(params_ctx):
        seen.append(list(params_ctx.current_input_fn_deployment()))
        data = _data()
        features = {"x": data["x"], "ids": data["ids"]}
        if kind == "tensors":
            return {k: tf.constant(v[:batch]) for k, v in features.items()}, tf.constant(
                data["y"][:batch]
            )
        if kind == "features_only":
            return tf.data.Dataset.from_tensor_slices(features).batch(batch)
        dataset = tf.data.Dataset.from_tensor_slices((features, data["y"]))
        return dataset.batch(batch, drop_remainder=kind == "dataset_full")

    return input_fn


def _kind(value):
    if value is None:
        return None
    if callable(value) and not isinstance(value, tf.Operation):
        return "function"
    return type(value).__name__


def _op_values(op):
    return {
        "type": op.type,
        "dtypes": [tf.as_dtype(d).name for d in op.get_attr("dtypes")],
        "shapes": [tf.TensorShape(s).as_list() for s in op.get_attr("shapes")],
        "device_ordinal": op.get_attr("device_ordinal"),
        "num_inputs": len(op.inputs),
    }


def _structure(recorder):
    structure = recorder._feature_structure
    return {
        part: (sorted(value) if isinstance(value, dict) else "tensor")
        for part, value in structure.items()
    }


def _batches(session, tensors, count):
    out = []
    for _ in range(count):
        try:
            values = session.run(tensors)
        except tf.errors.OutOfRangeError:
            out.append("OutOfRangeError")
            break
        out.append([np.asarray(v).tolist() for v in values])
    return out


def _build(builder, mode, kind, batch):
    config = tf.compat.v1.estimator.tpu.RunConfig(
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(num_shards=1, iterations_per_loop=2)
    )
    internal = tpu_context._get_tpu_context(config, batch, batch, batch, True, True, None)
    with tf.Graph().as_default():
        with internal.with_mode(mode) as ctx:
            recorder = tpu_est._InputPipeline.InputsStructureRecorder()
            return _record(
                lambda input_fn: _call(tpu_est, builder, ctx, input_fn, recorder),
                recorder,
                kind,
                batch,
            )


def _call(module, builder, ctx, input_fn, recorder):
    """Calls `module`'s builder named by `builder` for host 0 (one host)."""
    if builder == "per_core":
        return module.generate_per_core_enqueue_ops_fn_for_host(ctx, input_fn, recorder, HOST, 0)
    if builder == "per_host":
        return module.generate_per_host_enqueue_ops_fn_for_host(
            ctx, input_fn, recorder, None, HOST, 0
        )
    if builder == "per_host_v2":
        return module.generate_per_host_v2_enqueue_ops_fn_for_host(
            ctx, input_fn, recorder, HOST, 0, 0
        )
    return module.generate_broadcast_enqueue_ops_fn(ctx, input_fn, recorder, 1)


def _record(call, recorder, kind, batch):
    """What `call(input_fn)` (a builder) returns and builds, in the current graph."""
    seen = []
    out = {}
    try:
        returned = call(_input_fn(kind, batch, seen))
        out["returned"] = [_kind(v) for v in returned]
        enqueue = returned[0]()
    except (TypeError, ValueError, RuntimeError) as exc:
        out["error"] = f"{type(exc).__name__}: {exc}"
        out["deployments"] = seen
        return out
    out["deployments"] = seen
    ops = enqueue["ops"] if isinstance(enqueue, dict) else enqueue
    out["enqueue_kind"] = type(enqueue).__name__
    out["signals"] = sorted(enqueue["signals"]) if isinstance(enqueue, dict) else None
    out["ops"] = [_op_values(op) for op in ops]
    out["structure"] = _structure(recorder)
    queue = returned[1].get()
    out["queue_tuple_elements"] = queue.number_of_tuple_elements
    init = returned[2] if len(returned) > 2 else None
    out["batches"] = _run_inputs(ops[0], init)
    return out


def _run_inputs(op, init):
    """The values op's inputs take over 4 runs, in a copy of the graph without the
    enqueue ops (their kernels exist only on a TPU host, and the placer sees them)."""
    graph_def = op.graph.as_graph_def()
    kept = [n for n in graph_def.node if n.op != "InfeedEnqueueTuple"]
    del graph_def.node[:]
    graph_def.node.extend(kept)
    with tf.Graph().as_default() as graph:
        tf.compat.v1.import_graph_def(graph_def, name="")
        tensors = [graph.get_tensor_by_name(t.name) for t in op.inputs]
        with tf.compat.v1.Session() as session:
            if init is not None:
                session.run(graph.get_operation_by_name(init.name))
            return _batches(session, tensors, 4)


CASES_BUILT = (
    ("per_core", "train", "tensors", 4),
    ("per_core", "train", "dataset", 4),
    ("per_host", "train", "dataset", 4),
    ("per_host", "train", "tensors", 4),
    ("per_host", "infer", "dataset", 4),
    ("per_host", "infer", "features_only", 4),
    ("per_host", "infer", "tensors", 4),
    ("per_host_v2", "train", "dataset", 4),
    ("per_host_v2", "eval", "dataset_full", 4),
    ("per_host_v2", "infer", "dataset", 4),
    ("per_host_v2", "train", "tensors", 4),
    ("broadcast", "train", "dataset", 4),
    ("broadcast", "infer", "dataset", 4),
    ("broadcast", "eval", "tensors", 4),
)


PIPELINES = (
    ("per_host", "train", "dataset_full"),
    ("per_host", "train", "tensors"),
    ("per_host", "infer", "dataset"),
    ("per_host_v2", "train", "dataset_full"),
    ("per_host_v2", "infer", "dataset"),
)


def _pipeline(config_name, mode, kind, batch):
    per_host = tf.compat.v1.estimator.tpu.InputPipelineConfig.PER_HOST_V2
    tpu_config = tf.compat.v1.estimator.tpu.TPUConfig(
        num_shards=1,
        iterations_per_loop=2,
        per_host_input_for_training=per_host if config_name == "per_host_v2" else True,
    )
    config = tf.compat.v1.estimator.tpu.RunConfig(tpu_config=tpu_config)
    internal = tpu_context._get_tpu_context(config, batch, batch, batch, True, True, None)
    with tf.Graph().as_default():
        with internal.with_mode(mode) as ctx:
            tf.compat.v1.train.get_or_create_global_step()  # made first, as TPUEstimator does
            tpu_est._create_or_get_iterations_per_loop()
            return _record_pipeline(
                lambda input_fn: tpu_est._InputPipeline(input_fn, None, ctx), kind, batch
            )


def _record_pipeline(make, kind, batch):
    """What `make(input_fn)` (an `_InputPipeline`) builds, and what its dequeue_fn gives."""
    seen = []
    pipeline = make(_input_fn(kind, batch, seen))
    enqueue_ops, dequeue_fn, hooks, on_coordinator = (
        pipeline.generate_infeed_enqueue_ops_and_dequeue_fn()
    )
    graph = tf.compat.v1.get_default_graph()
    out = {
        "deployments": seen,
        "enqueue_ops": [type(op).__name__ for op in enqueue_ops],
        "while_loops": sorted(
            op.type
            for op in graph.get_operations()
            if op.type in ("LoopCond", "While", "StatelessWhile")
        ),
        "enqueue_op_types": sorted(
            {op.type for op in graph.get_operations() if op.type.startswith("Infeed")}
        ),
        "hooks": [type(hook).__name__ for hook in hooks],
        "run_infeed_loop_on_coordinator": on_coordinator,
        "iterations_variables": len(graph.get_collection("tpu_estimator_iterations_per_loop")),
    }
    inputs = dequeue_fn()
    features, labels = inputs.features_and_labels()
    signals = inputs.signals()
    dequeue = [op for op in graph.get_operations() if op.type == "InfeedDequeueTuple"]
    out["dequeue"] = {
        "ops": len(dequeue),
        "dtypes": [tf.as_dtype(d).name for d in dequeue[0].get_attr("dtypes")],
        "shapes": [tf.TensorShape(x).as_list() for x in dequeue[0].get_attr("shapes")],
        "features": sorted(features) if isinstance(features, dict) else "tensor",
        "feature_shapes": {k: v.shape.as_list() for k, v in sorted(features.items())},
        "labels": None if labels is None else labels.shape.as_list(),
        "signals": None if signals is None else sorted(signals),
    }
    return out


def main(name, out_dir):
    assert name == "tpu_infeed_builders", name
    values = {}
    for builder, mode, kind, batch in CASES_BUILT:
        values[f"{builder}/{mode}/{kind}"] = _build(builder, mode, kind, batch)
    for config_name, mode, kind in PIPELINES:
        values[f"pipeline/{config_name}/{mode}/{kind}"] = _pipeline(config_name, mode, kind, 4)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
