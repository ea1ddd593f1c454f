"""`model_to_estimator`: a compiled Keras 2 (tf_keras) or Keras 3 model as an Estimator."""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Iterator, Mapping
from typing import Any, cast

from tfport._common import keras_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import KerasModel
from tfport.estimator import Estimator, RunConfig

log = logging.getLogger("tfport")

_FORMATS = ("checkpoint", "saver")


def model_to_estimator(
    keras_model: KerasModel | None = None,
    keras_model_path: str | os.PathLike[str] | None = None,
    custom_objects: Mapping[str, object] | None = None,
    model_dir: str | os.PathLike[str] | None = None,
    config: RunConfig | None = None,
    checkpoint_format: str | None = "checkpoint",
    use_v2_estimator: bool = False,
    metric_names_map: Mapping[str, str] | None = None,
    export_outputs: Mapping[str, type] | None = None,
) -> Estimator:
    """Turns a compiled Keras model (tf_keras or Keras 3 on TensorFlow) into an Estimator.

    The first checkpoint holds the model's current weights (warm start from
    `model_dir/keras/`); when `model_dir` already holds a checkpoint, training
    resumes from it. Features are a tensor or a dict keyed by the model's input
    names (`<first layer>_input` for Sequential); `{"features": ..,
    "sample_weights": ..}` passes sample weights. Predictions are keyed by output
    name, the loss is the compiled total loss (with regularization), eval metrics
    are named as compiled (`<output>_<metric>` on multi-output models).

    Args:
        keras_model: a compiled tf_keras or Keras 3 model (Sequential, Functional or
            subclassed; a subclassed Keras 3 model must be built, e.g. called once).
        keras_model_path: or the path of a saved compiled model (`.h5`, `.keras`, SavedModel).
        custom_objects: custom classes needed to clone/load the model.
        model_dir: where checkpoints go (overrides `config.model_dir`).
        config: a `tfport.estimator.RunConfig` (any `train_distribute` strategy).
        checkpoint_format: "checkpoint" (object-based keys, as Keras writes them) or
            "saver" (name-based keys, as Estimators write them).
        use_v2_estimator: accepted for compatibility; tfport has one Estimator.
        metric_names_map: {compiled metric name: eval metric name}.
        export_outputs: {output name: ExportOutput class} added to `serving_default`.

    Returns:
        A `tfport.estimator.Estimator`.

    Example:
        >>> est = model_to_estimator(keras_model=model, model_dir="/tmp/m")  # doctest: +SKIP
        >>> est.train(input_fn, max_steps=100)  # doctest: +SKIP
    """
    del use_v2_estimator
    import_tf()
    model = _get_model(keras_model, keras_model_path, custom_objects)
    fmt = _check_format(checkpoint_format)
    _check_compiled(model)
    config = _config(config, model_dir)
    from tfport.keras import _tfkeras

    if _tfkeras.is_tf_keras_model(model):
        return _tf_keras_estimator(
            model, custom_objects, config, fmt, metric_names_map, export_outputs
        )
    from tfport.keras import _keras3

    if _keras3.is_keras3_model(model):
        return _keras3_estimator(model, config, fmt, metric_names_map, export_outputs)
    raise TfportInputError(
        message(
            "keras_model must be a tf_keras or Keras 3 Model",
            "Pass a compiled keras.Model",
            keras_model=type(model).__name__,
        )
    )


def _tf_keras_estimator(
    model: KerasModel,
    custom_objects: Mapping[str, object] | None,
    config: RunConfig,
    fmt: str,
    metric_names_map: Mapping[str, str] | None,
    export_outputs: Mapping[str, type] | None,
) -> Estimator:
    from tfport.keras import _tfkeras

    graph_net = _tfkeras.is_graph_network(model)
    if fmt == "checkpoint" and not graph_net:
        raise TfportInputError(
            message(
                f"checkpoint_format='checkpoint' (object-based keys) needs a Functional or "
                f"Sequential model; {type(model).__name__} is a subclassed model",
                "Pass checkpoint_format='saver' (name-based keys) or build the model with the "
                "Functional API",
                checkpoint_format=fmt,
                model=type(model).__name__,
            )
        )
    _tfkeras.check_subclassed(model, custom_objects)
    fn = _tfkeras.ModelFn(
        model, custom_objects, fmt == "checkpoint", metric_names_map, export_outputs
    )
    warm = None
    if graph_net and config.is_chief:
        warm = _tfkeras.save_first_checkpoint(fn, config)
    elif model.built:
        log.warning(
            "model_to_estimator: the subclassed model's current weights are not "
            "carried into the Estimator; it starts from a fresh initialization"
        )
    return KerasEstimator(fn, config=config, warm_start_from=warm)


def _keras3_estimator(
    model: KerasModel,
    config: RunConfig,
    fmt: str,
    metric_names_map: Mapping[str, str] | None,
    export_outputs: Mapping[str, type] | None,
) -> Estimator:
    from tfport.keras import _keras3

    fn = _keras3.ModelFn(model, fmt == "checkpoint", metric_names_map, export_outputs)
    warm = _keras3.save_first_checkpoint(fn, config) if config.is_chief else None
    return KerasEstimator(fn, config=config, warm_start_from=warm)


def _get_model(
    keras_model: KerasModel | None,
    keras_model_path: str | os.PathLike[str] | None,
    custom_objects: Mapping[str, object] | None,
) -> Any:
    if keras_model is None and keras_model_path is None:
        raise TfportInputError(
            message(
                "model_to_estimator needs keras_model or keras_model_path",
                "Pass a compiled Keras model",
                keras_model=None,
                keras_model_path=None,
            )
        )
    if keras_model is not None and keras_model_path is not None:
        raise TfportInputError(
            message(
                "Pass keras_model or keras_model_path, not both",
                "Drop one of them",
                keras_model_path=keras_model_path,
            )
        )
    if keras_model is not None:
        return keras_model
    path = os.fspath(cast("str | os.PathLike[str]", keras_model_path))
    if not os.path.exists(path):
        raise TfportInputError(
            message(
                f"keras_model_path {path} does not exist",
                "Pass a saved Keras model",
                keras_model_path=path,
            )
        )
    if path.endswith(".keras"):
        import keras

        return keras.models.load_model(path, custom_objects=custom_objects)
    import tf_keras

    return tf_keras.models.load_model(path, custom_objects=custom_objects)


def _check_format(fmt: str | None) -> str:
    fmt = "checkpoint" if fmt is None else fmt
    if fmt not in _FORMATS:
        raise TfportInputError(
            message(
                "checkpoint_format must be 'checkpoint' or 'saver'",
                "Pass one of them",
                checkpoint_format=fmt,
            )
        )
    return fmt


def _check_compiled(model: KerasModel) -> None:
    if (
        not getattr(model, "optimizer", None)
        or not getattr(model, "compiled", True)
        or not keras_internals.is_compiled(model)
    ):
        raise TfportInputError(
            message(
                f"The Keras model {getattr(model, 'name', type(model).__name__)!s} has not been "
                "compiled",
                "Call model.compile(optimizer=..., loss=..., metrics=...) before "
                "model_to_estimator()",
                keras_model=type(model).__name__,
            )
        )


def _config(config: RunConfig | None, model_dir: str | os.PathLike[str] | None) -> RunConfig:
    if config is None:
        config = RunConfig()
    elif not isinstance(config, RunConfig):
        raise TfportInputError(
            message(
                "config must be a tfport.estimator.RunConfig",
                "Pass tf.estimator.RunConfig(...) after tfport.install()",
                config=config,
            )
        )
    if model_dir is not None:
        if config.model_dir and os.fspath(model_dir) != config.model_dir:
            log.warning(
                "model_to_estimator: model_dir=%s overrides config.model_dir=%s",
                model_dir,
                config.model_dir,
            )
        return config.replace(model_dir=os.fspath(model_dir))
    if config.model_dir is None:
        path = tempfile.mkdtemp()
        log.warning("Using temporary folder as model directory: %s", path)
        return config.replace(model_dir=path)
    return config


class KerasEstimator(Estimator):
    """An Estimator whose checkpoints may be object-based (keys from the Keras object graph).

    Example:
        >>> est = model_to_estimator(keras_model=model)  # doctest: +SKIP
    """

    def train(self, *args: Any, **kwargs: Any) -> Estimator:
        try:
            return super().train(*args, **kwargs)
        finally:
            self._model_fn.after_graph()

    def evaluate(self, *args: Any, **kwargs: Any) -> dict:
        try:
            return super().evaluate(*args, **kwargs)
        finally:
            self._model_fn.after_graph()

    def predict(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            yield from super().predict(*args, **kwargs)
        finally:
            self._model_fn.after_graph()

    def export_saved_model(self, *args: Any, **kwargs: Any) -> bytes:
        try:
            return super().export_saved_model(*args, **kwargs)
        finally:
            self._model_fn.after_graph()

    export_savedmodel = export_saved_model
