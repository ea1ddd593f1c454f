"""`tfport.estimator.tpu`: TPUEstimator & co. that also run on GPUs and CPU.

Example:
    >>> from tfport.estimator import tpu
    >>> tpu.TPUConfig(iterations_per_loop=10).iterations_per_loop
    10
"""

from tfport.estimator._tpu.tpu_estimator import (
    RunConfig,
    TPUConfig,
    TPUEstimator,
    TPUEstimatorSpec,
)
from tfport.estimator._tpu.tpu_estimator import (
    cross_shard_optimizer as CrossShardOptimizer,  # noqa: N812 - the legacy public name
)

InputPipelineConfig = type(
    "InputPipelineConfig",
    (),
    {"PER_SHARD_V1": 1, "PER_HOST_V1": 2, "PER_HOST_V2": 3, "BROADCAST": 4, "SLICED": 5},
)

__all__ = [
    "TPUEstimator",
    "TPUEstimatorSpec",
    "TPUConfig",
    "RunConfig",
    "CrossShardOptimizer",
    "InputPipelineConfig",
]
