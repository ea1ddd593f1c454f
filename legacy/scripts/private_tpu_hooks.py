"""Legacy TPUEstimator's internal context, loop hooks and graph checks, off a TPU.

``python private_tpu_hooks.py private_tpu_hooks OUT_DIR`` writes ``OUT_DIR/values.json``:
`tpu_context._InternalTPUContext`'s answers for a few RunConfigs and modes (no TPU: the
system found has no cores), the iterations `_TPUStopAtStepHook`, `_SetEvalIterationsHook`
and `_StoppingPredictHook` load in a MonitoredSession and the step they stop at, the
iterations variable and eval-step helpers, the graph checks, the infeed queue contexts and
`IterationCountEstimator`'s estimates: values, or the exception type and first line.
The test runs ``record()`` under tfport and compares.
"""

import sys

import _values
import tensorflow as tf
from tensorflow.core.framework import attr_value_pb2
from tensorflow_estimator.python.estimator.tpu import iteration_count_estimator as I
from tensorflow_estimator.python.estimator.tpu import tpu_config as TC
from tensorflow_estimator.python.estimator.tpu import tpu_context as C
from tensorflow_estimator.python.estimator.tpu import tpu_estimator as T
from tensorflow_estimator.python.estimator.tpu import util as U

ARTIFACTS = ("private_tpu_hooks",)
v1 = tf.compat.v1


def _graph_object(value):
    return [type(value).__name__, value.name.split(":")[0]]


def _message(line):
    return line.split(" Available devices")[0]  # the device list differs by TF version


_describe = _values.describer(_graph_object, digits=6)
_outcome = _values.outcome_recorder(_describe, message=_message)


_PROPERTIES = (
    "mode num_replicas num_hosts num_cores num_of_cores_per_host num_of_replicas_per_host "
    "global_batch_size batch_size_for_input_fn batch_size_for_model_fn master_job "
    "model_parallelism_enabled device_assignment input_partition_dims embedding_config "
    "tensor_core_embedding_columns allow_per_host_v2_parallel_get_next feed_hook"
).split()
_PREDICATES = (
    "is_running_on_cpu is_input_sharded_per_core is_input_per_host_with_iterators "
    "is_input_broadcast_with_iterators is_input_slice_broadcast_to_all_cores "
    "is_replica_across_hosts"
).split()


def _context_answers(ctx):
    out = {"type": type(ctx).__name__, "mode_unset": _outcome(lambda: ctx.mode)}
    for mode in ("train", "eval", "infer"):
        with ctx.with_mode(mode) as c:
            row = {n: _outcome(getattr, c, n) for n in _PROPERTIES}
            row.update({n: _outcome(lambda n=n: getattr(c, n)()) for n in _PREDICATES})
            row["on_cpu_export"] = _outcome(c.is_running_on_cpu, True)
            row["device_for_replica"] = _outcome(c.device_for_replica, 1)
            row["host_of_host"] = _outcome(lambda: c.tpu_host_placement_function(host_id=0))
            row["host_of_replica"] = _outcome(lambda: c.tpu_host_placement_function(replica_id=1))
            row["host_both"] = _outcome(
                lambda: c.tpu_host_placement_function(replica_id=1, host_id=0)
            )
            row["device_of"] = _outcome(lambda: c.tpu_device_placement_function(1))
            row["ordinal"] = _outcome(lambda: c.tpu_ordinal_function(0)(3))
            out[mode] = row
    return out


def _config(**tpu):
    return TC.RunConfig(tpu_config=TC.TPUConfig(iterations_per_loop=3, **tpu))


def _contexts():
    pipeline = TC.InputPipelineConfig
    cases = {
        "default_cpu": (_config(), 16, 8, 4, False, True, None),
        "default_tpu": (_config(), 16, 8, 4, True, True, None),
        "eval_off_tpu": (_config(), 16, 8, 4, True, False, None),
        "per_host_v2": (_config(per_host_input_for_training=pipeline.PER_HOST_V2), 16, 8, 4)
        + (False, False, None),
        "broadcast_sliced": (
            _config(
                per_host_input_for_training=pipeline.BROADCAST,
                eval_training_input_configuration=pipeline.SLICED,
            ),
            16,
            8,
            4,
            False,
            True,
            None,
        ),
        "per_shard": (_config(per_host_input_for_training=False), 16, 8, 4, False, True, None),
        "one_core": (_config(num_shards=1), 16, 8, 4, True, True, None),
        "one_core_no_eval_batch": (_config(num_shards=1), 15, None, None, True, True, None),
        "model_parallel": (
            _config(num_cores_per_replica=2, per_host_input_for_training=pipeline.PER_HOST_V2),
            16,
            8,
            4,
            True,
            True,
            None,
        ),
    }
    out = {}
    for name, args in cases.items():
        made = _outcome(C._get_tpu_context, *args)
        out[name] = made if made[0] == "raises" else _context_answers(C._get_tpu_context(*args))
    out["one_core_embedding"] = _outcome(
        C._get_tpu_context, _config(num_shards=1), 16, 8, 4, True, True, "spec"
    )
    direct = C._InternalTPUContext(_config(), 16, 8, 4, False)
    with direct.with_mode("train") as c:
        out["direct"] = [c.batch_size_for_input_fn, c.num_replicas, direct._eval_on_tpu]
    replica = C._TPUEstimatorReplicaContext(1)
    out["replica_context"] = [
        int(replica.replica_id_in_sync_group),
        type(replica.strategy).__name__,
        _outcome(replica.__enter__),
        _outcome(replica.__exit__, None, None, None),
    ]
    return out


def _iterations(hook_factory, steps_per_run_var=True, runs=10):
    """[(iterations loaded before the run, global step after)] until the session stops."""
    with tf.Graph().as_default():
        step = v1.train.create_global_step()
        iterations = T._create_or_get_iterations_per_loop()
        seen = iterations.read_value()
        with tf.control_dependencies([seen]):
            train = step.assign_add(tf.cast(seen, tf.int64)) if steps_per_run_var else seen
        hook = hook_factory()
        out = []
        with v1.train.MonitoredSession(hooks=[hook]) as session:
            while not session.should_stop() and len(out) < runs:
                out.append(_describe(session.run([seen, train])))
        return out


def _hooks():
    counter = U.IterationsPerLoopCounter
    out = {
        "stop_num_steps": _iterations(lambda: T._TPUStopAtStepHook(counter(4, "count"), 10)),
        "stop_final_step": _iterations(
            lambda: T._TPUStopAtStepHook(counter(3, "count"), final_step=7)
        ),
        "stop_seconds": _iterations(lambda: T._TPUStopAtStepHook(counter(60, "seconds"), 5)),
        "stop_neither": _outcome(T._TPUStopAtStepHook, counter(4, "count")),
        "stop_both": _outcome(T._TPUStopAtStepHook, counter(4, "count"), 1, 2),
        "stop_bad_unit": _outcome(T._TPUStopAtStepHook, counter(4, "steps"), 1),
        "eval_iterations": _iterations(lambda: T._SetEvalIterationsHook(5), False, runs=2),
    }
    with tf.Graph().as_default():
        hook = T._TPUStopAtStepHook(counter(4, "count"), 2)
        out["stop_no_global_step"] = _outcome(hook.begin)
    with tf.Graph().as_default():
        count = v1.get_variable("count", initializer=0, use_resource=True)
        v1.train.create_global_step()
        iterations = T._create_or_get_iterations_per_loop().read_value()
        bump = count.assign_add(1)
        with tf.control_dependencies([bump]):  # the signal of this run's batch
            hook = T._StoppingPredictHook(tf.greater_equal(count.read_value(), 3))
        seen, error = [], None
        session = v1.train.MonitoredSession(hooks=[hook])
        try:
            while not session.should_stop():
                seen.append(_describe(session.run([bump, iterations])))
        except tf.errors.OutOfRangeError as e:
            error = ["OutOfRangeError", e.message]
        out["predict_stop"] = [seen, error, session.should_stop()]
        session.close()
    return out


def _variables():
    out = {}
    with tf.Graph().as_default():
        out["no_global_step"] = _outcome(T._create_or_get_iterations_per_loop)
    with tf.Graph().as_default() as g:
        v1.train.create_global_step()
        a = T._create_or_get_iterations_per_loop()
        b = T._create_or_get_iterations_per_loop()
        out["made"] = [
            a.name,
            a.dtype.name,
            a is b,
            a.trainable,
            [c.decode() for c in a.op.colocation_groups()],
            a in v1.local_variables(),
            len(g.get_collection("tpu_estimator_iterations_per_loop")),
        ]
        g.add_to_collection("tpu_estimator_iterations_per_loop", a)
        out["two"] = _outcome(T._create_or_get_iterations_per_loop)
    with tf.Graph().as_default():
        v1.train.create_global_step()
        iterations = T._create_or_get_iterations_per_loop()
        op = T._increase_eval_step_op(iterations)
        eval_step = [v for v in v1.local_variables() if "eval_step" in v.name][0]
        with v1.Session() as s:
            s.run(v1.local_variables_initializer())
            iterations.load(5, s)
            s.run(op)
            s.run(op)
            out["eval_step"] = [eval_step.name, eval_step.dtype.name, _describe(s.run(eval_step))]
    for name, pipeline in (("per_host", True), ("broadcast", TC.InputPipelineConfig.BROADCAST)):
        ctx = C._InternalTPUContext(_config(per_host_input_for_training=pipeline), 8, 8, 8, False)
        with tf.Graph().as_default(), ctx.with_mode("train") as c:
            v1.get_variable("w", initializer=1.0, use_resource=True)
            v1.get_variable("nan", initializer=float("nan"), use_resource=True)
            v1.get_variable("frozen", initializer=2.0, trainable=False, use_resource=True)
            ops = T._sync_variables_ops(c)
            row = [[o.type for o in ops]]
            with v1.Session() as s:
                s.run(v1.global_variables_initializer())
                row.append(_outcome(lambda ops=ops: s.run(ops) and None))
            out[f"sync_{name}"] = row
    return out


def _tpu_tensor(graph):
    with graph._attr_scope({"_tpu_replicate": attr_value_pb2.AttrValue(s=b"cluster")}):
        return tf.constant(1.0, name="on_tpu")


def _checks():
    out = {}
    with tf.Graph().as_default() as g:
        inside, plain = _tpu_tensor(g), tf.constant(2.0, name="plain")
        with T._CapturingContext(message="Inside scaffold_fn"):
            out["capture_plain"] = _outcome(tf.identity, plain, name="ok")
            out["capture_tpu"] = _outcome(tf.identity, inside, name="bad")
        out["capture_after"] = _outcome(tf.identity, inside, name="after")
        context = T._CapturingContext("m")
        out["capture_add_value"] = _outcome(context.AddValue, plain)
    small = {"a": tf.zeros([2, 3]), "b": tf.zeros([4], tf.int64)}
    with tf.Graph().as_default():
        big = {"x": v1.placeholder(tf.float32, [1024, 1024, 256])}
        out["transfer_small"] = _outcome(T._verify_cross_hosts_transfer_size, small, "m:")
        out["transfer_big"] = _outcome(T._verify_cross_hosts_transfer_size, big, "Outfeed:")
    ctx = C._InternalTPUContext(_config(), 8, 8, 8, False)

    class TwoReplicas:
        num_replicas = 2

    with tf.Graph().as_default(), ctx.with_mode("train") as c:
        out["validate_v2"] = _outcome(T._validate_tpu_training_graph, c)
        v1.disable_control_flow_v2()
        try:
            out["validate_v1"] = _outcome(T._validate_tpu_training_graph, c)
            out["validate_v1_two"] = _outcome(T._validate_tpu_training_graph, TwoReplicas())
        finally:
            v1.enable_control_flow_v2()
    out["preemption"] = [
        _outcome(T._check_add_preemption_hook, None),
        _outcome(T._check_add_preemption_hook, "cluster"),
    ]
    out["not_saver"] = _outcome(T._NotSaver("no saving").save, "sess", "path", global_step=3)
    return out


def _queues():
    out = {"signal": [T._SIGNAL.NEXT_BATCH, T._SIGNAL.STOP]}
    for name, cls in (("queue", T._OpQueueContext), ("once", T._OpSignalOnceQueueContext)):
        seen = []
        context = cls("infeed", lambda q, sink: sink.extend(q.read_iteration_counts()), (seen,))
        context.send_next_batch_signal(3)
        context.send_next_batch_signal(5)
        context.stop()
        context.send_next_batch_signal(7)  # after the stop: never read
        context.join()
        out[name] = seen
    return out


def _estimator():
    e = I.IterationCountEstimator(capacity=3)
    out = {
        "empty": [e._mean_runtime_secs(), e._mean_step_time_secs(), e._std_step_time_secs()],
        "empty_get": e.get(10),
        "bad_total": _outcome(e.get, 0),
        "bad_capacity": _outcome(I.IterationCountEstimator, 0),
        "bad_reset": _outcome(e._reset, -2.5),
        "diff": [
            e._diff_less_than_percentage(95, 100, 5),
            e._diff_less_than_percentage(94, 100, 5),
            _outcome(e._diff_less_than_percentage, 0, 100, 5),
            _outcome(e._diff_less_than_percentage, 1, 0, 5),
        ],
    }
    gets = []
    for runtime, count in ((2.0, 4), (0.0, 3), (3.0, 5), (1.0, 0), (5.0, 10), (4.0, 8)):
        e.update(runtime, count)
        gets.append(
            [
                e.get(10),
                _describe(e._mean_runtime_secs()),
                _describe(e._mean_step_time_secs()),
                _describe(e._std_step_time_secs()),
                bool(e._is_step_time_stable()),
                len(e._buffer_wheel),
            ]
        )
    out["gets"] = gets
    stable = I.IterationCountEstimator(capacity=2)
    for _ in range(4):
        stable.update(10.0, 20)
    out["stable"] = [bool(stable._is_step_time_stable()), stable.get(10.5), stable.get(30)]
    e._reset(5)
    out["reset"] = [len(e._buffer_wheel), e._capacity, e.get(10)]
    return out


def record():
    return {
        "contexts": _contexts(),
        "hooks": _hooks(),
        "variables": _variables(),
        "checks": _checks(),
        "queues": _queues(),
        "estimator": _estimator(),
    }


if __name__ == "__main__":
    _values.main("private_tpu_hooks", record, sys.argv[1:])
