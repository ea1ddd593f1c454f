"""v1 canned estimators (`tf.compat.v1.estimator.*`): v1 optimizers, SUM loss, partitioners.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3)
    ... # doctest: +SKIP
"""

from __future__ import annotations

from tfport.estimator._canned import table
from tfport.estimator._canned.names import V1_NAMES

SUM = "weighted_sum"

globals().update(table.build(v2=False, loss_reduction=SUM, module=__name__))

__all__ = list(V1_NAMES)
