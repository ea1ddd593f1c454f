"""v2 canned estimators and heads, re-exported by `tfport.estimator` (`tf.estimator`).

Example:
    >>> from tfport.estimator import _canned
    >>> _canned.DNNClassifier  # doctest: +SKIP
"""

from __future__ import annotations

from tfport._src.canned import estimators_v2
from tfport._src.canned.names import V2_NAMES

__all__ = list(V2_NAMES)
globals().update({name: getattr(estimators_v2, name) for name in __all__})
