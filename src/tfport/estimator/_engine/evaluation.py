"""Evaluation: metrics over an input_fn from a checkpoint, with legacy eval summaries."""

from __future__ import annotations

import os
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._engine import builder, console, graphs, sessions
from tfport.estimator._engine.aligned_names import aligned_var_list
from tfport.estimator._engine.context import ModeContext
from tfport.estimator._engine.metrics import LOSS_KEY, metric_pairs
from tfport.estimator._engine.spec import check_hooks

GLOBAL_STEP_KEY = "global_step"


def evaluate(
    ctx: ModeContext,
    input_fn: Any,
    steps: Any,
    hooks: Any,
    checkpoint_path: Any,
    name: Any,
    record_path: bool = True,
) -> dict:
    """Evaluates as the legacy `Estimator.evaluate` did, in the EVAL context `ctx`.

    `record_path=False` leaves the checkpoint's path out of the eval summaries and log.

    Example:
        >>> evaluate(ctx, eval_input_fn, None, None, None, None)  # doctest: +SKIP
    """
    tf = import_tf()
    if steps is not None and (not isinstance(steps, int) or steps <= 0):
        raise TfportInputError(
            message("evaluate(steps) must be a positive int or None", "Fix it", steps=steps)
        )
    hooks = list(check_hooks(tf, hooks, "evaluate(hooks)"))
    checkpoint_path = resolve_checkpoint(ctx.model_dir, checkpoint_path, "evaluate")
    built = builder.build(ctx, input_fn)
    with built.graph.as_default():
        update_op, eval_dict = _metric_ops(tf, built)
        all_hooks = list(built.input_hooks) + hooks + list(built.spec.evaluation_hooks)
        if checkpoint_path and not built.spec.scaffold.saver:
            _check_or_align_names(tf, ctx, input_fn, built, checkpoint_path)
        master, session_config, _ = sessions.session_target(ctx.strategy, ctx.config)
        results = _evaluate_once(
            tf,
            built,
            checkpoint_path,
            update_op,
            eval_dict,
            all_hooks,
            steps,
            session_config,
            master,
        )
    path = checkpoint_path if record_path else None
    _write_summaries(tf, eval_dir(ctx.model_dir, name), results, path)
    return results


def _check_or_align_names(
    tf: Any, ctx: ModeContext, input_fn: Any, built: Any, checkpoint_path: str
) -> None:
    """Checks the checkpoint covers the graph; under a strategy, reads single-device names."""
    var_list = None
    if built.distributed:
        var_list = aligned_var_list(ctx, input_fn, checkpoint_path)
        if var_list:
            saver = tf.compat.v1.train.Saver(var_list)
            built.spec = built.spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=saver))
    graphs.check_checkpoint_covers_graph(checkpoint_path, var_list)


def resolve_checkpoint(model_dir: str, checkpoint_path: Any, what: str) -> str | None:
    """Returns the checkpoint to use (given or latest), or None to initialize fresh."""
    tf = import_tf()
    if checkpoint_path:
        if tf.io.gfile.isdir(checkpoint_path):
            checkpoint_path = tf.train.latest_checkpoint(checkpoint_path)
        elif not tf.io.gfile.glob(str(checkpoint_path) + ".index"):
            raise TfportInputError(
                message(
                    f"{what}: checkpoint_path names no checkpoint",
                    "Pass a checkpoint prefix such as model_dir/model.ckpt-40",
                    checkpoint_path=checkpoint_path,
                )
            )
        return checkpoint_path
    latest = tf.train.latest_checkpoint(model_dir)
    if not latest:
        console.info(
            "Could not find trained model in model_dir: %s, running initialization to %s.",
            model_dir,
            what,
        )
    return latest


def _metric_ops(tf: Any, built: Any) -> tuple[Any, dict]:
    ops = built.metric_ops  # set by a distributed build, loss included
    if ops is None:
        ops = metric_pairs(tf, built.spec.eval_metric_ops)
        ops[LOSS_KEY] = tf.compat.v1.metrics.mean(built.spec.loss)
    values = {key: value for key, (value, _) in ops.items()}
    values[GLOBAL_STEP_KEY] = built.global_step
    return tf.group(*[update for _, update in ops.values()]), values


def _evaluate_once(
    tf: Any,
    built: Any,
    checkpoint_path: Any,
    update_op: Any,
    eval_dict: dict,
    hooks: list,
    steps: Any,
    session_config: Any,
    master: str = "",
) -> dict:
    v1 = tf.compat.v1
    eval_step, stop_hook, set_increment = tf_internals.eval_step_and_stop_hook(steps)
    increment = v1.assign_add(eval_step, 1)
    update_op = [update_op, increment] if update_op is not None else [increment]
    set_increment(increment)
    final_hook = v1.train.FinalOpsHook(eval_dict)
    all_hooks = hooks + [stop_hook, final_hook]
    scaffold = built.spec.scaffold
    if scaffold.local_init_op is not None:
        # the metrics and eval step are local variables the model's own op does not cover
        scaffold = v1.train.Scaffold(
            local_init_op=tf.group(
                scaffold.local_init_op, v1.train.Scaffold.default_local_init_op()
            ),
            copy_from_scaffold=scaffold,
        )
    creator = v1.train.ChiefSessionCreator(
        scaffold=scaffold,
        master=master,
        checkpoint_filename_with_path=checkpoint_path,
        config=session_config,
    )
    start = console.evaluation_started()
    with v1.train.MonitoredSession(session_creator=creator, hooks=all_hooks) as session:
        sessions.cache_runs(session)
        while not session.should_stop():
            session.run(update_op)
    console.evaluation_finished(start)
    return dict(final_hook.final_ops_values)


def eval_dir(model_dir: str, name: Any) -> str:
    """`model_dir/eval` or `model_dir/eval_<name>`, as the legacy Estimator used.

    Example:
        >>> eval_dir("/m", "test")
        '/m/eval_test'
    """
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)


def _write_summaries(tf: Any, folder: str, results: dict, checkpoint_path: Any) -> None:
    import numpy as np

    step = int(results[GLOBAL_STEP_KEY])
    console.saving_dict(step, results)
    v1 = tf.compat.v1
    from tensorflow.core.framework import summary_pb2

    summary = summary_pb2.Summary()
    for key, value in results.items():
        if key == GLOBAL_STEP_KEY:
            continue
        if isinstance(value, bytes):
            summary.value.extend(_summary_values(summary_pb2, key, value))
            continue
        if not isinstance(value, (np.ndarray, np.generic, int, float)):
            console.info(
                "Skipping summary for %s, must be a float, np.float32, np.int64, "
                "np.int32 or int or a serialized string of Summary.",
                key,
            )
            continue
        arr = np.asarray(value)
        if arr.size == 1 and np.issubdtype(arr.dtype, np.number):
            summary.value.add(tag=key, simple_value=float(arr))
        elif isinstance(value, np.ndarray):  # legacy wrote other arrays as tensor summaries
            summary.value.add(tag=key, node_name=key, tensor=tf.make_tensor_proto(value))
    with tf.Graph().as_default():
        writer = v1.summary.FileWriterCache.get(folder)
    writer.add_summary(summary, step)
    if checkpoint_path:
        write_checkpoint_path(tf, writer, checkpoint_path, step)
    writer.flush()


def write_checkpoint_path(tf: Any, writer: Any, checkpoint_path: Any, step: int) -> None:
    """Adds the `checkpoint_path` text summary of an evaluation at `step` to `writer`.

    Example:
        >>> write_checkpoint_path(tf, writer, "/m/model.ckpt-40", 40)  # doctest: +SKIP
    """
    from tensorflow.core.framework import summary_pb2

    console.saving_checkpoint_path(step, checkpoint_path)
    path_summary = summary_pb2.Summary()
    tensor = tf.make_tensor_proto(str(checkpoint_path).encode())
    path_summary.value.add(
        tag="checkpoint_path",
        tensor=tensor,
        metadata=summary_pb2.SummaryMetadata(
            plugin_data=summary_pb2.SummaryMetadata.PluginData(plugin_name="text")
        ),
    )
    writer.add_summary(path_summary, step)


def _summary_values(summary_pb2: Any, key: str, value: bytes) -> list:
    """A metric holding a serialized `Summary` (e.g. `tf.summary.text`'s): its values,
    tagged `<key>/<index>` as legacy wrote them; other bytes are skipped with legacy's line.
    """
    from google.protobuf import message as proto_message

    try:
        parsed = summary_pb2.Summary.FromString(value)
    except proto_message.DecodeError:
        console.info("Skipping summary for %s, cannot parse string to Summary.", key)
        return []
    for index, item in enumerate(parsed.value):
        item.tag = f"{key}/{index}"
    return list(parsed.value)
