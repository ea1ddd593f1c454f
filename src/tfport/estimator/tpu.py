"""`tfport.estimator.tpu`: TPUEstimator & co. that also run on GPUs and CPU.

Example:
    >>> from tfport.estimator import tpu
    >>> tpu.TPUConfig(iterations_per_loop=10).iterations_per_loop
    10
"""

import types as _types

from tfport.estimator._engine.api.tpu_spec import TPUEstimatorSpec
from tfport.estimator._tpu import embedding as _embedding
from tfport.estimator._tpu.tpu_estimator import (
    RunConfig,
    TPUConfig,
    TPUEstimator,
)
from tfport.estimator._tpu.tpu_estimator import (  # noqa: F401 - tf.compat.v1.tpu's name
    cross_shard_optimizer as CrossShardOptimizer,  # noqa: N812
)


def cluster_resolver_class() -> type:
    """`TPUClusterResolver` that resolves `''` or no TPU name off a TPU host to the local
    machine (installed as `tf.distribute.cluster_resolver.TPUClusterResolver`).

    Example:
        >>> cls = cluster_resolver_class()  # doctest: +SKIP
    """
    from tfport.estimator._tpu import cluster_resolver

    return cluster_resolver.TPUClusterResolver


InputPipelineConfig = type(
    "InputPipelineConfig",
    (),
    {
        "PER_SHARD_V1": 1,
        "PER_HOST_V1": 2,
        "PER_HOST_V2": 3,
        "BROADCAST": 4,
        "SLICED": 5,
        "_estimator_api_names": (),  # legacy's estimator_export names
        "_estimator_api_names_v1": ["estimator.tpu.InputPipelineConfig"],
    },
)

__all__ = [
    "TPUEstimator",
    "TPUEstimatorSpec",
    "TPUConfig",
    "RunConfig",
    "InputPipelineConfig",
    "experimental",
]


# `tf.compat.v1.estimator.tpu.experimental`: EmbeddingConfigSpec joins it (issue 15).
experimental = _types.ModuleType(
    "tfport.estimator.tpu.experimental", "`tf.compat.v1.estimator.tpu.experimental`."
)
setattr(experimental, "EmbeddingConfigSpec", _embedding.EmbeddingConfigSpec)  # noqa: B010
setattr(experimental, "__all__", ["EmbeddingConfigSpec"])  # noqa: B010
# TF 2.21 lacks tf.compat.v1.tpu.experimental's TF1 optimization parameters; install() adds them.
OPTIMIZATION_PARAMETERS = _embedding.OPTIMIZATION_PARAMETERS


def __dir__() -> list:
    # CrossShardOptimizer stays importable (tf.compat.v1.tpu's) but is no listed name here
    return sorted(__all__)
