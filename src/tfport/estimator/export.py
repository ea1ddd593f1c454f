"""`tfport.estimator.export`: serving receivers and export outputs (as `tf.estimator.export`)."""

import typing as _typing

from tfport.estimator._engine.api.receivers import (
    ServingInputReceiver,
    TensorServingInputReceiver,
    build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn,
)

__all__ = [
    "ServingInputReceiver",
    "TensorServingInputReceiver",
    "build_parsing_serving_input_receiver_fn",
    "build_raw_serving_input_receiver_fn",
    "ExportOutput",  # noqa: F822 - lazy, via __getattr__
    "PredictOutput",  # noqa: F822 - lazy, via __getattr__
    "ClassificationOutput",  # noqa: F822 - lazy, via __getattr__
    "RegressionOutput",  # noqa: F822 - lazy, via __getattr__
    "EvalOutput",  # noqa: F822 - lazy, via __getattr__
]

_OUTPUTS = (
    "ExportOutput",
    "PredictOutput",
    "ClassificationOutput",
    "RegressionOutput",
    "EvalOutput",
)


def __getattr__(name: str) -> _typing.Any:
    if name in _OUTPUTS:
        from tfport._common import tf_internals

        classes = {
            "ExportOutput": tf_internals.export_output_class,
            "PredictOutput": tf_internals.predict_output_class,
            "ClassificationOutput": tf_internals.classification_output_class,
            "RegressionOutput": tf_internals.regression_output_class,
            "EvalOutput": tf_internals.eval_output_class,
        }
        return classes[name]()

    raise AttributeError(f"module 'tfport.estimator.export' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(__all__)
