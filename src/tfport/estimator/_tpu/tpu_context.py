"""`TPUContext`: what `params['context']` tells an input_fn and model_fn of a TPUEstimator.

tfport runs a TPUEstimator program on the replicas of the RunConfig's strategy (one
device, `mirrored:N`, ...). The deployment that context describes is the one tfport
really runs: one host (this process) whose one input_fn call feeds every replica (tfport
splits its global batch), so `current_input_fn_deployment()` is
`('/replica:0/task:0/device:CPU:0', 0, 1, N)` and `num_replicas` is N, as legacy reports
a one-host TPU system fed per host. No model parallelism: `device_assignment` is None.

Example:
    >>> ctx = TPUContext(EmulatedDeployment(num_replicas=2), HOST_DEVICE, invocation_index=0)
    >>> ctx.current_input_fn_deployment()
    ('/replica:0/task:0/device:CPU:0', 0, 1, 2)
"""

from __future__ import annotations

from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.types import TPUDeployment

HOST_DEVICE = "/replica:0/task:0/device:CPU:0"
_PER_HOST_V2 = 3  # tpu.InputPipelineConfig.PER_HOST_V2


class EmulatedDeployment:
    """The deployment behind a TPUContext under tfport: one host feeding N replicas.

    It answers what legacy's internal TPU context answers (the members TPUContext and the
    legacy infeed builders of `tpu.tpu_estimator` read); `mode` is the ModeKeys value of
    the program it feeds and `config` the TPU RunConfig (None: TPUConfig's defaults).

    Example:
        >>> EmulatedDeployment(num_replicas=4).device_for_replica(3)
        ('/task:0/device:CPU:0', 3)
    """

    num_hosts = 1
    model_parallelism_enabled = False
    device_assignment = None

    def __init__(
        self,
        num_replicas: int = 1,
        batch_size_for_input_fn: int | None = None,
        batch_size_for_model_fn: int | None = None,
        mode: str | None = None,
        config: object = None,
    ) -> None:
        self.num_replicas = num_replicas
        self.num_of_replicas_per_host = num_replicas
        self.num_cores = num_replicas
        self.num_of_cores_per_host = num_replicas
        self.mode = mode
        self.config = config
        tpu_config = getattr(config, "tpu_config", None)
        self.input_partition_dims = getattr(tpu_config, "input_partition_dims", None)
        self.allow_per_host_v2_parallel_get_next = bool(
            getattr(tpu_config, "experimental_allow_per_host_v2_parallel_get_next", False)
        )
        self.batch_size_for_input_fn = batch_size_for_input_fn
        self.batch_size_for_model_fn = batch_size_for_model_fn
        self.embedding_config = None

    def is_input_sharded_per_core(self) -> bool:
        """False: tfport calls the input_fn once per host, not once per replica."""
        return False

    def is_input_broadcast_with_iterators(self) -> bool:
        """False: the host's batch is split among the replicas (per-host input)."""
        return False

    def is_input_per_host_with_iterators(self) -> bool:
        """Whether the TPUConfig asks for the PER_HOST_V2 input pipeline (the batch read once
        per replica from the host's Dataset)."""
        tpu_config = getattr(self.config, "tpu_config", None)
        per_host = getattr(tpu_config, "per_host_input_for_training", None)
        return not isinstance(per_host, bool) and per_host == _PER_HOST_V2

    def is_replica_across_hosts(self) -> bool:
        """False: a replica lives on one device of this host."""
        return False

    def device_for_replica(self, replica_id: int) -> tuple[str, int]:
        """(host CPU device, device ordinal) of replica `replica_id`."""
        _check_index("replica_id", replica_id, self.num_replicas)
        return ("/task:0/device:CPU:0", replica_id)

    def tpu_host_placement_function(
        self, host_id: int | None = None, replica_id: int | None = None
    ) -> str:
        """The device of host `host_id`, or of the host of replica `replica_id` (only host
        0 exists)."""
        if host_id is not None and replica_id is not None:
            raise RuntimeError("replica_id and host_id can have only one non-None value.")
        if replica_id is not None:
            _check_index("replica_id", replica_id, self.num_replicas)
        else:
            _check_index("host_id", 0 if host_id is None else host_id, self.num_hosts)
        return HOST_DEVICE

    def tpu_ordinal_function(self, host_id: int) -> Any:
        """A function `shard index in host -> device ordinal` of host `host_id`'s shards."""
        _check_index("host_id", host_id, self.num_hosts)
        cores = self.num_of_cores_per_host

        def ordinal(shard_index_in_host: int) -> int:
            return shard_index_in_host % cores

        return ordinal


def _check_index(name: str, value: object, count: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < count:
        raise TfportInputError(
            message(
                f"TPUContext: {name} must be an int in [0, {count}): tfport runs one host "
                "(this process) feeding the replicas of the RunConfig's strategy",
                f"Pass a {name} from 0 to {count - 1}",
                **{name: value},
            )
        )


class TPUContext:
    """The configuration of the TPU computation, as legacy's `params['context']`.

    `current_input_fn_deployment` and `current_host` answer only in an input_fn,
    `device_assignment` only in a model_fn (RuntimeError otherwise, as legacy).

    Example:
        >>> def input_fn(params):
        ...     host, index, count, replicas = params["context"].current_input_fn_deployment()
        ...     return make_dataset(params["batch_size"]).shard(count, index)  # doctest: +SKIP
    """

    def __init__(
        self,
        internal_ctx: TPUDeployment,
        input_device: str | None = None,
        invocation_index: int | None = None,
        call_from_input_fn: bool = True,
        host_id: int | None = None,
    ) -> None:
        self._internal_ctx = internal_ctx
        self._input_device = input_device
        self._invocation_index = invocation_index
        self._call_from_input_fn = call_from_input_fn
        self._host_id = host_id

    def __deepcopy__(self, memo: dict) -> TPUContext:
        return self  # read-only; the engine deep-copies params

    def _only_in(self, where: str) -> None:
        if self._call_from_input_fn != (where == "input_fn"):
            other = "model_fn" if where == "input_fn" else "input_fn"
            raise RuntimeError(f"This TPUContext instance must not be called from {other}.")

    def current_input_fn_deployment(self) -> tuple[Any, Any, int, int]:
        """(host device, invocation index, invocation count, replicas fed by this call)."""
        self._only_in("input_fn")
        ctx = self._internal_ctx
        if ctx.is_input_sharded_per_core():
            count, consumed = ctx.num_hosts * ctx.num_of_replicas_per_host, 1
        elif ctx.is_input_broadcast_with_iterators():
            count, consumed = 1, ctx.num_replicas
        elif ctx.is_replica_across_hosts():
            count, consumed = ctx.num_replicas, 1
        else:
            count, consumed = ctx.num_hosts, ctx.num_of_replicas_per_host
        return (self._input_device, self._invocation_index, count, consumed)

    @property
    def num_replicas(self) -> int:
        """The total number of replicas."""
        return self._internal_ctx.num_replicas

    @property
    def num_hosts(self) -> int:
        """The number of hosts."""
        return self._internal_ctx.num_hosts

    @property
    def current_host(self) -> Any:
        """The index of the host this input_fn call runs for."""
        self._only_in("input_fn")
        return self._host_id

    @property
    def num_of_replicas_per_host(self) -> int:
        """The number of replicas each host feeds."""
        if self._internal_ctx.model_parallelism_enabled:
            raise ValueError("num_of_replicas_per_host is not supported for model_parallelism")
        return self._internal_ctx.num_of_replicas_per_host

    @property
    def device_assignment(self) -> Any:
        """The model-parallel device assignment (None without model parallelism)."""
        self._only_in("model_fn")
        return self._internal_ctx.device_assignment

    def device_for_replica(self, replica_id: int) -> tuple[str, int]:
        """(host CPU device, device ordinal) of replica `replica_id`."""
        return self._internal_ctx.device_for_replica(replica_id)

    @property
    def tpu_host_placement_function(self) -> Any:
        """A function `host_id -> device of that host`."""
        ctx = self._internal_ctx

        def placement(host_id: int) -> str:
            return ctx.tpu_host_placement_function(host_id=host_id)

        return placement
