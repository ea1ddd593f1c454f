"""TF 2.15's `tensorflow.python.distribute.estimator_training`, the Estimator's coordinator glue.

Libraries that build their own `train_and_evaluate` call
`should_run_distribute_coordinator(config)` and, when it says so,
`train_and_evaluate(estimator, train_spec, eval_spec, executor_cls)`; RunConfig subclasses
call `init_run_config(config, tf_config)`. tfport's engine runs every TF_CONFIG task itself
(multi-worker and parameter-server strategies included), so a tfport RunConfig never asks
for the distribute coordinator: `init_run_config` sets the distribution and cluster as
legacy did with the coordinator mode off, and `should_run_distribute_coordinator` is False
for it (legacy's answer without a coordinator mode). The coordinator's STANDALONE_CLIENT
mode (`experimental_distribute.remote_cluster`: one client driving a remote cluster) has no
counterpart: it is refused with one line.

Example:
    >>> should_run_distribute_coordinator(RunConfig())  # doctest: +SKIP
    False
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._engine.running import console

if TYPE_CHECKING:
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._engine.estimator import Estimator
    from tfport.estimator._engine.running.train_and_evaluate import EvalSpec, TrainSpec

CHIEF = "chief"
EVALUATOR = "evaluator"
PS = "ps"
WORKER = "worker"
STANDALONE_CLIENT = "standalone_client"
INDEPENDENT_WORKER = "independent_worker"

ClusterLike = object  # a tf.train.ClusterSpec or its dict (handed to tf.train.ClusterSpec)
_NO_CLIENT = (
    "the distribute coordinator's STANDALONE_CLIENT mode (experimental_distribute."
    "remote_cluster) is not supported by tfport on TensorFlow 2.21: tfport runs each task of "
    "the cluster itself"
)
_ONE_PROCESS = "Start one process per task with TF_CONFIG set (chief, workers, ps, evaluator)"


def _jobs(cluster_spec: ClusterLike) -> dict:
    return import_tf().train.ClusterSpec(cluster_spec).as_dict()


def _count_ps(cluster_spec: ClusterLike) -> int:
    """The number of parameter servers in `cluster_spec`."""
    if not cluster_spec:
        raise RuntimeError("Internal error: `_count_ps` does not expect empty cluster_spec.")
    return len(_jobs(cluster_spec).get(PS, []))


def _count_worker(cluster_spec: ClusterLike, chief_task_type: str) -> int:
    """The number of workers in `cluster_spec`, the chief included."""
    if not cluster_spec:
        raise RuntimeError("Internal error: `_count_worker` does not expect empty cluster_spec.")
    jobs = _jobs(cluster_spec)
    return len(jobs.get(WORKER, [])) + len(jobs.get(chief_task_type, []))


def _get_global_id(
    cluster_spec: ClusterLike, task_type: str | None, task_id: int, chief_task_type: str
) -> int:
    """The task's index over the cluster: chief first, other jobs sorted, ps last.

    Example:
        >>> _get_global_id({"chief": ["a:1"], "worker": ["b:1", "c:1"]}, "worker", 1, "chief")
        2
    """
    if not task_type:
        return 0
    jobs = _jobs(cluster_spec)
    order = [chief_task_type] if chief_task_type in jobs else []
    order += [t for t in sorted(jobs) if t not in (chief_task_type, PS)]
    order += [PS] if PS in jobs else []
    offset = 0
    for job in order:
        if job == task_type:
            return offset + task_id
        offset += len(jobs[job])
    raise RuntimeError(
        f"Internal Error: `task_type` ({task_type}) is not in cluster_spec ({cluster_spec})."
    )


def _init_run_config_from_worker_context(config: RunConfig, worker_context: Any) -> None:
    """Sets `config`'s cluster, task, masters and counts from a coordinator worker context."""
    cluster = worker_context.cluster_spec
    config._service = None
    config._cluster_spec = _jobs(cluster) if cluster else {}
    config._task_type = worker_context.task_type
    config._task_id = worker_context.task_id
    config._evaluation_master = worker_context.master_target
    config._master = worker_context.master_target
    config._is_chief = worker_context.is_chief
    if not cluster:
        config._num_ps_replicas, config._num_worker_replicas = 0, 1
    elif config._task_type != EVALUATOR:
        config._num_ps_replicas = _count_ps(cluster)
        config._num_worker_replicas = _count_worker(cluster, chief_task_type=CHIEF)
    else:  # the evaluator is not told about the other tasks
        config._cluster_spec = {}
        config._num_ps_replicas, config._num_worker_replicas = 0, 0


def init_run_config(config: Any, tf_config: dict) -> None:
    """Applies `experimental_distribute` and `tf_config` to a RunConfig, as legacy did.

    The distribution strategies of `experimental_distribute` become the config's; the
    cluster and task come from `tf_config`; the coordinator mode stays off (tfport's
    engine runs each task itself).
    """
    extra = config._experimental_distribute
    if extra is not None and getattr(extra, "train_distribute", None):
        if config._train_distribute:
            raise ValueError(
                "Either `train_distribute` or`experimental_distribute.train_distribute` can be set."
            )
        config._train_distribute = extra.train_distribute
    if extra is not None and getattr(extra, "eval_distribute", None):
        if config._eval_distribute:
            raise ValueError(
                "Either `eval_distribute` or`experimental_distribute.eval_distribute` can be set."
            )
        config._eval_distribute = extra.eval_distribute
    if config._train_distribute and getattr(extra, "remote_cluster", None):
        raise TfportInputError(
            message(_NO_CLIENT, _ONE_PROCESS, remote_cluster=extra.remote_cluster)
        )
    config._distribute_coordinator_mode = None
    config._init_cluster(tf_config)
    console.info("Not using Distribute Coordinator.")


def should_run_distribute_coordinator(config: RunConfig) -> bool:
    """Whether `config` asks for the distribute coordinator (legacy's checks and logs)."""
    mode = getattr(config, "_distribute_coordinator_mode", None)
    if mode is None:
        console.info("Not using Distribute Coordinator.")
        return False
    if mode not in (STANDALONE_CLIENT, INDEPENDENT_WORKER):
        import_tf().compat.v1.logging.warning("Unexpected distribute_coordinator_mode: %r", mode)
        return False
    if not config.cluster_spec:
        import_tf().compat.v1.logging.warning(
            "Running `train_and_evaluate` locally, ignoring "
            "`experimental_distribute_coordinator_mode`."
        )
        return False
    return True


def train_and_evaluate(
    estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec, executor_cls: Any
) -> None:
    """`train_and_evaluate` for a config that set a coordinator mode itself.

    INDEPENDENT_WORKER (each task a process with TF_CONFIG): `executor_cls(estimator,
    train_spec, eval_spec).run()` on this task (tfport's engine joins the cluster).
    """
    mode = estimator.config._distribute_coordinator_mode  # legacy: AttributeError if unset
    if not mode:
        raise ValueError("Distribute coordinator mode is not specified in `RunConfig`.")
    if mode == STANDALONE_CLIENT:
        raise TfportInputError(message(_NO_CLIENT, _ONE_PROCESS, mode=mode))
    executor_cls(estimator, train_spec, eval_spec).run()


def estimator_train(estimator: Estimator, train_distributed_fn: object, hooks: object) -> None:
    """Legacy's STANDALONE_CLIENT `Estimator.train`: refused (one line saying why)."""
    _standalone_only(estimator, "estimator.train")


def estimator_evaluate(
    estimator: Estimator, evaluate_distributed_fn: object, hooks: object
) -> None:
    """Legacy's STANDALONE_CLIENT `Estimator.evaluate`: refused (one line saying why)."""
    _standalone_only(estimator, "Estimator.evaluate")


def _standalone_only(estimator: Estimator, what: str) -> None:
    config = estimator.config
    mode = getattr(config, "_distribute_coordinator_mode", None)
    if not mode or not config.cluster_spec:
        raise ValueError(f"`{what}` needs a distribute coordinator mode and a cluster_spec.")
    if "evaluator" in _jobs(config.cluster_spec):
        raise ValueError("'evaluator' job is not supported if you don't use `train_and_evaluate`")
    if mode != STANDALONE_CLIENT:
        raise ValueError(f"Only `STANDALONE_CLIENT` mode is supported when you call `{what}`")
    raise TfportInputError(message(_NO_CLIENT, _ONE_PROCESS, mode=mode))
