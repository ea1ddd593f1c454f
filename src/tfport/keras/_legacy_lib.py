"""Legacy `keras_lib`'s private functions (model_to_estimator's parts) over tfport's.

Libraries and tests written against TF 2.15 build Keras model_fns and checkpoints with
`keras_lib._create_keras_model_fn(keras_model)`, `_save_first_checkpoint`,
`_convert_estimator_io_to_keras`, `_extract_sample_weight_tensors`, ... Each serves the
same parts `tfport.keras.model_to_estimator` is made of (tf_keras models and Keras 3
models alike); `tfport._legacy_tree` places them under `keras_lib`.

Example:
    >>> model_fn = _create_keras_model_fn(model)  # doctest: +SKIP
    >>> est = tf.estimator.Estimator(model_fn)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Features, KerasModel, Labels, Tensor
from tfport.keras import _inputs

if TYPE_CHECKING:
    from tfport.estimator import RunConfig


def _model_fn_object(
    keras_model: KerasModel,
    custom_objects: Mapping[str, object] | None = None,
    save_object_ckpt: bool = False,
    metric_names_map: Mapping[str, str] | None = None,
    export_outputs: Mapping[str, type] | None = None,
) -> Any:
    from tfport.keras import _keras3

    if _keras3.is_keras3_model(keras_model):
        return _keras3.ModelFn(keras_model, save_object_ckpt, metric_names_map, export_outputs)
    from tfport.keras import _tfkeras

    _tfkeras.check_subclassed(keras_model, custom_objects)
    return _tfkeras.ModelFn(
        keras_model, custom_objects, save_object_ckpt, metric_names_map, export_outputs
    )


def _create_keras_model_fn(
    keras_model: KerasModel,
    custom_objects: Mapping[str, object] | None = None,
    save_object_ckpt: bool = False,
    metric_names_map: Mapping[str, str] | None = None,
    export_outputs: Mapping[str, type] | None = None,
) -> Callable[..., Any]:
    """The model_fn(features, labels, mode) model_to_estimator trains `keras_model` with."""
    fn = _model_fn_object(
        keras_model, custom_objects, save_object_ckpt, metric_names_map, export_outputs
    )

    def model_fn(features: Features, labels: Labels, mode: str) -> Any:
        try:
            return fn(features, labels, mode)
        finally:
            after = getattr(fn, "after_graph", None)
            if after is not None:  # the eager model works again once the graph is built
                after()

    return model_fn


def _save_first_checkpoint(
    keras_model: KerasModel,
    custom_objects: Mapping[str, object] | None,
    config: RunConfig,
    save_object_ckpt: bool,
) -> Any:
    """Writes the model's weights to `model_dir/keras/keras_model.ckpt` (once) and returns
    what the Estimator warm-starts from."""
    fn = _model_fn_object(keras_model, custom_objects, save_object_ckpt)
    if hasattr(fn, "after_graph"):
        from tfport.keras import _tfkeras

        try:
            return _tfkeras.save_first_checkpoint(fn, config)
        finally:
            fn.after_graph()
    from tfport.keras import _keras3

    return _keras3.save_first_checkpoint(fn, config)


def _assert_valid_model(
    model: KerasModel, custom_objects: Mapping[str, object] | None = None
) -> None:
    """Refuses a subclassed model that cannot rebuild itself from its config."""
    from tfport.keras import _keras3, _tfkeras

    if not _keras3.is_keras3_model(model):
        _tfkeras.check_subclassed(model, custom_objects)


def _convert_estimator_io_to_keras(
    keras_model: KerasModel, features: Features, labels: Labels
) -> tuple:
    """`(inputs, targets, sample_weights)` of a graph model, ordered by its inputs/outputs."""
    from tfport.keras import _tfkeras

    return _tfkeras._to_keras_io(keras_model, features, labels)


def _extract_sample_weight_tensors(features: Features) -> tuple:
    """`(features, sample_weights)` of `{"features": ..., "sample_weights": ...}`."""
    return _inputs.split_sample_weights(features)


def _convert_tensor(x: Tensor) -> Any:
    """`x` as a tensor (SparseTensors unchanged)."""
    tf = import_tf()
    return x if isinstance(x, tf.SparseTensor) else tf.convert_to_tensor(x)


def _cast_tensor_to_floatx(x: Tensor) -> Any:
    """`x` cast to Keras' float type (`float32` by default) when it is not already."""
    tf = import_tf()
    floatx = tf.keras.backend.floatx()
    return x if x.dtype == floatx else tf.cast(x, floatx)


def _any_weight_initialized(keras_model: KerasModel) -> bool:
    """Whether the model's weights hold values (always, outside graph building)."""
    if keras_model is None:
        return False
    tf = import_tf()
    if tf.compat.v1.executing_eagerly_outside_functions():
        return True
    from tfport._common import keras_internals

    return any(
        keras_internals.keras_initialized(weight)
        for layer in keras_model.layers
        for weight in layer.weights
    )


def _convert_keras_metrics_to_estimator(
    model: KerasModel, metric_names_map: Mapping[str, str] | None = None
) -> Any:
    """The compiled metrics of a graph-mode clone as eval metric ops (mapped names)."""
    from tfport.keras import _metrics

    return _metrics.keras2_metric_ops(model, metric_names_map)


def _clone_and_build_model(
    mode: str,
    keras_model: KerasModel,
    custom_objects: Mapping[str, object] | None,
    features: Features | None = None,
    labels: Labels = None,
    optimizer_config: dict[str, object] | None = None,
) -> Any:
    """A tf_keras model cloned into the current graph on the Estimator's tensors, compiled
    (outside PREDICT) with its optimizer, or with `optimizer_config`'s hyperparameters."""
    from tfport.keras import _keras3, _tfkeras

    if _keras3.is_keras3_model(keras_model):
        raise ValueError(
            "_clone_and_build_model clones tf.keras (tf_keras) models as legacy did; pass a "
            "Keras 3 model to tf.keras.estimator.model_to_estimator instead."
        )
    fn = _tfkeras.ModelFn(keras_model, custom_objects, False)
    if optimizer_config is not None:
        fn._opt_config = optimizer_config
    try:
        return _tfkeras.clone_and_compile(fn, mode, features, labels)
    finally:
        fn.after_graph()


def _get_file_from_google_storage(keras_model_path: str, model_dir: str) -> str:
    """Copies a Keras model file from Cloud Storage to `model_dir/keras/keras_model.h5`."""
    import logging
    import os

    tf = import_tf()
    folder = os.path.join(model_dir, "keras")
    tf.io.gfile.makedirs(folder)
    local = os.path.join(folder, "keras_model.h5")
    try:
        tf.io.gfile.copy(keras_model_path, local, overwrite=True)
    except (tf.errors.OpError, OSError) as e:
        raise ValueError(
            f"Failed to download keras model from {keras_model_path}: {e}. Check the "
            "GOOGLE_APPLICATION_CREDENTIALS environment variable and the model path."
        ) from e
    logging.getLogger("tensorflow").info("Saving model to %s", local)
    return local


def model_to_estimator(
    keras_model: Any = None,
    keras_model_path: Any = None,
    custom_objects: Any = None,
    model_dir: Any = None,
    config: Any = None,
    checkpoint_format: Any = None,
    use_v2_estimator: bool = False,
    metric_names_map: Any = None,
    export_outputs: Any = None,
) -> Any:
    """Legacy `keras_lib.model_to_estimator`: an Estimator from a Keras model.

    Example:
        >>> est = model_to_estimator(keras_model=model)  # doctest: +SKIP
    """
    from tfport.keras._model_to_estimator import model_to_estimator as convert

    return convert(
        keras_model=keras_model,
        keras_model_path=keras_model_path,
        custom_objects=custom_objects,
        model_dir=model_dir,
        config=config,
        checkpoint_format=checkpoint_format or "checkpoint",
        use_v2_estimator=use_v2_estimator,
        metric_names_map=metric_names_map,
        export_outputs=export_outputs,
    )


class FormattedKeyError(KeyError):
    """A KeyError whose message is printed as given (legacy `keras_lib`)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __str__(self) -> str:
        return self.message


def standardize_sample_weights(x_weight: Any, output_names: list) -> dict:
    """`{output name: weight}` from None, a list (by position) or a dict (legacy `keras_lib`).

    Example:
        >>> standardize_sample_weights([1.0], ["out"])
        {'out': 1.0}
    """
    if x_weight is None or (isinstance(x_weight, (list, tuple)) and not x_weight):
        return {name: None for name in output_names}
    if isinstance(x_weight, dict):
        unknown = set(x_weight) - set(output_names)
        if unknown:
            raise ValueError(f"Unknown entries in sample weights: {sorted(unknown)}")
        return {name: x_weight.get(name) for name in output_names}
    weights = list(x_weight) if isinstance(x_weight, (list, tuple)) else [x_weight]
    if len(weights) != len(output_names):
        raise ValueError(f"Provided {len(weights)} sample weights for {len(output_names)} outputs")
    return dict(zip(output_names, weights))
