"""Legacy module paths (`tensorflow_estimator.python.estimator.*`, `tensorflow.python.estimator.*`).

`install()` registers one small module per legacy path in `sys.modules`; each resolves
its public names to tfport's objects on first use. Names that cannot exist on TF 2.21
(queue-based feeding, TF 1.x private head factories, ...) raise an error saying why and
what to use instead.
"""

from __future__ import annotations

import importlib
import types
from typing import Any

from tfport._common.errors import TfportInputError, message

_V2 = "tfport.estimator"
_V1 = "tfport.estimator.v1"
_EXP = "tfport.estimator.experimental"
_EXPORT = "tfport.estimator.export"
_TPU = "tfport.estimator.tpu"
_INPUTS = "tfport.estimator.inputs"

# legacy path under `python.estimator` -> modules whose names it offers (first match wins)
PATHS: dict[str, tuple[str, ...]] = {
    "": (_V2,),
    "estimator": (_V2, _V1),
    "estimator_lib": (_V2, _V1, _EXP),
    "run_config": (_V2, "tfport.estimator._engine.run_config"),
    "model_fn": (_V2,),
    "mode_keys": (_V2,),
    "training": (_V2,),
    "exporter": (_V2,),
    "export": (_EXPORT, "tfport.estimator._engine.receivers"),
    "export.export": (_EXPORT, "tfport.estimator._engine.receivers"),
    "export.export_lib": (_EXPORT, "tfport.estimator._engine.receivers"),
    "export.export_output": (_EXPORT,),
    "canned": (_V2,),
    "canned.dnn": (_V2, _EXP),
    "canned.linear": (_V2, _EXP),
    "canned.dnn_linear_combined": (_V2,),
    "canned.baseline": (_V2,),
    "canned.rnn": (_EXP,),
    "canned.kmeans": ("tfport.estimator._canned.kmeans",),
    "canned.parsing_utils": (_V2,),
    "canned.head": (),
    "canned.optimizers": (),
    "canned.metric_keys": ("tfport._legacy_paths",),
    "canned.prediction_keys": ("tfport._legacy_paths",),
    "head": (_V2,),
    "head.base_head": (_V2,),
    "head.binary_class_head": (_V2,),
    "head.multi_class_head": (_V2,),
    "head.multi_label_head": (_V2,),
    "head.multi_head": (_V2,),
    "head.regression_head": (_V2,),
    "head.sequential_head": ("tfport.estimator._heads.sequential",),
    "tpu": (_TPU,),
    "tpu.tpu_estimator": (_TPU, "tfport.estimator._tpu.tpu_estimator"),
    "tpu.tpu_config": (_TPU,),
    "hooks": (_V2, _EXP),
    "hooks.hooks": (_EXP,),
    "early_stopping": (_EXP, "tfport.estimator._engine.hooks"),
    "extenders": (_V2,),
    "inputs": (_INPUTS,),
    "inputs.inputs": (_INPUTS,),
    "inputs.numpy_io": (_INPUTS,),
    "inputs.pandas_io": (_INPUTS,),
    "keras": ("tfport.keras",),
    "keras_lib": ("tfport.keras",),
    "util": ("tfport.estimator._engine.calls",),
    "api": (),
    "api._v2": (),
    "api._v2.estimator": (_V2,),
    "api._v1": (),
    "api._v1.estimator": (_V1,),
    # the families only private modules reach (SavedModelEstimator, time series)
    "canned.saved_model_estimator": ("tfport.estimator._canned.saved_model_estimator",),
    "canned.timeseries": (),
    **{
        f"canned.timeseries.{name}": (f"tfport.estimator._canned.timeseries.{name}",)
        for name in (
            "ar_model",
            "estimators",
            "feature_keys",
            "head",
            "math_utils",
            "model",
            "model_utils",
            "saved_model_utils",
            "state_management",
        )
    },
}
# legacy path -> why it cannot exist here and what to use (importing it raises this)
GONE = {
    "inputs.queues": "queue-based feeding is gone from TF 2.21 (tfport's input functions "
    "use tf.data); use tf.estimator.inputs.numpy_input_fn / pandas_input_fn or tf.data",
    "gc": "export garbage collection is internal; exporters keep `exports_to_keep`",
    "estimator_export": "the API-export decorator is TensorFlow-internal; no replacement "
    "is needed (tfport already exports the public names)",
}
_WHY = {
    "canned.head": "the TF 1.x private head factories are not provided; use "
    "tf.estimator.MultiClassHead / BinaryClassHead / RegressionHead / MultiLabelHead",
    "canned.optimizers": "the canned optimizer registry is private; pass an optimizer "
    "instance or name ('Adagrad', 'Adam', ...) to the canned estimator",
}
PREFIXES = ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator")


class MetricKeys:
    """Metric names of the canned heads (the legacy `metric_keys.MetricKeys`)."""

    LOSS, LOSS_MEAN, LOSS_REGULARIZATION = "loss", "average_loss", "regularization_loss"
    ACCURACY, PRECISION, RECALL = "accuracy", "precision", "recall"
    ACCURACY_BASELINE, AUC, AUC_PR = "accuracy_baseline", "auc", "auc_precision_recall"
    LABEL_MEAN, PREDICTION_MEAN = "label/mean", "prediction/mean"
    ACCURACY_AT_THRESHOLD = "accuracy/positive_threshold_%g"
    PRECISION_AT_THRESHOLD = "precision/positive_threshold_%g"
    RECALL_AT_THRESHOLD = "recall/positive_threshold_%g"


class PredictionKeys:
    """Prediction keys of the canned heads (the legacy `prediction_keys.PredictionKeys`)."""

    CLASSES, CLASS_IDS, ALL_CLASSES, ALL_CLASS_IDS = (
        "classes",
        "class_ids",
        "all_classes",
        "all_class_ids",
    )
    LOGISTIC, LOGITS, PREDICTIONS, PROBABILITIES = (
        "logistic",
        "logits",
        "predictions",
        "probabilities",
    )


class LegacyModule(types.ModuleType):
    """A legacy module path whose names resolve to tfport's on first use."""

    def __init__(self, name: str, sources: tuple[str, ...], why: str | None) -> None:
        super().__init__(name, f"tfport's stand-in for legacy `{name}`.")
        self._sources, self._why = sources, why

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):
            raise AttributeError(attr)
        for source in self._sources:
            module = importlib.import_module(source)
            try:
                value = getattr(module, attr)
            except AttributeError:
                continue
            setattr(self, attr, value)
            return value
        why = self._why or "it is not part of the legacy public API tfport provides"
        raise AttributeError(
            message(
                f"{self.__name__}.{attr} is not available on TensorFlow 2.21: {why}",
                "Use the public tf.estimator / tf.compat.v1.estimator name",
                name=attr,
            )
        )


def modules() -> dict[str, types.ModuleType]:
    """`{sys.modules key: module}` for every legacy path under both prefixes.

    Example:
        >>> "tensorflow_estimator.python.estimator.estimator" in modules()
        True
    """
    out: dict[str, types.ModuleType] = {}
    for prefix in PREFIXES:
        for suffix, sources in PATHS.items():
            key = f"{prefix}.{suffix}" if suffix else prefix
            module = LegacyModule(key, sources, _WHY.get(suffix))
            module.__path__ = []  # a package: its submodules are found in sys.modules
            out[key] = module
        for suffix in (s for s in PATHS if s):
            parent, _, child = suffix.rpartition(".")
            holder = out[f"{prefix}.{parent}" if parent else prefix]
            setattr(holder, child, out[f"{prefix}.{suffix}"])
    out["tensorflow_estimator.python"] = LegacyModule("tensorflow_estimator.python", (), None)
    out["tensorflow_estimator.python"].__path__ = []
    out["tensorflow_estimator.python"].estimator = out[PREFIXES[0]]
    return out


class GoneFinder:
    """A meta-path finder that refuses legacy paths that cannot exist, saying why."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> None:
        for prefix in PREFIXES:
            if not fullname.startswith(prefix + "."):
                continue
            suffix = fullname[len(prefix) + 1 :]
            for gone, why in GONE.items():
                if suffix == gone or suffix.startswith(gone + "."):
                    raise ModuleNotFoundError(
                        message(
                            f"{fullname} cannot exist on TensorFlow 2.21: {why}",
                            "Import the public tf.estimator names instead",
                            module=fullname,
                        ),
                        name=fullname,
                    )
        return None


def check_names(path: str, names: Any) -> None:
    """Raises when any of `names` does not resolve on legacy module `path` (tests' helper)."""
    module = importlib.import_module(path)
    missing = [n for n in names if not hasattr(module, n)]
    if missing:
        raise TfportInputError(message("Names do not resolve", "Add them", missing=missing))
