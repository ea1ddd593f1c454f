"""`tf.compat.v1.estimator.experimental`: `tf.estimator.experimental`'s shared names plus the
v1-only ones (KMeans, the logit-fn builders), without the v2-only RNN estimators.

Example:
    >>> from tfport.estimator import experimental_v1
    >>> experimental_v1.KMeans.CLUSTER_INDEX
    'cluster_index'
"""

import typing as _typing

from tfport.estimator import experimental as _v2
from tfport.estimator._canned.kmeans import KMeansClustering as KMeans
from tfport.estimator._canned.logit_fns import dnn_logit_fn_builder, linear_logit_fn_builder

_V2_ONLY = frozenset({"RNNClassifier", "RNNEstimator"})
_OWN = {
    "KMeans": KMeans,
    "dnn_logit_fn_builder": dnn_logit_fn_builder,
    "linear_logit_fn_builder": linear_logit_fn_builder,
}

__all__ = sorted({*_OWN, *(n for n in _v2.__all__ if n not in _V2_ONLY)})


def __getattr__(name: str) -> _typing.Any:
    if name in __all__:
        return getattr(_v2, name)
    raise AttributeError(f"module 'tfport.estimator.experimental_v1' has no attribute {name!r}")


def __dir__() -> list:
    return list(__all__)
