"""v2 canned estimators (`tf.estimator.*`): Keras optimizers, SUM_OVER_BATCH_SIZE loss.

Example:
    >>> est = DNNClassifier(hidden_units=[16, 8], feature_columns=cols, n_classes=3,
    ...                     optimizer="Adam")  # doctest: +SKIP
"""

from __future__ import annotations

from tfport._src.canned import table
from tfport._src.canned.head_api import BinaryClassHead as BinaryClassHead
from tfport._src.canned.head_api import MultiClassHead as MultiClassHead
from tfport._src.canned.head_api import RegressionHead as RegressionHead
from tfport._src.canned.names import V2_NAMES

SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

globals().update(table.build(v2=True, loss_reduction=SUM_OVER_BATCH_SIZE, module=__name__))

__all__ = list(V2_NAMES)
