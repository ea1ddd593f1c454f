"""`tfport.estimator`: a drop-in for `tf.estimator` on TensorFlow 2.21.

Example:
    >>> import tfport.estimator as est_lib
    >>> est = est_lib.Estimator(model_fn, config=est_lib.RunConfig(model_dir="/tmp/m"))
    ... # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport.estimator import export
from tfport.estimator._canned.estimators_v2 import (
    BaselineClassifier,
    BaselineEstimator,
    BaselineRegressor,
    BinaryClassHead,
    DNNClassifier,
    DNNEstimator,
    DNNLinearCombinedClassifier,
    DNNLinearCombinedEstimator,
    DNNLinearCombinedRegressor,
    DNNRegressor,
    LinearClassifier,
    LinearEstimator,
    LinearRegressor,
    MultiClassHead,
    RegressionHead,
)
from tfport.estimator._engine.estimator import Estimator
from tfport.estimator._engine.hooks import (
    make_early_stopping_hook,
    read_eval_metrics,
    stop_if_higher_hook,
    stop_if_lower_hook,
    stop_if_no_decrease_hook,
    stop_if_no_increase_hook,
)
from tfport.estimator._engine.run_config import RunConfig
from tfport.estimator._engine.spec import EstimatorSpec, ModeKeys
from tfport.estimator._engine.train_and_evaluate import (
    BestExporter,
    EvalSpec,
    Exporter,
    FinalExporter,
    LatestExporter,
    TrainSpec,
    train_and_evaluate,
)
from tfport.estimator._engine.warm_start import WarmStartSettings

__all__ = [
    "Estimator",
    "EstimatorSpec",
    "ModeKeys",
    "RunConfig",
    "TrainSpec",
    "EvalSpec",
    "train_and_evaluate",
    "WarmStartSettings",
    "Exporter",
    "LatestExporter",
    "FinalExporter",
    "BestExporter",
    "export",
    "make_early_stopping_hook",
    "read_eval_metrics",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
    "VocabInfo",  # TF's class, via __getattr__
    "BaselineClassifier",
    "BaselineEstimator",
    "BaselineRegressor",
    "BinaryClassHead",
    "DNNClassifier",
    "DNNEstimator",
    "DNNLinearCombinedClassifier",
    "DNNLinearCombinedEstimator",
    "DNNLinearCombinedRegressor",
    "DNNRegressor",
    "LinearClassifier",
    "LinearEstimator",
    "LinearRegressor",
    "MultiClassHead",
    "RegressionHead",
]


def __getattr__(name: str) -> Any:
    from tfport.estimator._engine import hooks

    if name in hooks.TF_HOOKS:
        return hooks.tf_hook(name)
    if name == "VocabInfo":
        return hooks.tf_hook("VocabInfo")
    raise AttributeError(f"module 'tfport.estimator' has no attribute {name!r}")
