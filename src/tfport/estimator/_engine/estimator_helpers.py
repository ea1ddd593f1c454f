"""Legacy `estimator.py`'s module-level helpers that libraries call, with legacy's behaviour.

`_assert_members_are_not_overridden(cls, obj)`, `_check_hooks_type`,
`_check_listeners_type`, `_dict_to_str`, `_write_dict_to_summary`,
`_write_checkpoint_path_to_summary`, `_load_global_step_from_checkpoint_dir`,
`_check_checkpoint_available`, `_extract_metric_update_ops`, `_verify_and_create_loss_metric`,
`_verify_model_fn_args`, `_has_dataset_or_queue_runner`, `_get_loss_reduce_op_for_reporting`,
`_get_replica_device_setter`, `_combine_distributed_scaffold`.

Example:
    >>> _dict_to_str({"loss": 0.5, "global_step": 3})
    'global_step = 3, loss = 0.5'
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Hook
from tfport.estimator._engine.api.tf_config import path_to_str
from tfport.estimator._engine.building.calls import _verify_model_fn_args
from tfport.estimator._engine.internals import _assert_members_are_not_overridden
from tfport.estimator._engine.running import evaluation

if TYPE_CHECKING:
    from tfport.estimator._engine.api.run_config import RunConfig

__all__ = [
    "_assert_members_are_not_overridden",
    "_check_checkpoint_available",
    "_check_hooks_type",
    "_check_listeners_type",
    "_dict_to_str",
    "_load_global_step_from_checkpoint_dir",
    "_write_checkpoint_path_to_summary",
    "_write_dict_to_summary",
    "_extract_metric_update_ops",
    "_verify_and_create_loss_metric",
    "_verify_model_fn_args",
    "_has_dataset_or_queue_runner",
    "_get_loss_reduce_op_for_reporting",
    "_get_replica_device_setter",
]


def _dict_to_str(dictionary: dict) -> str:
    """`"k = v, ..."` sorted by key, bytes values left out (legacy's log format)."""
    return ", ".join(
        f"{k} = {v}" for k, v in sorted(dictionary.items()) if not isinstance(v, bytes)
    )


def _check_hooks_type(hooks: Iterable[Hook] | None) -> list:
    """`hooks` as a list; TypeError for one that is not a `SessionRunHook`."""
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, import_tf().compat.v1.train.SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook}")
    return hooks


def _check_listeners_type(saving_listeners: Iterable[object] | None) -> list:
    """`saving_listeners` as a list; TypeError for one that is not a listener."""
    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, import_tf().compat.v1.train.CheckpointSaverListener):
            raise TypeError(
                f"saving_listeners must be a list of CheckpointSaverListener, given: {listener}"
            )
    return listeners


def _write_dict_to_summary(output_dir: str, dictionary: dict, current_global_step: int) -> None:
    """Writes `dictionary`'s numbers (and serialized Summaries) as evaluation did."""
    values = {k: v for k, v in dictionary.items() if k != evaluation.GLOBAL_STEP_KEY}
    values[evaluation.GLOBAL_STEP_KEY] = current_global_step
    evaluation._write_summaries(import_tf(), output_dir, values, None)


def _write_checkpoint_path_to_summary(
    output_dir: str, checkpoint_path: str, current_global_step: int
) -> None:
    """Writes the `checkpoint_path` text summary to `output_dir`'s event file."""
    tf = import_tf()
    with tf.Graph().as_default():
        writer = tf.compat.v1.summary.FileWriterCache.get(output_dir)
    evaluation.write_checkpoint_path(tf, writer, checkpoint_path, current_global_step)
    writer.flush()


def _load_global_step_from_checkpoint_dir(checkpoint_dir: str) -> Any:
    """The newest checkpoint's global step in `checkpoint_dir`, or 0 without one."""
    tf = import_tf()
    latest = tf.train.latest_checkpoint(checkpoint_dir)
    if not latest:
        return 0
    try:
        return tf.train.load_variable(latest, tf.compat.v1.GraphKeys.GLOBAL_STEP)
    except (ValueError, KeyError, tf.errors.OpError):
        return 0


def _check_checkpoint_available(model_dir: str) -> None:
    """ValueError unless `model_dir` holds a checkpoint."""
    if not import_tf().train.latest_checkpoint(model_dir):
        raise ValueError(f"Could not find trained model in model_dir: {model_dir}.")


def _extract_metric_update_ops(eval_dict: dict, distribution: Any = None) -> tuple:
    """`(update_op, {name: value})` of `{name: (value, update)}` metrics, in name order (one
    group of the updates; `distribution` groups each one first)."""
    tf = import_tf()
    updates, values = [], {}
    for name, (value, update) in sorted(eval_dict.items()):
        values[name] = value
        updates.append(distribution.group(update) if distribution else update)
    return (tf.group(*updates) if updates else None), values


def _verify_and_create_loss_metric(
    eval_metric_ops: dict, loss: object, distribution: Any = None
) -> dict:
    """Adds the mean of `loss` as metric `loss` (ValueError if the model_fn defined one)."""
    tf = import_tf()
    if "loss" in eval_metric_ops:
        raise ValueError(
            'Metric with name "loss" is not allowed, because Estimator already defines a '
            "default metric with the same name."
        )
    if distribution is None:
        eval_metric_ops["loss"] = tf.compat.v1.metrics.mean(loss)
    else:
        eval_metric_ops["loss"] = distribution.extended.call_for_each_replica(
            tf.compat.v1.metrics.mean, args=(loss,)
        )
    return eval_metric_ops


def _has_dataset_or_queue_runner(maybe_tensor: object) -> bool:
    """Whether input_fn's result reads a Dataset iterator or the graph has queue runners."""
    tf = import_tf()
    tensors = [x for x in tf.nest.flatten(maybe_tensor) if isinstance(x, tf.Tensor)]
    if any(t.op.type == "IteratorGetNext" for t in tensors):
        return True
    v1 = tf.compat.v1
    return bool(v1.get_default_graph().get_collection(v1.GraphKeys.QUEUE_RUNNERS))


def _get_loss_reduce_op_for_reporting() -> Any:
    """How the reported loss sums over replicas: `ReduceOp.SUM` (legacy's, for graphs whose
    optimizer does not scale the loss)."""
    return import_tf().distribute.ReduceOp.SUM


def _get_replica_device_setter(config: RunConfig) -> Any:
    """A `replica_device_setter` over the config's parameter servers, or None without."""
    tf = import_tf()
    if not config.num_ps_replicas:
        return None
    worker = f"/job:{config.task_type}/task:{config.task_id}" if config.task_type else "/job:worker"
    return tf.compat.v1.train.replica_device_setter(
        ps_tasks=config.num_ps_replicas,
        worker_device=worker,
        merge_devices=True,
        cluster=config.cluster_spec,
    )


@functools.cache
def estimator_api_gauge() -> Any:
    """Legacy `estimator._estimator_api_gauge` (one per process; cell per method)."""
    from tfport._common import tf_internals

    return tf_internals.bool_gauge("/tensorflow/api/estimator", "estimator api usage", "method")


@functools.cache
def canned_estimator_api_gauge() -> Any:
    """Legacy `estimator._canned_estimator_api_gauge` (one per process; cell per class)."""
    from tfport._common import tf_internals

    return tf_internals.string_gauge(
        "/tensorflow/api/estimator/canned_estimator",
        "Gauge to track the type of canned estimator used",
        "ClassType",
    )


def _combine_distributed_scaffold(grouped_scaffold: Any, distribution: Any) -> Any:
    """One Scaffold from the per-replica Scaffolds a model_fn returned under `distribution`.

    Ops of the replicas are grouped (init, local init, summary), their ready ops
    concatenated (`ready_for_local_init_op` defaulting per replica to the uninitialized
    globals); the first replica's saver and `init_fn` are kept, the init feed dicts of all
    replicas grouped (legacy's handling of these two was left unfinished).

    Example:
        >>> grouped = strategy.extended.call_for_each_replica(tf.compat.v1.train.Scaffold)
        ... # doctest: +SKIP
        >>> scaffold = _combine_distributed_scaffold(grouped, strategy)  # doctest: +SKIP
    """

    tf = import_tf()
    scaffolds = distribution.experimental_local_results(grouped_scaffold)

    def grouped(field: str) -> Any:
        values = [getattr(s, field) for s in scaffolds if getattr(s, field) is not None]
        return distribution.group(values) if values else None

    def first(field: str) -> Any:
        return next((getattr(s, field) for s in scaffolds if getattr(s, field) is not None), None)

    def concatenated(value: object) -> Any:
        parts = tf.nest.flatten(distribution.experimental_local_results(value))
        return parts[0] if len(parts) == 1 else tf.concat(parts, 0)

    call = distribution.extended.call_for_each_replica
    ready_op = call(lambda scaffold: scaffold.ready_op, args=(grouped_scaffold,))
    ready_for_local = call(create_per_replica_ready_for_local_init_op, args=(grouped_scaffold,))
    return tf.compat.v1.train.Scaffold(
        init_op=grouped("init_op"),
        ready_op=None if ready_op is None else concatenated(ready_op),
        ready_for_local_init_op=None if ready_for_local is None else concatenated(ready_for_local),
        local_init_op=grouped("local_init_op"),
        summary_op=grouped("summary_op"),
        saver=first("saver"),
        init_feed_dict=grouped("init_feed_dict"),
        init_fn=first("_user_init_fn"),
    )


def create_per_replica_ready_for_local_init_op(scaffold: Any) -> Any:
    """The scaffold's `ready_for_local_init_op`, or the default one (uninitialized globals).

    Example:
        >>> create_per_replica_ready_for_local_init_op(scaffold)  # doctest: +SKIP
    """
    tf = import_tf()
    if scaffold.ready_for_local_init_op is not None:
        return scaffold.ready_for_local_init_op
    return tf.compat.v1.report_uninitialized_variables(tf.compat.v1.global_variables())


def maybe_overwrite_model_dir_and_session_config(config: Any, model_dir: Any) -> Any:
    """The RunConfig with `model_dir` set (legacy `estimator.maybe_overwrite_...`).

    Example:
        >>> maybe_overwrite_model_dir_and_session_config(RunConfig(), "/m").model_dir
        ... # doctest: +SKIP
        '/m'
    """
    from tfport.estimator._engine.api.run_config import RunConfig

    if config is None:
        config = RunConfig()
    if not isinstance(config, RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
    model_dir = path_to_str(model_dir)
    if model_dir and config.model_dir and model_dir != config.model_dir:
        raise ValueError(
            f"`model_dir` are set both in constructor and `RunConfig`, but with different "
            f"values. In constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' "
        )
    if model_dir:
        config = config.replace(model_dir=model_dir)
    elif config.model_dir is None:
        import tempfile

        config = config.replace(model_dir=tempfile.mkdtemp())
    return config
