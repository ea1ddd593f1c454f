"""TPUEstimator compatibility: one model_fn on TPU, GPUs or CPU.

With no TPU (or `use_tpu=False`) a TPUEstimator runs on whatever strategy the
RunConfig names (Mirrored over GPUs, logical CPU devices, or one device), with
`iterations_per_loop` steps per `session.run`. `CrossShardOptimizer` is the real
cross-replica sum inside a TPU computation, an all-replica gradient mean before the
wrapped optimizer applies them under a strategy (`cross_shard.py`), and the wrapped
optimizer on one device, so it never fails for lack of a `CrossReplicaSum` kernel.
"""

from __future__ import annotations

import collections
import enum
import functools
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Hook, InputFn, Labels, ModelFn
from tfport.distribute import num_replicas
from tfport.estimator._engine.api.hooks import ExamplesPerSecondHook
from tfport.estimator._engine.api.run_config import RunConfig as _BaseRunConfig
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.building.context import strategy_for
from tfport.estimator._engine.estimator import Estimator
from tfport.estimator._tpu import embedding
from tfport.estimator._tpu.cross_shard import cross_shard_optimizer  # noqa: F401 - its home
from tfport.estimator._tpu.tpu_context import HOST_DEVICE, EmulatedDeployment, TPUContext

if TYPE_CHECKING:
    from tfport.estimator._engine.api.warm_start import WarmStartSettings

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

log = logging.getLogger("tfport")
_PER_HOST_V1 = 2  # tpu_config.InputPipelineConfig.PER_HOST_V1 (PER_SHARD_V1 is 1)


class TPUConfig(
    collections.namedtuple(
        "TPUConfig",
        [
            "iterations_per_loop",
            "num_shards",
            "num_cores_per_replica",
            "per_host_input_for_training",
            "tpu_job_name",
            "initial_infeed_sleep_secs",
            "input_partition_dims",
            "eval_training_input_configuration",
            "experimental_host_call_every_n_steps",
            "experimental_allow_per_host_v2_parallel_get_next",
            "experimental_feed_hook",
        ],
    )
):
    """TPU-specific settings (only `iterations_per_loop` matters off TPU).

    `per_host_input_for_training` True or False is kept as legacy kept it: the
    `InputPipelineConfig` value PER_HOST_V1 (2) or PER_SHARD_V1 (1).

    Example:
        >>> TPUConfig(iterations_per_loop=10).iterations_per_loop
        10
    """

    _estimator_api_names = ()  # legacy's estimator_export names
    _estimator_api_names_v1 = ["estimator.tpu.TPUConfig"]

    def __new__(
        cls,
        iterations_per_loop: int = 2,
        num_shards: int | None = None,
        num_cores_per_replica: int | None = None,
        per_host_input_for_training: bool | int = True,
        tpu_job_name: str | None = None,
        initial_infeed_sleep_secs: int | None = None,
        input_partition_dims: Sequence[object] | None = None,
        eval_training_input_configuration: int = 2,
        experimental_host_call_every_n_steps: int = 1,
        experimental_allow_per_host_v2_parallel_get_next: bool = False,
        experimental_feed_hook: type | None = None,
    ) -> TPUConfig:
        if not isinstance(iterations_per_loop, int) or iterations_per_loop < 1:
            raise TfportInputError(
                message(
                    "TPUConfig.iterations_per_loop must be an int >= 1",
                    "Fix it",
                    iterations_per_loop=iterations_per_loop,
                )
            )
        if isinstance(per_host_input_for_training, bool):  # legacy stored the enum value
            per_host_input_for_training = _PER_HOST_V1 if per_host_input_for_training else 1
        config = super().__new__(
            cls,
            iterations_per_loop,
            num_shards,
            num_cores_per_replica,
            per_host_input_for_training,
            tpu_job_name,
            initial_infeed_sleep_secs,
            input_partition_dims,
            eval_training_input_configuration,
            experimental_host_call_every_n_steps,
            experimental_allow_per_host_v2_parallel_get_next,
            experimental_feed_hook,
        )
        _warn_tpu_only(
            "TPUConfig",
            {
                "num_cores_per_replica": num_cores_per_replica is not None,
                "input_partition_dims": input_partition_dims is not None,
                "experimental_allow_per_host_v2_parallel_get_next": bool(
                    experimental_allow_per_host_v2_parallel_get_next
                ),
                "experimental_feed_hook": experimental_feed_hook is not None,
            },
        )
        return config


_WARNED: set = set()


def _warn_tpu_only(where: str, set_args: dict) -> None:
    """Warns once per argument that a TPU-infeed/TPU-export setting has no effect here."""
    for name, is_set in set_args.items():
        if is_set and (where, name) not in _WARNED:
            _WARNED.add((where, name))
            log.warning(
                "%s(%s=...) is stored but ignored: it configures TPU infeed, sharding or TPU "
                "export, which tfport does not run (models run on the RunConfig's strategy).",
                where,
                name,
            )


class ExportSavedModelApiVersion(enum.Enum):
    """Which TPU export API a TPUEstimator's `export_saved_model` follows (legacy enum)."""

    V1 = 1
    V2 = 2


class RunConfig(_BaseRunConfig):
    """`tf.compat.v1.estimator.tpu.RunConfig`: a RunConfig with a `tpu_config`.

    Example:
        >>> RunConfig(tpu_config=TPUConfig(iterations_per_loop=10)).iterations_per_loop
        10
    """

    _estimator_api_names = ()  # legacy's estimator_export names
    _estimator_api_names_v1 = ["estimator.tpu.RunConfig"]

    def __init__(
        self,
        tpu_config: TPUConfig | None = None,
        evaluation_master: str | None = None,
        master: str | None = None,
        cluster: object = None,
        **kwargs: Any,
    ) -> None:
        self._tpu_config = tpu_config or TPUConfig()
        kwargs.setdefault("iterations_per_loop", self._tpu_config.iterations_per_loop)
        super().__init__(**kwargs)
        self._cluster = cluster
        if master:
            self._master = master
        self._evaluation_master = self._master if evaluation_master is None else evaluation_master
        _warn_tpu_only("RunConfig", {"evaluation_master": evaluation_master is not None})

    tpu_config = property(lambda self: self._tpu_config)
    cluster = property(lambda self: self._cluster)


def _while_exporting(method: Callable[..., object]) -> Any:
    """`method` of Estimator run with the TPUEstimator marked as exporting."""

    @functools.wraps(method)
    def export(self: Any, *args: object, **kwargs: object) -> Any:
        self._exporting = True
        try:
            return method(self, *args, **kwargs)
        finally:
            self._exporting = False

    return export


class TPUEstimator(Estimator):
    """`TPUEstimator` that runs the same model_fn on TPU, GPUs or CPU.

    Example:
        >>> est = TPUEstimator(model_fn, config=RunConfig(tpu_config=TPUConfig(10)),
        ...                    use_tpu=False, train_batch_size=32)  # doctest: +SKIP
    """

    def __init__(
        self,
        model_fn: ModelFn | None = None,
        model_dir: str | None = None,
        config: _BaseRunConfig | None = None,
        params: dict | None = None,
        use_tpu: bool = True,
        train_batch_size: int | None = None,
        eval_batch_size: int | None = None,
        predict_batch_size: int | None = None,
        batch_axis: object = None,
        eval_on_tpu: bool = True,
        export_to_tpu: bool = True,
        export_to_cpu: bool = True,
        warm_start_from: str | os.PathLike[str] | WarmStartSettings | None = None,
        embedding_config_spec: embedding.EmbeddingConfigSpec | None = None,
        export_saved_model_api_version: ExportSavedModelApiVersion = ExportSavedModelApiVersion.V1,
    ) -> None:
        if params and ("batch_size" in params or "context" in params):
            raise TfportInputError(
                message(
                    "params must not contain 'batch_size' or 'context'; TPUEstimator sets them",
                    "Pass train_batch_size / eval_batch_size / predict_batch_size instead",
                    params=params,
                )
            )
        self._batch_sizes = {
            ModeKeys.TRAIN: train_batch_size,
            ModeKeys.EVAL: eval_batch_size,
            ModeKeys.PREDICT: predict_batch_size,
        }
        self._use_tpu = use_tpu
        self._eval_on_tpu = eval_on_tpu
        self._exporting = False
        embedding.check_for_estimator(embedding_config_spec, use_tpu, eval_on_tpu)
        self._embedding_config_spec = embedding_config_spec
        params = dict(params or {})  # `use_tpu` is the model_fn's alone, per mode (legacy)
        # The engine calls the model_fn with the argument subset it takes and turns a
        # TPUEstimatorSpec into an EstimatorSpec, so the user's model_fn is used as it is.
        super().__init__(model_fn, model_dir, config or RunConfig(), params, warm_start_from)
        if use_tpu:
            _warn_if_no_tpu(self._config)
        self._export_saved_model_api_version = export_saved_model_api_version
        _warn_tpu_only(
            "TPUEstimator",
            {
                "batch_axis": batch_axis is not None,
                "export_to_tpu": export_to_tpu is not True,
                "export_to_cpu": export_to_cpu is not True,
                "export_saved_model_api_version": (
                    export_saved_model_api_version is not ExportSavedModelApiVersion.V1
                ),
            },
        )

    def _on_tpu(self, mode: str) -> bool:
        """Whether legacy would run `mode` on the TPU (it then passes `params['context']`)."""
        if not self._use_tpu or self._exporting:
            return False
        return mode != ModeKeys.EVAL or bool(self._eval_on_tpu)

    def _deployment(self, mode: str) -> EmulatedDeployment:
        replicas = num_replicas(strategy_for(self._config, mode))
        batch = self._batch_sizes.get(mode)
        return EmulatedDeployment(
            replicas,
            batch_size_for_input_fn=batch,
            batch_size_for_model_fn=None if batch is None else batch // replicas,
            mode=mode,
            config=self._config,
        )

    def _params_for_input(self, mode: str) -> dict:
        """input_fn params: `batch_size` = the mode's global batch (tfport splits it) and,
        where legacy runs the mode on TPU, `context` (one host feeding every replica)."""
        params = dict(super()._params_for_input(mode))
        if self._batch_sizes.get(mode) is not None:
            params["batch_size"] = self._batch_sizes[mode]
        if self._on_tpu(mode):
            params["context"] = TPUContext(
                self._deployment(mode), HOST_DEVICE, invocation_index=0, host_id=0
            )
        return params

    def _params_for_model_fn(self, mode: str, replicas: int) -> dict:
        """model_fn params: `batch_size` = the mode's per-replica batch, `use_tpu` and
        `context` as legacy sets them (`use_tpu=False` and no context when exporting)."""
        params = dict(super()._params_for_model_fn(mode, replicas))
        batch = self._batch_sizes.get(mode)
        if batch is not None:
            params["batch_size"] = batch // replicas
        params["use_tpu"] = self._on_tpu(mode)
        if self._on_tpu(mode):
            params["context"] = TPUContext(self._deployment(mode), call_from_input_fn=False)
        return params

    # legacy exports for CPU: the model_fn then gets `use_tpu=False` and no `context`
    export_saved_model = _while_exporting(Estimator.export_saved_model)
    export_savedmodel = _while_exporting(Estimator.export_savedmodel)
    experimental_export_all_saved_models = _while_exporting(
        Estimator.experimental_export_all_saved_models
    )

    def _augment_model_fn(self, model_fn: ModelFn, batch_axis: object) -> Any:
        """The model_fn this estimator runs around `model_fn` (legacy's wrapper's contract)."""
        from tfport.estimator._tpu import tpu_programs

        return tpu_programs.augmented_model_fn(self, model_fn, batch_axis)

    def _call_model_fn_for_inference(
        self, features: Features, labels: Labels, mode: str, config: object
    ) -> Any:
        """The model_fn's spec for export to a TPU (mode `_inference_on_tpu` only)."""
        from tfport.estimator._tpu import tpu_programs

        return tpu_programs.call_model_fn_for_inference(self, features, labels, mode, config)

    def train(
        self,
        input_fn: InputFn,
        hooks: Iterable[Hook] | None = None,
        steps: int | None = None,
        max_steps: int | None = None,
        saving_listeners: Iterable[object] | None = None,
    ) -> TPUEstimator:
        hooks = list(hooks or []) + [_examples_per_second_hook(self)]
        super().train(input_fn, hooks, steps, max_steps, saving_listeners)
        return self


def _warn_if_no_tpu(config: _BaseRunConfig) -> None:
    strategy = config.train_distribute
    if strategy is None or "TPU" not in type(strategy).__name__:
        log.warning(
            "TPUEstimator(use_tpu=True) without a TPU strategy: running on %s.",
            type(strategy).__name__ if strategy is not None else "the default device",
        )


def _examples_per_second_hook(est: TPUEstimator) -> Any:
    batch = est._batch_sizes.get(ModeKeys.TRAIN) or 0
    every = est._config.iterations_per_loop or est._config.log_step_count_steps or 100
    return ExamplesPerSecondHook(batch, every_n_steps=every, output_dir=est.model_dir)


BatchConfig = collections.namedtuple(
    "BatchConfig",
    [
        "num_batch_threads",
        "max_batch_size",
        "batch_timeout_micros",
        "allowed_batch_sizes",
        "max_enqueued_batches",
    ],
    defaults=(100,),
)
