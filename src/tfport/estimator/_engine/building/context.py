"""The typed per-call context every engine step reads, instead of the Estimator object.

An Estimator method (train, evaluate, predict, export) makes one `ModeContext` for its
mode and hands it down: the graph builder's steps (input, replicate, model_fn, loop),
the session loops and the checkpoint checks read only this value.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

from tfport._common.types import Features, Labels, ModelFn
from tfport.distribute import num_replicas
from tfport.estimator._engine.api.run_config import RunConfig
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys
from tfport.estimator._engine.api.warm_start import WarmStartSettings
from tfport.estimator._engine.building import calls


@dataclasses.dataclass(frozen=True)
class ModeContext:
    """What one mode's graph and session need to know.

    Attributes:
        mode: a `ModeKeys` value.
        config: the Estimator's RunConfig (not copied again by the engine).
        model_fn: the user's model_fn, called with the subset of arguments it takes.
        input_params: the params the input_fn receives (a private copy).
        model_fn_params: the params the model_fn receives (a private copy).
        strategy: the distribution strategy of this mode, or None for one device.
        iterations: training steps per `session.run` (1 outside TRAIN).
        warm_start: WarmStartSettings applied when training starts, or None.
        model_creates_global_step: the model_fn brings the global step itself (a
            SavedModelEstimator imports it with the SavedModel's graph), so the builder
            does not create one first.

    Example:
        >>> ctx = ModeContext.create("eval", RunConfig(model_dir="/tmp/m"), fn, {})
        ... # doctest: +SKIP
    """

    mode: str
    config: RunConfig
    model_fn: ModelFn
    input_params: dict
    model_fn_params: dict
    strategy: Any = None
    iterations: int = 1
    warm_start: WarmStartSettings | None = None
    model_creates_global_step: bool = False

    @classmethod
    def create(
        cls,
        mode: str,
        config: RunConfig,
        model_fn: ModelFn,
        params: dict,
        *,
        model_fn_params: dict | None = None,
        warm_start: WarmStartSettings | None = None,
    ) -> ModeContext:
        """The context of `mode`: its strategy, steps per loop and param copies."""
        strategy = strategy_for(config, mode)
        return cls(
            mode=mode,
            config=config,
            model_fn=model_fn,
            input_params=copy.deepcopy(params),
            model_fn_params=copy.deepcopy(params if model_fn_params is None else model_fn_params),
            strategy=strategy,
            iterations=config.iterations_per_loop if mode == ModeKeys.TRAIN else 1,
            warm_start=warm_start,
        )

    @property
    def model_dir(self) -> str:
        """The folder of checkpoints and summaries."""
        return self.config.model_dir

    @property
    def replicas(self) -> int:
        """Replicas in sync (1 on one device)."""
        return num_replicas(self.strategy)

    def single_device(self) -> ModeContext:
        """The same context on one device (for reading single-device checkpoint names)."""
        return dataclasses.replace(self, strategy=None)

    def call_model_fn(
        self, features: Features, labels: Labels, deferred: list | None = None
    ) -> EstimatorSpec:
        """Calls the model_fn in the current graph; `deferred` collects TPU scaffold_fns."""
        return calls.call_model_fn(
            self.model_fn,
            features,
            labels,
            self.mode,
            copy.deepcopy(self.model_fn_params),
            self.config,
            deferred=deferred,
        )


def strategy_for(config: RunConfig, mode: str) -> Any:
    """The strategy `mode` runs on (None: one device, also for a 1-replica strategy)."""
    strategy = {
        ModeKeys.TRAIN: config.train_distribute,
        ModeKeys.EVAL: config.eval_distribute,
    }.get(mode)
    if strategy is None or (num_replicas(strategy) == 1 and not config.cluster_spec):
        return None
    return strategy
