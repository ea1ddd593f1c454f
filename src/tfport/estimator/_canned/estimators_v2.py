"""v2 canned estimators (`tf.estimator.*`): Keras optimizers, SUM_OVER_BATCH_SIZE loss.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3,
    ...                     optimizer="Adam")  # doctest: +SKIP
"""

from __future__ import annotations

from tfport.estimator._canned import table
from tfport.estimator._canned.names import V2_NAMES
from tfport.estimator._heads.head_api import BinaryClassHead as BinaryClassHead
from tfport.estimator._heads.head_api import MultiClassHead as MultiClassHead
from tfport.estimator._heads.head_api import RegressionHead as RegressionHead

SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

globals().update(table.build(v2=True, loss_reduction=SUM_OVER_BATCH_SIZE, module=__name__))

__all__ = list(V2_NAMES)
