"""v1 canned estimators, found by `tfport.estimator.v1` (`tf.compat.v1.estimator`).

Example:
    >>> from tfport.estimator import v1
    >>> v1.DNNClassifier  # doctest: +SKIP
"""

from __future__ import annotations

from tfport._src.canned import estimators_v1
from tfport._src.canned.names import V1_NAMES

__all__ = list(V1_NAMES)
globals().update({name: getattr(estimators_v1, name) for name in __all__})
