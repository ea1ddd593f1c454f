"""`tfport.keras`: Keras models as Estimators (`model_to_estimator`)."""

from __future__ import annotations

from typing import Any


def model_to_estimator(*args: Any, **kwargs: Any) -> Any:
    """Turns a compiled Keras model into a `tfport.estimator.Estimator`.

    Example:
        >>> est = model_to_estimator(keras_model=model, model_dir="/tmp/m")  # doctest: +SKIP
    """
    from tfport.keras._model_to_estimator import model_to_estimator as impl

    return impl(*args, **kwargs)


def load_estimator_weights(keras_model: Any, model_dir: str) -> Any:
    """Loads the weights an Estimator trained into `keras_model` (Keras 2 or 3).

    Example:
        >>> load_estimator_weights(model, "/tmp/m")  # doctest: +SKIP
    """
    from tfport.keras._weights import load_estimator_weights as impl

    return impl(keras_model, model_dir)


__all__ = ["model_to_estimator", "load_estimator_weights"]
