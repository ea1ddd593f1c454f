"""Evaluation: metrics over an input_fn from a checkpoint, with legacy eval summaries."""

from __future__ import annotations

import contextvars
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, InputFn, TFModule
from tfport.estimator._engine.api.spec import ModeKeys, check_hooks
from tfport.estimator._engine.building import builder, graphs
from tfport.estimator._engine.building.aligned_names import aligned_var_list
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.building.metrics import LOSS_KEY, metric_pairs
from tfport.estimator._engine.running import console, sessions

if TYPE_CHECKING:
    from tfport.estimator._engine.building.builder import Built

GLOBAL_STEP_KEY = "global_step"
# False while `Estimator._evaluate_in_memory` runs: summaries name no checkpoint
_RECORD_PATH: contextvars.ContextVar[bool] = contextvars.ContextVar("record_path", default=True)


def evaluate(
    self: Any,
    input_fn: InputFn,
    steps: int | None,
    hooks: Iterable[Hook] | None,
    checkpoint_path: str | None,
    name: str | None,
    record_path: bool = True,
) -> dict:
    """`Estimator.evaluate`: `self._actual_eval` on the RunConfig's `eval_distribute`.

    `record_path=False` leaves the checkpoint's path out of the eval summaries and log.

    Example:
        >>> evaluate(est, eval_input_fn, None, None, None, None)  # doctest: +SKIP
    """
    token = _RECORD_PATH.set(record_path)
    try:
        return self._actual_eval(
            input_fn,
            strategy=self._eval_distribution,
            steps=steps,
            hooks=hooks,
            checkpoint_path=checkpoint_path,
            name=name,
        )
    finally:
        _RECORD_PATH.reset(token)


def actual_eval(
    self: Any,
    input_fn: InputFn,
    strategy: object = None,
    steps: int | None = None,
    hooks: Iterable[Hook] | None = None,
    checkpoint_path: str | None = None,
    name: str | None = None,
) -> dict:
    """`Estimator._actual_eval`: hooks and checkpoint resolved, then, in a new graph,
    `self._evaluate_build_graph` and `self._evaluate_run` (legacy's order).

    `strategy` is legacy's argument: the RunConfig's `eval_distribute` (or None); the graph
    runs on the Estimator's EVAL context (that strategy, or `tfport run --strategy`).
    """
    if strategy is not None and strategy is not self._eval_distribution:
        raise ValueError(
            "_actual_eval(strategy=...) evaluates on the RunConfig's eval_distribute in "
            "tfport; set RunConfig(eval_distribute=strategy) instead. "
            f"Received: strategy={type(strategy).__name__}"
        )
    tf = import_tf()
    if steps is not None and (not isinstance(steps, int) or steps <= 0):
        raise TfportInputError(
            message("evaluate(steps) must be a positive int or None", "Fix it", steps=steps)
        )
    hooks = list(check_hooks(tf, hooks, "evaluate(hooks)"))
    hooks.extend(self._convert_eval_steps_to_hooks(steps))
    checkpoint_path = resolve_checkpoint(self.model_dir, checkpoint_path, "evaluate")
    with tf.Graph().as_default():
        scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(
            input_fn, hooks, checkpoint_path
        )
        return self._evaluate_run(
            checkpoint_path=checkpoint_path,
            scaffold=scaffold,
            update_op=update_op,
            eval_dict=eval_dict,
            all_hooks=all_hooks,
            output_dir=self.eval_dir(name),
        )


def convert_eval_steps_to_hooks(self: Any, steps: int | None) -> list:
    """`Estimator._convert_eval_steps_to_hooks`: a hook stopping after `steps` batches."""
    del self
    if steps is None:
        return []
    if steps <= 0:
        raise ValueError(f"Must specify steps > 0, given: {steps}")
    return [tf_internals.stop_after_n_evals_hook(steps)]


def evaluate_build_graph(
    self: Any,
    input_fn: InputFn,
    hooks: Iterable[Hook] | None = None,
    checkpoint_path: str | None = None,
) -> tuple[Any, Any, dict, list]:
    """`Estimator._evaluate_build_graph`: the EVAL graph in the default graph; returns
    `(scaffold, update_op, eval_dict, all_hooks)` (input, given, then model_fn hooks)."""
    tf = import_tf()
    ctx = self._context(ModeKeys.EVAL)
    built = builder.build(ctx, input_fn, graph=tf.compat.v1.get_default_graph())
    update_op, eval_dict = _metric_ops(tf, built)
    all_hooks = list(built.input_hooks) + list(hooks or ()) + list(built.spec.evaluation_hooks)
    if checkpoint_path and not built.spec.scaffold.saver:
        _check_or_align_names(tf, ctx, input_fn, built, checkpoint_path)
    return built.spec.scaffold, update_op, eval_dict, all_hooks


def call_model_fn_eval(self: Any, input_fn: InputFn, config: object) -> tuple:
    """`Estimator._call_model_fn_eval`: the EVAL graph in the default graph; returns
    `(scaffold, evaluation_hooks, input_hooks, update_op, eval_dict)` (no global step in
    `eval_dict`, as legacy's)."""
    del config  # the Estimator's own, as legacy passed it
    tf = import_tf()
    built = builder.build(
        self._context(ModeKeys.EVAL), input_fn, graph=tf.compat.v1.get_default_graph()
    )
    update_op, eval_dict = _metric_ops(tf, built)
    del eval_dict[GLOBAL_STEP_KEY]
    spec = built.spec
    return spec.scaffold, spec.evaluation_hooks, built.input_hooks, update_op, eval_dict


def evaluate_run(
    self: Any,
    checkpoint_path: str | None,
    scaffold: object,
    update_op: object,
    eval_dict: dict,
    all_hooks: list,
    output_dir: str,
) -> dict:
    """`Estimator._evaluate_run`: runs the evaluation session of `eval_dict`'s graph from
    `checkpoint_path` and writes the results' summaries to `output_dir`."""
    tf = import_tf()
    ctx = self._context(ModeKeys.EVAL)
    master, session_config, _ = sessions.session_target(ctx.strategy, ctx.config)
    graph = _graph_of(tf, update_op, eval_dict)
    with graph.as_default():
        results = _evaluate_once(
            tf,
            scaffold,
            checkpoint_path,
            update_op,
            eval_dict,
            list(all_hooks),
            session_config,
            master,
        )
    path = checkpoint_path if _RECORD_PATH.get() else None
    _write_summaries(tf, output_dir, results, path)
    return results


def _graph_of(tf: TFModule, update_op: Any, eval_dict: dict) -> Any:
    for value in [update_op, *eval_dict.values()]:
        if getattr(value, "graph", None) is not None:
            return value.graph
    return tf.compat.v1.get_default_graph()


def _check_or_align_names(
    tf: TFModule, ctx: ModeContext, input_fn: InputFn, built: Built, checkpoint_path: str
) -> None:
    """Checks the checkpoint covers the graph; under a strategy, reads single-device names."""
    var_list = None
    if built.distributed:
        var_list = aligned_var_list(ctx, input_fn, checkpoint_path)
        if var_list:
            saver = tf.compat.v1.train.Saver(var_list)
            built.spec = built.spec._replace(scaffold=tf.compat.v1.train.Scaffold(saver=saver))
    graphs.check_checkpoint_covers_graph(checkpoint_path, var_list)


def resolve_checkpoint(model_dir: str, checkpoint_path: str | None, what: str) -> str | None:
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


def _metric_ops(tf: TFModule, built: Built) -> tuple[Any, dict]:
    ops = built.metric_ops  # set by a distributed build, loss included
    if ops is None:
        ops = metric_pairs(tf, built.spec.eval_metric_ops)
        ops[LOSS_KEY] = tf.compat.v1.metrics.mean(built.spec.loss)
    values = {key: value for key, (value, _) in ops.items()}
    values[GLOBAL_STEP_KEY] = built.global_step
    return tf.group(*[update for _, update in ops.values()]), values


def _evaluate_once(
    tf: TFModule,
    scaffold: Any,
    checkpoint_path: str | None,
    update_op: object,
    eval_dict: dict,
    hooks: list,
    session_config: object,
    master: str = "",
) -> dict:
    v1 = tf.compat.v1
    eval_step, added, set_increment = tf_internals.eval_step_and_stop_hooks(hooks)
    increment = v1.assign_add(eval_step, 1)
    update_op = [update_op, increment] if update_op is not None else [increment]
    set_increment(increment)
    final_hook = v1.train.FinalOpsHook(eval_dict)
    all_hooks = hooks + added + [final_hook]
    scaffold = scaffold or v1.train.Scaffold()
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


def eval_dir(model_dir: str, name: str | None) -> str:
    """`model_dir/eval` or `model_dir/eval_<name>`, as the legacy Estimator used.

    Example:
        >>> eval_dir("/m", "test")
        '/m/eval_test'
    """
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)


def _write_summaries(tf: TFModule, folder: str, results: dict, checkpoint_path: str | None) -> None:
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


def write_checkpoint_path(tf: TFModule, writer: Any, checkpoint_path: str, step: int) -> None:
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


def _summary_values(summary_pb2: TFModule, key: str, value: bytes) -> list:
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
