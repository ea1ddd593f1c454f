"""The public names of the canned estimators: the one list that the estimator modules, their
re-exports (`tfport.estimator`, `tfport.estimator.v1`) and the tests share.

Example:
    >>> V1_NAMES[:3]
    ('BaselineClassifier', 'BaselineEstimator', 'BaselineRegressor')
"""

from __future__ import annotations

FAMILIES = ("Baseline", "DNN", "DNNLinearCombined", "Linear")
KINDS = ("Classifier", "Estimator", "Regressor")
HEADS = ("BinaryClassHead", "MultiClassHead", "RegressionHead")

# `tf.compat.v1.estimator`: the estimators; `tf.estimator`: the estimators and the head factories.
V1_NAMES = tuple(sorted(family + kind for family in FAMILIES for kind in KINDS))
V2_NAMES = tuple(sorted(V1_NAMES + HEADS))
