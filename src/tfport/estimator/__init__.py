"""`tfport.estimator`: a drop-in for `tf.estimator` on TensorFlow 2.21.

Example:
    >>> import tfport.estimator as est_lib
    >>> est = est_lib.Estimator(model_fn, config=est_lib.RunConfig(model_dir="/tmp/m"))
    ... # doctest: +SKIP
"""

import importlib as _importlib
import typing as _typing

from tfport._common import canned as _registry
from tfport.estimator import export
from tfport.estimator._engine.api.extenders import (
    add_metrics,
    classifier_parse_example_spec,
    regressor_parse_example_spec,
)
from tfport.estimator._engine.api.run_config import RunConfig
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys
from tfport.estimator._engine.api.warm_start import WarmStartSettings
from tfport.estimator._engine.estimator import Estimator
from tfport.estimator._engine.running.train_and_evaluate import (
    BestExporter,
    EvalSpec,
    Exporter,
    FinalExporter,
    LatestExporter,
    TrainSpec,
)
from tfport.estimator._engine.running.training_executor import train_and_evaluate
from tfport.estimator._heads.base import Head
from tfport.estimator._heads.head_api import (
    BinaryClassHead,
    LogisticRegressionHead,
    MultiClassHead,
    MultiLabelHead,
    PoissonRegressionHead,
    RegressionHead,
)
from tfport.estimator._heads.multi_head import MultiHead

# Hooks and VocabInfo are TensorFlow's own classes, resolved on first use (`__getattr__`).
_TF_NAMES = (
    "SessionRunHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunValues",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "NanTensorHook",
    "ProfilerHook",
    "SecondOrStepTimer",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "NanLossDuringTrainingError",
    "VocabInfo",
)
# Where tfport had these before they moved to `experimental` (legacy's path): still
# resolvable for existing tfport code, but not public names (absent from `dir()`).
_OLD_TFPORT_PATHS = (
    "read_eval_metrics",
    "make_early_stopping_hook",
    "stop_if_higher_hook",
    "stop_if_lower_hook",
    "stop_if_no_decrease_hook",
    "stop_if_no_increase_hook",
)
# Submodules loaded on first use; `inputs` is the TF 1.x path `tf.estimator.inputs`.
_SUBMODULES = ("experimental", "inputs")

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
    "add_metrics",
    "classifier_parse_example_spec",
    "regressor_parse_example_spec",
    "Head",
    "BinaryClassHead",
    "LogisticRegressionHead",
    "MultiClassHead",
    "MultiHead",
    "MultiLabelHead",
    "PoissonRegressionHead",
    "RegressionHead",
    # the canned estimators (v2): `_registry.FAMILY`'s names, served from their homes
    "BaselineClassifier",  # noqa: F822 - lazy, via __getattr__
    "BaselineEstimator",  # noqa: F822 - lazy, via __getattr__
    "BaselineRegressor",  # noqa: F822 - lazy, via __getattr__
    "DNNClassifier",  # noqa: F822 - lazy, via __getattr__
    "DNNEstimator",  # noqa: F822 - lazy, via __getattr__
    "DNNLinearCombinedClassifier",  # noqa: F822 - lazy, via __getattr__
    "DNNLinearCombinedEstimator",  # noqa: F822 - lazy, via __getattr__
    "DNNLinearCombinedRegressor",  # noqa: F822 - lazy, via __getattr__
    "DNNRegressor",  # noqa: F822 - lazy, via __getattr__
    "LinearClassifier",  # noqa: F822 - lazy, via __getattr__
    "LinearEstimator",  # noqa: F822 - lazy, via __getattr__
    "LinearRegressor",  # noqa: F822 - lazy, via __getattr__
    *_TF_NAMES,
    *_SUBMODULES,
]


def __getattr__(name: str) -> _typing.Any:
    if name in _registry.FAMILY:
        return getattr(_importlib.import_module(_registry.home(name)), name)
    if name in _TF_NAMES:
        from tfport.estimator._engine.api import hooks

        return hooks.tf_hook(name)
    if name in _SUBMODULES:
        return _importlib.import_module(f"tfport.estimator.{name}")
    if name in _OLD_TFPORT_PATHS:  # tfport's earlier paths; not listed names (see dir())
        from tfport.estimator._engine.api import hooks

        return getattr(hooks, name)
    raise AttributeError(f"module 'tfport.estimator' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(__all__)
