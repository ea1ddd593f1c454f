"""Placement, configuration checks and the replica context of legacy's internal TPU
context (`internal_context._InternalTPUContext`), with legacy's devices and errors.

Device names follow legacy: `/job:<master job>/task:<host>/device:CPU:0` for a host
(`/replica:0/task:0/device:CPU:0` for a local master) and `.../device:TPU:<ordinal>` for
a core, hosts counted `replica // cores per host`. With no TPU found (no cores) the
functions that divide by the cores per host raise ZeroDivisionError, as legacy's do.

Example:
    >>> place = host_placement(ctx, None)  # doctest: +SKIP
    >>> place(host_id=0)  # doctest: +SKIP
    '/replica:0/task:0/device:CPU:0'
"""

from __future__ import annotations

import logging
from types import TracebackType
from typing import Any, Protocol

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import DeviceAssignment, TPUDeployment

tf = import_tf()
_ReplicaContext: Any = tf.distribute.ReplicaContext
log = logging.getLogger("tfport")
_LOCAL_HOST = "/replica:0/task:0/device:CPU:0"
# cores per replica -> the computation shape of its device assignment (legacy's table)
COMPUTATION_SHAPES = {
    1: [1, 1, 1, 1],
    2: [1, 1, 1, 2],
    4: [1, 2, 1, 2],
    8: [2, 2, 1, 2],
    16: [4, 2, 1, 2],
    32: [4, 4, 1, 2],
    64: [8, 4, 1, 2],
    128: [8, 8, 1, 2],
}


class _PlacedContext(TPUDeployment, Protocol):
    """The internal TPU context as placement reads it: its master job, and the device
    assignment it has whenever `model_parallelism_enabled` (only then is it read)."""

    @property
    def master_job(self) -> str | None:
        """The TPU job name (None for a local master)."""
        ...

    @property
    def device_assignment(self) -> DeviceAssignment:
        """The model-parallel device assignment."""
        ...


def host_placement(ctx: _PlacedContext, master: str | None) -> Any:
    """`ctx.tpu_host_placement_function`: `(replica_id=None, host_id=None) -> host device`.

    Example:
        >>> host_placement(ctx, "tpu_worker")(host_id=1)  # doctest: +SKIP
        '/job:tpu_worker/task:1/device:CPU:0'
    """

    def _placement_function(
        _sentinal: object = None, replica_id: int | None = None, host_id: Any = None
    ):
        assert _sentinal is None  # noqa: S101 - legacy's check: keyword arguments only
        if replica_id is not None and host_id is not None:
            raise RuntimeError("replica_id and host_id can have only one non-None value.")
        if master is None:
            return _LOCAL_HOST
        if replica_id is not None:
            if ctx.model_parallelism_enabled:
                return ctx.device_assignment.host_device(replica=replica_id, job=master)
            host_id = replica_id / ctx.num_of_cores_per_host
        return "/job:%s/task:%d/device:CPU:0" % (master, host_id)  # noqa: UP031 - %d floors

    return _placement_function


def device_placement(ctx: _PlacedContext, master: str | None) -> Any:
    """`ctx.tpu_device_placement_function`: `replica index -> TPU device`.

    Example:
        >>> device_placement(ctx, None)(3)  # doctest: +SKIP
        '/task:0/device:TPU:3'
    """
    job_device = "" if master is None else f"/job:{master}"

    def _placement_function(i: int) -> Any:
        if ctx.model_parallelism_enabled:
            return ctx.device_assignment.tpu_device(replica=i, job=master)
        per_host = ctx.num_of_cores_per_host
        return "%s/task:%d/device:TPU:%d" % (job_device, i / per_host, i % per_host)  # noqa: UP031

    return _placement_function


def ordinal_function(ctx: _PlacedContext, host_id: int) -> Any:
    """`ctx.tpu_ordinal_function(host_id)`: `shard index in host -> TPU ordinal`.

    Example:
        >>> ordinal_function(ctx, 0)(9)  # doctest: +SKIP
        1
    """

    def _tpu_ordinal_function(shard_index_in_host: int) -> Any:
        if ctx.model_parallelism_enabled:
            assignment = ctx.device_assignment
            replica = assignment.lookup_replicas(host_id, 0)[shard_index_in_host]
            return assignment.tpu_ordinal(replica=replica)
        return shard_index_in_host % ctx.num_of_cores_per_host

    return _tpu_ordinal_function


def replica_device(ctx: _PlacedContext, replica_id: int) -> tuple:
    """`ctx.device_for_replica(replica_id)`: (host CPU device, TPU ordinal).

    Example:
        >>> replica_device(ctx, 9)  # doctest: +SKIP
        ('/task:1/device:CPU:0', 1)
    """
    master = ctx.master_job
    if ctx.model_parallelism_enabled:
        assignment = ctx.device_assignment
        return (
            assignment.host_device(replica=replica_id, job=master),
            assignment.tpu_ordinal(replica=replica_id),
        )
    job_device = "" if master is None else f"/job:{master}"
    per_host = ctx.num_of_replicas_per_host
    if not per_host > 0:
        raise AssertionError(f"Got num_of_replicas_per_host: {per_host}")
    host = "%s/task:%d/device:CPU:0" % (job_device, replica_id / per_host)  # noqa: UP031
    return (host, replica_id % per_host)


def _divisible(name: str, batch: int, ctx: TPUDeployment, replicas: int) -> None:
    if batch % replicas != 0 and not ctx.is_input_broadcast_with_iterators():
        raise ValueError(
            f"{name} batch size {batch} must be divisible by number of replicas {replicas}"
        )


def validate(ctx: Any) -> None:
    """`ctx._validate_tpu_configuration()`: the batch sizes and TPUConfig checked against
    the TPU system found, once per mode (RuntimeError without TPU cores).

    Example:
        >>> validate(ctx)  # doctest: +SKIP
    """
    mode = ctx._assert_mode()
    if ctx._lazy_validation_dict.get(mode):
        return
    cores, replicas, hosts = ctx.num_cores, ctx.num_replicas, ctx.num_hosts
    tpu_config = ctx._config.tpu_config
    if not cores:
        devices = ctx._get_tpu_system_metadata().devices
        raise RuntimeError(
            "Cannot find any TPU cores in the system. Please double check Tensorflow master "
            f"address and TPU worker(s). Available devices are {devices}."
        )
    if tpu_config.num_shards and tpu_config.num_shards != replicas:
        raise ValueError(
            "TPUConfig.num_shards is not set correctly. According to TPU system metadata for "
            f"Tensorflow master ({ctx._get_master_address()}): num_replicas should be "
            f"({replicas}), got ({tpu_config.num_shards}). For non-model-parallelism, "
            "num_replicas should be the total num of TPU cores in the system. For "
            "model-parallelism, the total number of TPU cores should be num_cores_per_replica "
            "* num_replicas. Please set it accordingly or leave it as `None`"
        )
    per_replica = tpu_config.num_cores_per_replica
    if per_replica and not ctx.is_input_per_host_with_iterators():
        per_host = ctx._get_tpu_system_metadata().num_of_cores_per_host
        if per_replica > per_host:
            raise ValueError(
                "Except the PER_HOST_V2 mode, the num of cores required by model parallelism "
                "specified by TPUConfig.num_cores_per_replica should be less than or equal to "
                f"the num_cores_per_host. num_cores_per_replica: {per_replica}, "
                f"num_cores_per_host: {per_host}"
            )
    pipeline = tpu_config.per_host_input_for_training
    broadcast = ctx.is_input_broadcast_with_iterators()
    per_host_v2 = ctx.is_input_per_host_with_iterators()
    if mode == "train":
        _divisible("train", ctx._train_batch_size, ctx, replicas)
    elif mode == "eval":
        if ctx._eval_batch_size is None:
            raise ValueError(
                "eval_batch_size in TPUEstimator constructor cannot be `None` if .evaluate is "
                "running on TPU."
            )
        _divisible("eval", ctx._eval_batch_size, ctx, replicas)
        if hosts != 1 and not broadcast and not per_host_v2:
            raise ValueError(
                "TPUEstimator.evaluate is only supported under three conditions: 1. "
                "num_hosts=1; 2. BROADCAST mode; 3. PER_HOST_V2 mode. "
                f"mode: {pipeline}; num_hosts: {hosts}; num_replicas=1:{replicas}"
            )
        if hosts > 1 and per_host_v2:
            log.warning(
                "Running TPUEstimator.evaluate for input mode PER_HOST_V2 and num_hosts %d", hosts
            )
    else:
        if ctx._predict_batch_size is None:
            raise ValueError(
                "predict_batch_size in TPUEstimator constructor cannot be `None` if .predict "
                "is running on TPU."
            )
        _divisible("predict", ctx._predict_batch_size, ctx, replicas)
        if hosts != 1 and not broadcast and not (replicas == 1 and per_host_v2):
            raise ValueError(
                "TPUEstimator.predict is only supported under three conditions: 1. "
                "num_hosts=1; 2. BROADCAST mode; 3. PER_HOST_V2 mode with num_replicas=1. "
                f"mode: {pipeline}; num_hosts: {hosts}; num_replicas=1:{replicas}"
            )
    ctx._lazy_validation_dict[mode] = True


class _TPUEstimatorReplicaContext(_ReplicaContext):
    """The replica context of replica `replica_id_in_sync` of a TPU computation: inside
    `with`, TF2 summaries record on replica 0 only; variables use the default strategy.

    Example:
        >>> with _TPUEstimatorReplicaContext(replica_id):  # doctest: +SKIP
        ...     tf.summary.scalar("loss", loss)
    """

    def __init__(self, replica_id_in_sync: object) -> None:
        super().__init__(None, replica_id_in_sync)
        tf_internals.use_default_replica_thread_mode(self)

    def __enter__(self) -> None:
        def replica_id_is_zero() -> Any:
            return tf.math.equal(self.replica_id_in_sync_group, tf.constant(0))

        self._summary_recording_distribution_strategy = (
            tf_internals.swap_summary_recording_condition(replica_id_is_zero)
        )

    def __exit__(
        self,
        exception_type: type[BaseException] | None,
        exception_value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        tf_internals.swap_summary_recording_condition(self._summary_recording_distribution_strategy)
