"""Legacy `tpu_context._InternalTPUContext`: the TPU system a TPUEstimator's run sees.

It answers from the TPU system TensorFlow finds at the RunConfig's master (TF's TPU
system metadata query, as legacy): with no TPU that system has no cores and no hosts,
so `num_replicas` is 0 and, with `use_tpu=False`, every mode runs on the CPU with the
whole batch (`batch_size_for_input_fn` = the mode's global batch), exactly as legacy
reports off a TPU. tfport's own TPUEstimator describes the replicas it really runs with
`tpu_context.EmulatedDeployment`; this class is legacy's, for code that builds one.

Example:
    >>> ctx = _InternalTPUContext(RunConfig(), 16, 8, 4, use_tpu=False)  # doctest: +SKIP
    >>> with ctx.with_mode("train") as train:  # doctest: +SKIP
    ...     train.batch_size_for_input_fn
    16
"""

from __future__ import annotations

import contextlib
import copy
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Mode
from tfport.estimator._tpu import internal_placement as _placement

if TYPE_CHECKING:
    from tfport.estimator._tpu.embedding import EmbeddingConfigSpec
    from tfport.estimator._tpu.tpu_estimator import RunConfig

tf = import_tf()
log = logging.getLogger("tfport")
_PER_SHARD_V1, _PER_HOST_V2, _BROADCAST, _SLICED = 1, 3, 4, 5  # tpu.InputPipelineConfig


def _is(value: object, pipeline: int) -> bool:
    """Legacy's `value is InputPipelineConfig.X`, where legacy's TPUConfig stored
    `per_host_input_for_training` False as PER_SHARD_V1 (1) and True as PER_HOST_V1 (2)."""
    if isinstance(value, bool):
        value = 2 if value else 1
    return value == pipeline


class _InternalTPUContext:
    """TPUEstimator's immutable TPU state; `with ctx.with_mode(mode) as c:` for a mode's.

    Example:
        >>> ctx = _InternalTPUContext(config, 16, 8, 4, use_tpu=False)  # doctest: +SKIP
    """

    def __init__(
        self,
        config: RunConfig,
        train_batch_size: int | None,
        eval_batch_size: int | None,
        predict_batch_size: int | None,
        use_tpu: bool,
        eval_on_tpu: bool = True,
        embedding_config_spec: EmbeddingConfigSpec | None = None,
    ) -> None:
        self._config = config
        self._train_batch_size = train_batch_size
        self._eval_batch_size = eval_batch_size
        self._predict_batch_size = predict_batch_size
        self._use_tpu = use_tpu
        log.info("_TPUContext: eval_on_tpu %s", eval_on_tpu)
        if not use_tpu and eval_on_tpu:
            log.warning("eval_on_tpu ignored because use_tpu is False.")
        self._eval_on_tpu = eval_on_tpu
        cores_per_replica = config.tpu_config.num_cores_per_replica
        self._model_parallelism_enabled = use_tpu and cores_per_replica
        self._mode: Any = None
        self._computation_shape = (
            _placement.COMPUTATION_SHAPES[cores_per_replica]
            if self._model_parallelism_enabled
            else None
        )
        self._lazy_tpu_system_metadata_dict: dict = {}  # by master address
        self._lazy_device_assignment_dict: dict = {}  # by master address
        self._lazy_validation_dict: dict = {}  # by mode
        self._embedding_config_spec = embedding_config_spec
        self._lazy_embedding_config_dict: dict = {}  # by master address

    def _assert_mode(self) -> Any:
        if self._mode is None:
            raise RuntimeError("`mode` needs to be set via contextmanager `with_mode`.")
        return self._mode

    @contextlib.contextmanager
    def with_mode(self, mode: Mode) -> Iterator[_InternalTPUContext]:
        """A shallow copy set to `mode` (it shares the lazily queried system state)."""
        new_ctx = copy.copy(self)
        new_ctx._mode = mode
        yield new_ctx

    @property
    def mode(self) -> Any:
        """The mode set by `with_mode` (RuntimeError outside one)."""
        return self._assert_mode()

    def _get_master_address(self) -> Any:
        mode = self._assert_mode()
        return self._config.evaluation_master if mode == "eval" else self._config.master

    def _cluster_def(self) -> Any:
        session_config = self._config.session_config
        return session_config.cluster_def if session_config else None

    def _get_tpu_system_metadata(self) -> Any:
        master = self._get_master_address()
        found = self._lazy_tpu_system_metadata_dict.get(master)
        if found is None:
            cluster_def = self._cluster_def()
            found = tf_internals.query_tpu_system_metadata(
                master,
                cluster_def if cluster_def is not None and cluster_def.job else None,
                bool(self.model_parallelism_enabled),
            )
            self._lazy_tpu_system_metadata_dict[master] = found
        return found

    def _get_device_assignment(self) -> Any:
        master = self._get_master_address()
        found = self._lazy_device_assignment_dict.get(master)
        if found is None:
            topology = self._get_tpu_system_metadata().topology
            found = tf.tpu.experimental.DeviceAssignment.build(
                topology, computation_shape=self._computation_shape, num_replicas=self.num_replicas
            )
            self._lazy_device_assignment_dict[master] = found
        return found

    @property
    def tensor_core_embedding_columns(self) -> Any:
        """The EmbeddingConfigSpec's tensor-core feature columns (None without a spec)."""
        spec = self._embedding_config_spec
        return spec.tensor_core_feature_columns if spec else None

    @property
    def embedding_config(self) -> Any:
        """The mode's TPU embedding config (None off TPU or without embedding tables)."""
        from tfport.estimator._tpu.tpu_embedding_internals import EmbeddingConfig

        master = self._get_master_address()
        if master not in self._lazy_embedding_config_dict:
            config = None
            if self._use_tpu and self._embedding_config_spec:
                config = EmbeddingConfig(
                    self._embedding_config_spec,
                    self._train_batch_size,
                    self._eval_batch_size,
                    self.num_hosts,
                    self.num_cores,
                    self.config,
                )
                if not config.has_embedding_tables():
                    config = None
            self._lazy_embedding_config_dict[master] = config
        config = self._lazy_embedding_config_dict[master]
        if config is not None:
            config.tpu_embedding = config.get_tpu_embedding(self._assert_mode())
        return config

    @property
    def allow_per_host_v2_parallel_get_next(self) -> Any:
        """TPUConfig's `experimental_allow_per_host_v2_parallel_get_next`."""
        return self._config.tpu_config.experimental_allow_per_host_v2_parallel_get_next

    @property
    def feed_hook(self) -> Any:
        """TPUConfig's `experimental_feed_hook`."""
        return self._config.tpu_config.experimental_feed_hook

    @property
    def model_parallelism_enabled(self) -> Any:
        """`use_tpu and TPUConfig.num_cores_per_replica` (legacy's value, not a bool)."""
        return self._model_parallelism_enabled

    @property
    def input_partition_dims(self) -> Any:
        """TPUConfig's `input_partition_dims`."""
        return self._config.tpu_config.input_partition_dims

    @property
    def device_assignment(self) -> Any:
        """The model-parallel device assignment (None without model parallelism)."""
        return self._get_device_assignment() if self._model_parallelism_enabled else None

    @property
    def num_of_cores_per_host(self) -> int:
        """TPU cores per host of the system found (0 without a TPU)."""
        return self._get_tpu_system_metadata().num_of_cores_per_host

    @property
    def num_cores(self) -> int:
        """TPU cores of the system found (0 without a TPU)."""
        return self._get_tpu_system_metadata().num_cores

    @property
    def num_of_replicas_per_host(self) -> int:
        """Replicas per host (cores per host without model parallelism)."""
        if self.model_parallelism_enabled:
            return self.num_replicas // self.num_hosts
        return self.num_of_cores_per_host

    @property
    def num_replicas(self) -> int:
        """The cores, or the cores / `num_cores_per_replica` under model parallelism."""
        cores = self.num_cores
        if not self.model_parallelism_enabled:
            return cores
        per_replica = self._config.tpu_config.num_cores_per_replica
        if per_replica > cores:
            raise ValueError(
                "The num of cores required by the model parallelism, specified by "
                "TPUConfig.num_cores_per_replica, is larger than the total num of TPU cores "
                f"in the system. num_cores_per_replica: {per_replica}, num cores in the "
                f"system: {cores}"
            )
        if cores % per_replica:
            raise RuntimeError(
                f"The num of cores in the system ({cores}) is not divisible by the num of "
                f"cores ({per_replica}) required by the model parallelism, specified by "
                "TPUConfig.num_cores_per_replica. This should never happen!"
            )
        return cores // per_replica

    @property
    def num_hosts(self) -> int:
        """TPU hosts of the system found (0 without a TPU)."""
        return self._get_tpu_system_metadata().num_hosts

    @property
    def config(self) -> Any:
        """The TPU RunConfig."""
        return self._config

    def is_input_sharded_per_core(self) -> bool:
        """Whether training calls the input_fn once per core (PER_SHARD_V1)."""
        mode = self._assert_mode()
        per_host = self._config.tpu_config.per_host_input_for_training
        return mode == "train" and _is(per_host, _PER_SHARD_V1)

    def is_input_per_host_with_iterators(self) -> bool:
        """Whether the input pipeline is PER_HOST_V2."""
        return _is(self._config.tpu_config.per_host_input_for_training, _PER_HOST_V2)

    def is_input_broadcast_with_iterators(self) -> bool:
        """Whether the input_fn runs once and is broadcast (BROADCAST, or SLICED eval)."""
        per_host = self._config.tpu_config.per_host_input_for_training
        return _is(per_host, _BROADCAST) or self.is_input_slice_broadcast_to_all_cores()

    def is_input_slice_broadcast_to_all_cores(self) -> bool:
        """Whether evaluation/prediction slices one input across the cores (SLICED)."""
        mode = self._assert_mode()
        configuration = self._config.tpu_config.eval_training_input_configuration
        return mode != "train" and _is(configuration, _SLICED)

    def is_replica_across_hosts(self) -> bool:
        """Whether one replica needs more cores than a host has."""
        per_replica = self._config.tpu_config.num_cores_per_replica
        per_host = self._get_tpu_system_metadata().num_of_cores_per_host
        return per_replica is not None and per_replica > per_host

    def is_running_on_cpu(self, is_export_mode: bool = False) -> bool:
        """Whether the mode's input_fn and model_fn run on the CPU (else the TPU
        configuration is checked against the system found: ValueError/RuntimeError)."""
        on_cpu = self._is_running_on_cpu(is_export_mode)
        if not on_cpu:
            self._validate_tpu_configuration()
        return on_cpu

    def _is_running_on_cpu(self, is_export_mode: bool) -> bool:
        mode = self._assert_mode()
        if not self._use_tpu:
            return True
        if mode == "eval" and not self._eval_on_tpu:
            log.info("_is_running_on_cpu: eval_on_tpu disabled")
            return True
        return bool(is_export_mode)

    @property
    def global_batch_size(self) -> Any:
        """The mode's batch size given to the TPUEstimator."""
        return {
            "train": self._train_batch_size,
            "eval": self._eval_batch_size,
            "infer": self._predict_batch_size,
        }.get(self._assert_mode())

    @property
    def batch_size_for_input_fn(self) -> Any:
        """The batch one input_fn call makes (the global batch on the CPU)."""
        batch = self.global_batch_size
        if self.is_running_on_cpu() or self.is_input_broadcast_with_iterators():
            return batch
        if (
            self.is_input_sharded_per_core()
            or self.is_input_per_host_with_iterators()
            or self.is_replica_across_hosts()
        ):
            return batch // self.num_replicas
        return batch // self.num_hosts

    @property
    def batch_size_for_model_fn(self) -> Any:
        """The batch one model_fn replica sees (the global batch on the CPU)."""
        batch = self.global_batch_size
        if self.is_running_on_cpu() or (
            self.is_input_broadcast_with_iterators()
            and not self.is_input_slice_broadcast_to_all_cores()
        ):
            return batch
        return batch // self.num_replicas

    @property
    def master_job(self) -> Any:
        """The TPU job name: TPUConfig's `tpu_job_name`, else inferred from the master
        (None for a local master)."""
        run_config = self._config
        if run_config.tpu_config.tpu_job_name:
            return run_config.tpu_config.tpu_job_name
        try:
            return tf_internals.tpu_master_job(self._get_master_address(), self._cluster_def())
        except ValueError as e:
            raise ValueError(f"{e} Please specify a tpu_job_name as part of your TPUConfig.") from e

    @property
    def tpu_host_placement_function(self) -> Any:
        """A function `(replica_id=None, host_id=None) -> host CPU device`."""
        return _placement.host_placement(self, self.master_job)

    @property
    def tpu_device_placement_function(self) -> Any:
        """A function `replica index -> TPU device`."""
        return _placement.device_placement(self, self.master_job)

    def tpu_ordinal_function(self, host_id: int) -> Any:
        """A function `shard index in host -> TPU ordinal` of host `host_id`'s shards."""
        return _placement.ordinal_function(self, host_id)

    def _validate_tpu_configuration(self) -> None:
        _placement.validate(self)

    def device_for_replica(self, replica_id: int) -> tuple:
        """(host CPU device, TPU ordinal) of replica `replica_id`."""
        return _placement.replica_device(self, replica_id)


class _OneCoreTPUContext(_InternalTPUContext):
    """An `_InternalTPUContext` of a one-core, one-host system (TPUConfig.num_shards=1).

    Example:
        >>> ctx = _OneCoreTPUContext(config, 16, 8, 4, use_tpu=True)  # doctest: +SKIP
    """

    def __init__(
        self,
        config: RunConfig,
        train_batch_size: int | None,
        eval_batch_size: int | None,
        predict_batch_size: int | None,
        use_tpu: bool,
    ) -> None:
        super().__init__(config, train_batch_size, eval_batch_size, predict_batch_size, use_tpu)

    def _get_tpu_system_metadata(self) -> Any:
        master = self._get_master_address()
        found = self._lazy_tpu_system_metadata_dict.get(master)
        if found is None:
            found = tf.tpu.experimental.TPUSystemMetadata(
                num_cores=1, num_hosts=1, num_of_cores_per_host=1, topology=None, devices=[]
            )
            self._lazy_tpu_system_metadata_dict[master] = found
        return found


def _get_tpu_context(
    config: RunConfig,
    train_batch_size: int | None,
    eval_batch_size: int | None,
    predict_batch_size: int | None,
    use_tpu: bool,
    eval_on_tpu: bool,
    embedding_config_spec: EmbeddingConfigSpec | None,
) -> _InternalTPUContext:
    """The TPUEstimator's context: a one-core one for `num_shards=1` without model
    parallelism (ValueError with an embedding spec), else an `_InternalTPUContext`.

    Example:
        >>> ctx = _get_tpu_context(config, 16, 8, 4, False, True, None)  # doctest: +SKIP
    """
    tpu_config = config.tpu_config
    if tpu_config.num_shards == 1 and tpu_config.num_cores_per_replica is None:
        if embedding_config_spec is not None:
            raise ValueError(
                "Setting TPUConfig.num_shards==1 is unsupported when embedding_config_spec "
                "is not None."
            )
        log.warning(
            "Setting TPUConfig.num_shards==1 is an unsupported behavior. Please fix as soon "
            "as possible (leaving num_shards as None.)"
        )
        return _OneCoreTPUContext(
            config, train_batch_size, eval_batch_size, predict_batch_size, use_tpu
        )
    return _InternalTPUContext(
        config,
        train_batch_size,
        eval_batch_size,
        predict_batch_size,
        use_tpu,
        eval_on_tpu,
        embedding_config_spec,
    )
