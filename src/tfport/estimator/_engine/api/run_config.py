"""`RunConfig`: where and how an Estimator runs, including the `TF_CONFIG` cluster."""

from __future__ import annotations

import copy
import json
import os
from collections.abc import Callable
from typing import Any

from tfport import distribute
from tfport._common.errors import TfportInputError, message
from tfport.estimator._engine.api import tf_config


class TaskType:
    """Task names of a `TF_CONFIG` cluster."""

    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


_DEFAULT_CHECKPOINT_SECS = 600
JIT_ENV = "TFPORT_JIT"
_UNSET = object()
# What legacy's RunConfig.replace accepts, in legacy's order (its _DEFAULT_REPLACEABLE_LIST).
LEGACY_REPLACEABLE = (
    "model_dir",
    "tf_random_seed",
    "save_summary_steps",
    "save_checkpoints_steps",
    "save_checkpoints_secs",
    "session_config",
    "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours",
    "log_step_count_steps",
    "train_distribute",
    "device_fn",
    "protocol",
    "eval_distribute",
    "experimental_distribute",
    "experimental_max_worker_delay_secs",
    "session_creation_timeout_secs",
    "checkpoint_save_graph_def",
)
_REPLACEABLE = frozenset({*LEGACY_REPLACEABLE, "iterations_per_loop", "experimental_jit"})


def parse_tf_config(raw: str | None = None) -> dict:
    """Parses `TF_CONFIG` (JSON with `cluster`, `task`, `service`) and validates its shape.

    Example:
        >>> parse_tf_config('{"cluster": {"worker": ["127.0.0.1:1"]}, '
        ...                 '"task": {"type": "worker", "index": 0}}')["task"]["type"]
        'worker'
    """
    raw = os.environ.get("TF_CONFIG", "") if raw is None else raw
    if not raw.strip():
        return {}
    try:
        config = json.loads(raw)
    except json.JSONDecodeError as err:
        raise TfportInputError(
            message(
                f"TF_CONFIG is not valid JSON ({err.msg} at char {err.pos})",
                'Set TF_CONFIG to {"cluster": {...}, "task": {"type": ..., "index": ...}}',
                TF_CONFIG=raw[:200],
            )
        ) from None
    if not isinstance(config, dict):
        raise TfportInputError(
            message("TF_CONFIG must be a JSON object", "See the TF_CONFIG format", TF_CONFIG=raw)
        )
    cluster = config.get("cluster", {})
    if not isinstance(cluster, dict) or not all(
        isinstance(v, (list, dict)) and all(isinstance(a, str) for a in v) for v in cluster.values()
    ):
        raise TfportInputError(
            message(
                "TF_CONFIG.cluster must map task types to lists of 'host:port' strings",
                'Use e.g. {"worker": ["127.0.0.1:2222", "127.0.0.1:2223"]}',
                cluster=cluster,
            )
        )
    service = config.get("service")
    if service is not None and not isinstance(service, dict):
        raise TfportInputError(
            message(
                'If "service" is set in TF_CONFIG, it must be a dict',
                'Use e.g. "service": {"name": "...", ...} or leave it out',
                service_type=type(service).__name__,
            )
        )
    task = config.get("task", {})
    if not isinstance(task, dict):
        raise TfportInputError(
            message(
                "TF_CONFIG.task must be an object", 'Use {"type": "worker", "index": 0}', task=task
            )
        )
    if cluster and task:
        kind, index = task.get("type"), task.get("index", 0)
        if kind != TaskType.EVALUATOR and kind not in cluster:
            raise TfportInputError(
                message(
                    f"TF_CONFIG.task.type {kind!r} is not a job of TF_CONFIG.cluster",
                    f"Use one of {sorted(cluster)}",
                    task=task,
                )
            )
        size = len(cluster.get(kind, [None]))
        if not isinstance(index, int) or not 0 <= index < max(size, 1):
            raise TfportInputError(
                message(
                    f"TF_CONFIG.task.index is out of range for job {kind!r} ({size} tasks)",
                    "Use an index from 0 to the job's size - 1",
                    task=task,
                )
            )
    return config


class RunConfig:
    """How an Estimator runs: model_dir, checkpoints, summaries, sessions, distribution.

    Example:
        >>> config = RunConfig(model_dir="/tmp/m", save_checkpoints_steps=20)
        >>> config.replace(tf_random_seed=7).tf_random_seed
        7
    """

    # legacy's estimator_export names (tpu.RunConfig: () and a v1 list)
    _estimator_api_names: tuple[str, ...] | list[str] = ("estimator.RunConfig",)
    _estimator_api_names_v1: tuple[str, ...] | list[str] = ("estimator.RunConfig",)

    def __init__(
        self,
        model_dir: str | None = None,
        tf_random_seed: int | None = None,
        save_summary_steps: int = 100,
        save_checkpoints_steps: object = _UNSET,
        save_checkpoints_secs: object = _UNSET,
        session_config: object = None,
        keep_checkpoint_max: int = 5,
        keep_checkpoint_every_n_hours: float = 10000,
        log_step_count_steps: int = 100,
        train_distribute: object = None,
        device_fn: Callable[..., object] | None = None,
        protocol: str | None = None,
        eval_distribute: object = None,
        experimental_distribute: Any = None,
        experimental_max_worker_delay_secs: int | None = None,
        session_creation_timeout_secs: int = 7200,
        checkpoint_save_graph_def: bool = True,
        iterations_per_loop: int = 1,
        experimental_jit: bool | None = None,
    ) -> None:
        steps = None if save_checkpoints_steps is _UNSET else save_checkpoints_steps
        secs = None if save_checkpoints_secs is _UNSET else save_checkpoints_secs
        if steps is not None and secs is not None:
            raise TfportInputError(
                message(
                    "RunConfig: save_checkpoints_steps and save_checkpoints_secs are exclusive",
                    "Set only one of them",
                    save_checkpoints_steps=steps,
                    save_checkpoints_secs=secs,
                )
            )
        if steps is None and secs is None and save_checkpoints_secs is _UNSET:
            secs = _DEFAULT_CHECKPOINT_SECS
        for name, value in (
            ("iterations_per_loop", iterations_per_loop),
            ("keep_checkpoint_max", keep_checkpoint_max),
        ):
            if value is not None and (not isinstance(value, int) or value < 0):
                raise TfportInputError(
                    message(
                        f"RunConfig.{name} must be a non-negative int",
                        "Fix the value",
                        **{name: value},
                    )
                )
        self._model_dir = _normalize_dir(model_dir)
        self._tf_random_seed = tf_random_seed
        self._save_summary_steps = save_summary_steps
        self._save_checkpoints_steps = steps
        self._save_checkpoints_secs = secs
        self._session_config = session_config
        self._keep_checkpoint_max = keep_checkpoint_max
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._log_step_count_steps = log_step_count_steps
        # `tfport run --strategy` / tfport.distribute.set_default: read once, here.
        default = distribute.default()
        self._train_distribute = train_distribute if train_distribute is not None else default
        own = train_distribute is not None or eval_distribute is not None
        self._eval_distribute = eval_distribute if own else default
        self._experimental_distribute = experimental_distribute
        self._device_fn = device_fn
        self._protocol = protocol
        self._experimental_max_worker_delay_secs = experimental_max_worker_delay_secs
        self._session_creation_timeout_secs = session_creation_timeout_secs
        self._checkpoint_save_graph_def = checkpoint_save_graph_def
        self._iterations_per_loop = max(1, iterations_per_loop or 1)
        if experimental_jit is None:  # `tfport run --jit` sets the process default
            experimental_jit = os.environ.get(JIT_ENV) == "1"
        self._experimental_jit = bool(experimental_jit)
        self._init_cluster(parse_tf_config())

    def _init_cluster(self, tf_config: dict) -> None:
        self._tf_config = tf_config
        self._service = tf_config.get("service")
        self._cluster_spec = dict(tf_config.get("cluster", {}))
        task = tf_config.get("task", {})
        if self._cluster_spec:
            self._task_type = task.get("type", TaskType.WORKER)
            self._task_id = int(task.get("index", 0))
        else:
            self._task_type, self._task_id = TaskType.WORKER, 0
        self._num_ps_replicas = len(self._cluster_spec.get(TaskType.PS, []))
        self._num_worker_replicas = (
            len(self._cluster_spec.get(TaskType.WORKER, []))
            + len(self._cluster_spec.get(TaskType.CHIEF, []))
            + len(self._cluster_spec.get(TaskType.MASTER, []))
            or 1
        )
        if not self._cluster_spec:
            self._is_chief = True
        elif TaskType.CHIEF in self._cluster_spec or TaskType.MASTER in self._cluster_spec:
            self._is_chief = self._task_type in (TaskType.CHIEF, TaskType.MASTER)
        else:
            self._is_chief = self._task_type == TaskType.WORKER and self._task_id == 0
        self._master = ""
        if self._cluster_spec and self._task_type != TaskType.EVALUATOR:
            address = self._cluster_spec[self._task_type][self._task_id]
            self._master = f"{self._protocol or 'grpc'}://{address}"
        self._evaluation_master = ""

    # legacy's private members (`tf_config.py`): RunConfig subclasses and libraries call them
    _replace = staticmethod(tf_config._replace)
    _init_distributed_setting_from_environment_var = _init_cluster
    _init_distributed_setting_from_environment_var_with_master = _init_cluster
    _get_default_session_config_distributed = tf_config._get_default_session_config_distributed
    _maybe_overwrite_session_config_for_distributed_training = (
        tf_config._maybe_overwrite_session_config_for_distributed_training
    )
    _verify_strategy_compatibility = tf_config._verify_strategy_compatibility

    model_dir = property(lambda self: self._model_dir)
    tf_random_seed = property(lambda self: self._tf_random_seed)
    save_summary_steps = property(lambda self: self._save_summary_steps)
    save_checkpoints_steps = property(lambda self: self._save_checkpoints_steps)
    save_checkpoints_secs = property(lambda self: self._save_checkpoints_secs)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_every_n_hours = property(lambda self: self._keep_checkpoint_every_n_hours)
    log_step_count_steps = property(lambda self: self._log_step_count_steps)

    train_distribute = property(lambda self: self._train_distribute)
    eval_distribute = property(lambda self: self._eval_distribute)

    experimental_distribute = property(lambda self: self._experimental_distribute)
    device_fn = property(lambda self: self._device_fn)
    protocol = property(lambda self: self._protocol)
    experimental_max_worker_delay_secs = property(
        lambda self: self._experimental_max_worker_delay_secs
    )
    session_creation_timeout_secs = property(lambda self: self._session_creation_timeout_secs)
    checkpoint_save_graph_def = property(lambda self: self._checkpoint_save_graph_def)
    iterations_per_loop = property(lambda self: self._iterations_per_loop)
    experimental_jit = property(
        lambda self: self._experimental_jit,
        doc="Whether training sessions compile their graphs with XLA (changes float results).",
    )

    @property
    def cluster_spec(self) -> Any:
        """TF_CONFIG's cluster as a `tf.train.ClusterSpec` (empty without one), as legacy's.

        Example:
            >>> RunConfig().cluster_spec.as_dict()  # doctest: +SKIP
            {}
        """
        from tfport._common.tfenv import import_tf

        return import_tf().train.ClusterSpec(self._cluster_spec)

    task_type = property(lambda self: self._task_type)
    task_id = property(lambda self: self._task_id)
    is_chief = property(lambda self: self._is_chief)
    master = property(lambda self: self._master)
    evaluation_master = property(lambda self: self._evaluation_master)
    num_ps_replicas = property(lambda self: self._num_ps_replicas)
    num_worker_replicas = property(lambda self: self._num_worker_replicas)
    service = property(
        lambda self: self._service,
        doc="The platform-defined `service` dict of `TF_CONFIG` (None when absent).",
    )

    @property
    def global_id_in_cluster(self) -> int:
        """The task's index over all chief/worker tasks (chief first), as legacy did."""
        order = [TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER]
        offset = 0
        for kind in order:
            if kind == self._task_type:
                return offset + self._task_id
            offset += len(self._cluster_spec.get(kind, []))
        return self._task_id

    @property
    def session_config(self) -> Any:
        """The ConfigProto for sessions: the user's, or the legacy default (soft placement,
        one meta-optimizer pass), on top of TF's context config (logical devices)."""
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        from tensorflow.core.protobuf import rewriter_config_pb2

        from tfport._common import tf_internals

        merged = tf_internals.eager_context_config()
        if self._experimental_jit:  # XLA auto-clustering of the session's graphs
            level = tf.compat.v1.OptimizerOptions.ON_1
            merged.graph_options.optimizer_options.global_jit_level = level
        if self._session_config is not None:
            merged.MergeFrom(self._session_config)
            return merged
        rewrite = rewriter_config_pb2.RewriterConfig(
            meta_optimizer_iterations=rewriter_config_pb2.RewriterConfig.ONE
        )
        merged.MergeFrom(
            tf.compat.v1.ConfigProto(
                allow_soft_placement=True,
                graph_options=tf.compat.v1.GraphOptions(rewrite_options=rewrite),
            )
        )
        return merged

    def replace(self, **kwargs: object) -> RunConfig:
        """Returns a copy with the given properties replaced.

        Example:
            >>> RunConfig().replace(save_summary_steps=10).save_summary_steps
            10
        """
        unknown = sorted(set(kwargs) - _REPLACEABLE)
        if unknown:
            raise TfportInputError(
                message(
                    "RunConfig.replace got properties it cannot replace",
                    f"Use only {sorted(_REPLACEABLE)}",
                    unknown=unknown,
                )
            )
        new = copy.copy(self)
        if "save_checkpoints_steps" in kwargs and kwargs["save_checkpoints_steps"] is not None:
            kwargs.setdefault("save_checkpoints_secs", None)
        if "save_checkpoints_secs" in kwargs and kwargs["save_checkpoints_secs"] is not None:
            kwargs.setdefault("save_checkpoints_steps", None)
        for key, value in kwargs.items():
            if key == "model_dir":
                value = _normalize_dir(value)
            setattr(new, "_" + key, value)
        if new._save_checkpoints_steps is not None and new._save_checkpoints_secs is not None:
            raise TfportInputError(
                message(
                    "RunConfig: save_checkpoints_steps and save_checkpoints_secs are exclusive",
                    "Set only one of them",
                    save_checkpoints_steps=new._save_checkpoints_steps,
                    save_checkpoints_secs=new._save_checkpoints_secs,
                )
            )
        return new

    def __repr__(self) -> str:
        keys = (
            "model_dir",
            "tf_random_seed",
            "save_checkpoints_steps",
            "save_checkpoints_secs",
            "train_distribute",
            "iterations_per_loop",
        )
        return "RunConfig(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in keys) + ")"


def _normalize_dir(path: Any) -> str | None:
    if path is None:
        return None
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode()
    return path
