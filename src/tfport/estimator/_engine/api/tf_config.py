"""Legacy `run_config`'s module helpers over TF_CONFIG, with legacy's signatures and errors.

RunConfig subclasses and libraries that read TF_CONFIG themselves call them:
`_validate_service`, `_validate_task_type_and_task_id`, `_get_session_master`,
`_get_eval_session_master`, `_get_model_dir`, `_validate_properties`,
`_validate_save_ckpt_with_replaced_keys` (`tfport._legacy_tree` places them under
`run_config`).

Example:
    >>> _get_eval_session_master("evaluator", {"eval_session_master": "grpc://e:1"})
    'grpc://e:1'
"""

from __future__ import annotations

import logging
import os
from collections.abc import Collection, Iterable
from typing import Any

from tfport._common.tfenv import import_tf

_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."


def _validate_service(service: object) -> Any:
    """TF_CONFIG's `service`: a dict or None (TypeError otherwise)."""
    if service is not None and not isinstance(service, dict):
        raise TypeError(
            f'If "service" is set in TF_CONFIG, it must be a dict. Given {type(service)}'
        )
    return service


def _validate_task_type_and_task_id(
    cluster_spec: Any, task_env: dict, chief_task_type: str
) -> tuple:
    """`(task_type, task_id)` of TF_CONFIG's `task`, checked against the cluster."""
    if chief_task_type not in cluster_spec.jobs:
        raise ValueError(
            f'If "cluster" is set in TF_CONFIG, it must have one "{chief_task_type}" node.'
        )
    if len(cluster_spec.job_tasks(chief_task_type)) > 1:
        raise ValueError(f'The "cluster" in TF_CONFIG must have only one "{chief_task_type}" node.')
    task_type, task_id = task_env.get("type"), task_env.get("index")
    if not task_type:
        raise ValueError('If "cluster" is set in TF_CONFIG, task type must be set.')
    if task_id is None:
        raise ValueError('If "cluster" is set in TF_CONFIG, task index must be set.')
    task_id = int(task_id)
    if task_id < 0:
        raise ValueError("Task index must be non-negative number.")
    if task_type == "evaluator":  # not part of the training cluster
        return task_type, task_id
    if task_type not in cluster_spec.jobs:
        raise ValueError(
            f"{task_type} is not a valid task_type in the cluster_spec:\n{cluster_spec}"
        )
    if not 0 <= task_id < len(cluster_spec.job_tasks(task_type)):
        raise ValueError(
            f"{task_id} is not a valid task_id for task_type {task_type} in the cluster_spec:\n"
            f"{cluster_spec}"
        )
    return task_type, task_id


def _get_session_master(cluster_spec: Any, task_type: str, task_id: int, tf_config: dict) -> str:
    """The session master: TF_CONFIG's `session_master`, '' for a one-task cluster, else the
    task's grpc address."""
    if "session_master" in tf_config:
        return tf_config["session_master"]
    if not cluster_spec:
        raise RuntimeError(
            "Internal error: `_get_session_master` does not expect empty cluster_spec."
        )
    jobs = cluster_spec.jobs
    if len(jobs) == 1 and len(cluster_spec.job_tasks(jobs[0])) == 1:
        return ""
    return "grpc://" + cluster_spec.job_tasks(task_type)[task_id]


def _get_eval_session_master(task_type: str, tf_config: dict) -> str:
    """An evaluator's master (TF_CONFIG's `eval_session_master`), '' for other tasks."""
    return tf_config.get("eval_session_master", "") if task_type == "evaluator" else ""


def _get_model_dir(tf_config: dict, model_dir: str | None) -> Any:
    """`model_dir`, or TF_CONFIG's `model_dir` (they must agree when both are set)."""
    if model_dir == "":
        raise ValueError("model_dir should be non-empty.")
    from_config = tf_config.get("model_dir")
    if from_config == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if from_config:
        if model_dir and from_config != model_dir:
            raise ValueError(
                "`model_dir` provided in RunConfig construct, if set, must have the same value "
                f"as the model_dir in TF_CONFIG. model_dir: {model_dir}\n"
                f'TF_CONFIG["model_dir"]: {from_config}.\n'
            )
        logging.getLogger("tensorflow").info("Using model_dir in TF_CONFIG: %s", from_config)
    return model_dir or from_config


def _validate_properties(run_config: object) -> None:
    """Legacy's checks of a RunConfig's properties (ValueError naming the property)."""
    from tfport.estimator._engine.building.calls import fn_args

    config_proto = import_tf().compat.v1.ConfigProto
    checks = (
        ("model_dir", lambda v: v, "model_dir should be non-empty"),
        ("save_summary_steps", lambda v: v >= 0, "save_summary_steps should be >= 0"),
        ("save_checkpoints_steps", lambda v: v >= 0, "save_checkpoints_steps should be >= 0"),
        ("save_checkpoints_secs", lambda v: v >= 0, "save_checkpoints_secs should be >= 0"),
        (
            "session_config",
            lambda v: isinstance(v, config_proto),
            "session_config must be instance of ConfigProto",
        ),
        ("keep_checkpoint_max", lambda v: v >= 0, "keep_checkpoint_max should be >= 0"),
        (
            "keep_checkpoint_every_n_hours",
            lambda v: v > 0,
            "keep_checkpoint_every_n_hours should be > 0",
        ),
        ("log_step_count_steps", lambda v: v > 0, "log_step_count_steps should be > 0"),
        ("tf_random_seed", lambda v: isinstance(v, int), "tf_random_seed must be integer."),
        (
            "experimental_max_worker_delay_secs",
            lambda v: isinstance(v, int),
            "experimental_max_worker_delay_secs must be an integer if set.",
        ),
        (
            "session_creation_timeout_secs",
            lambda v: v > 0,
            "session_creation_timeout_secs should be > 0",
        ),
        (
            "device_fn",
            lambda v: callable(v) and set(fn_args(v)) == {"op"},
            'device_fn must be callable with exactly one argument "op".',
        ),
        (
            "protocol",
            lambda v: v in (None, "grpc", "grpc+verbs"),
            "protocol should be grpc or grpc+verbs",
        ),
    )
    for name, ok, text in checks:
        value = getattr(run_config, name, None)
        if value is not None and not ok(value):
            raise ValueError(text)


def _validate_save_ckpt_with_replaced_keys(new_copy: Any, replaced_keys: Collection[str]) -> None:
    """After `replace`: both save intervals set is an error; setting one clears the other."""
    steps, secs = new_copy.save_checkpoints_steps, new_copy.save_checkpoints_secs
    if "save_checkpoints_steps" in replaced_keys and "save_checkpoints_secs" in replaced_keys:
        if steps is not None and secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
    elif "save_checkpoints_steps" in replaced_keys and steps is not None:
        new_copy._save_checkpoints_secs = None
    elif "save_checkpoints_secs" in replaced_keys and secs is not None:
        new_copy._save_checkpoints_steps = None


# -- legacy RunConfig's private members (RunConfig binds them) ------------------------------
def _replace(
    config: object, allowed_properties_list: Iterable[str] | None = None, **kwargs: object
) -> Any:
    """Legacy `RunConfig._replace`: sets the `allowed_properties_list` properties on
    `config` itself (ValueError for any other), then checks the save intervals and
    properties; returns `config`."""
    allowed = list(allowed_properties_list or [])
    for key, value in kwargs.items():
        if key not in allowed:
            raise ValueError(f"Replacing {key} is not supported. Allowed properties are {allowed}.")
        setattr(config, "_" + key, value)
    _validate_save_ckpt_with_replaced_keys(config, kwargs.keys())
    _validate_properties(config)
    return config


_DEVICE_FILTERS = {
    "master": ["/job:ps", "/job:master"],
    "chief": ["/job:ps", "/job:chief"],
    "ps": ["/job:ps", "/job:worker", "/job:chief", "/job:master"],
}


def _get_default_session_config_distributed(self: Any) -> Any:
    """The session config of a cluster task (device filters of its job, soft placement, one
    meta-optimizer pass), or None for a task of another kind."""
    from tensorflow.core.protobuf import rewriter_config_pb2

    v1 = import_tf().compat.v1
    if self.task_type == "worker":
        filters = ["/job:ps", f"/job:worker/task:{self.task_id}"]
    elif self.task_type in _DEVICE_FILTERS:
        filters = _DEVICE_FILTERS[self.task_type]
    else:
        return None
    rewrite = rewriter_config_pb2.RewriterConfig(
        meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE
    )
    return v1.ConfigProto(
        allow_soft_placement=True,
        graph_options=v1.GraphOptions(rewrite_options=rewrite),
        device_filters=filters,
    )


def _maybe_overwrite_session_config_for_distributed_training(self: Any) -> None:
    """In a cluster without a session config: the task's default distributed one."""
    if self._session_config is None and self.cluster_spec.jobs:
        _replace(
            self,
            allowed_properties_list=["session_config"],
            session_config=_get_default_session_config_distributed(self),
        )


def _verify_strategy_compatibility(
    self: Any, train_distribute: object, eval_distribute: object
) -> None:
    """ValueError for TF2's `tf.distribute.experimental.ParameterServerStrategy` (legacy
    took only the v1 parameter server strategy)."""

    v2_ps = import_tf().distribute.experimental.ParameterServerStrategy
    if any(s is not None and type(s) is v2_ps for s in (train_distribute, eval_distribute)):
        raise ValueError(
            "Please use `tf.compat.v1.distribute.experimental.ParameterServerStrategy` for "
            "parameter server strategy with estimator."
        )


def get_default_session_config() -> Any:
    """The session ConfigProto an Estimator uses by default (soft placement, graph options).

    Example:
        >>> get_default_session_config().allow_soft_placement  # doctest: +SKIP
        True
    """
    tf = import_tf()
    rewrite = tf.compat.v1.RewriterConfig(meta_optimizer_iterations=1)
    graph_options = tf.compat.v1.GraphOptions(rewrite_options=rewrite)
    return tf.compat.v1.ConfigProto(allow_soft_placement=True, graph_options=graph_options)


def path_to_str(path: Any) -> Any:
    """`os.fspath(path)` for path-like objects, other values unchanged.

    Example:
        >>> import pathlib
        >>> path_to_str(pathlib.Path("/tmp/m"))
        '/tmp/m'
    """
    return os.fspath(path) if isinstance(path, os.PathLike) else path
