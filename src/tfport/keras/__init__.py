"""`tfport.keras`: Keras models as Estimators (`model_to_estimator`) and back
(`load_estimator_weights`; canned estimators: `estimator_to_keras`)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.types import KerasModel, LossRecorderHook

if TYPE_CHECKING:  # no TensorFlow at import time: the types only for type checkers
    from types import ModuleType

    import numpy as np

    from tfport.estimator import Estimator, RunConfig


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
    """Turns a compiled Keras model into a `tfport.estimator.Estimator`.

    The arguments are legacy `tf.keras.estimator.model_to_estimator`'s; see
    `tfport.keras._model_to_estimator.model_to_estimator` for each.

    Example:
        >>> est = model_to_estimator(keras_model=model, model_dir="/tmp/m")  # doctest: +SKIP
    """
    from tfport.keras._model_to_estimator import model_to_estimator as impl

    return impl(
        keras_model,
        keras_model_path,
        custom_objects,
        model_dir,
        config,
        checkpoint_format,
        use_v2_estimator,
        metric_names_map,
        export_outputs,
    )


def graph_optimizer_methods() -> list:
    """`(class, name, function)` for the graph-mode methods (`get_updates`, `get_gradients`)
    that `tfport.install()` adds to tf_keras's current optimizers, as TF 2.0 had them.

    Example:
        >>> names = [name for _, name, _ in graph_optimizer_methods()]  # doctest: +SKIP
    """
    from tfport.keras._optimizers import graph_methods

    return graph_methods()


def load_estimator_weights(keras_model: KerasModel, model_dir: str) -> Any:
    """Loads the weights an Estimator trained into `keras_model` (Keras 2 or 3).

    Example:
        >>> load_estimator_weights(model, "/tmp/m")  # doctest: +SKIP
    """
    from tfport.keras._weights import load_estimator_weights as impl

    return impl(keras_model, model_dir)


def estimator_to_keras(
    estimator: Estimator,
    checkpoint_path: str | None = None,
    *,
    input_shapes: dict | None = None,
    baseline_input: str | None = None,
) -> Any:
    """A canned estimator (DNN*, Linear*, DNNLinearCombined*, Baseline*; v1 or v2) as a
    Keras 3 functional model with the checkpoint's weights and the same predictions.

    The way back of `model_to_estimator`: a Keras model trained as an Estimator returns
    with `load_estimator_weights`; a canned estimator returns with this function. The
    model uses built-in Keras 3 layers and `keras.ops` only, so its `.keras` file loads
    with `safe_mode=True` where tfport is not installed. See
    `tfport.keras._export.estimator_to_keras` for the arguments.

    Example:
        >>> model = estimator_to_keras(est)  # doctest: +SKIP
        >>> model.save("est.keras")  # doctest: +SKIP
    """
    from tfport.keras._export import estimator_to_keras as impl

    return impl(
        estimator, checkpoint_path, input_shapes=input_shapes, baseline_input=baseline_input
    )


def save_keras(model: KerasModel, path: str, overwrite: bool = False) -> str:
    """Saves a Keras 3 model to a `.keras` file atomically (refuses to overwrite by default).

    Example:
        >>> save_keras(model, "est.keras")  # doctest: +SKIP
    """
    from tfport.keras._export import save_keras as impl

    return impl(model, path, overwrite)


def one_training_step(
    estimator: Estimator,
    make: Callable[[str], Estimator],
    model: KerasModel,
    features: dict,
    labels: np.ndarray | None = None,
    seed: int = 0,
) -> dict:
    """One training step of a canned estimator and of its Keras 3 export from the same
    weights (the estimator's optimizer and head loss as exact Keras 3 ones; `make(model_dir)`
    makes the estimator again). Used by `tfport verify --train-step`; see
    `tfport.keras._export.one_step`.

    Example:
        >>> step = one_training_step(est, make, model, features)  # doctest: +SKIP
    """
    from tfport.keras._export import one_step as impl

    return impl(estimator, make, model, features, labels, seed)


def loss_recorder() -> LossRecorderHook:
    """A training hook recording the loss of an Estimator's step (its `loss` summary) in
    its `value`; `verify --train-step` reads the Estimator's step with it.

    Example:
        >>> hook = loss_recorder()  # doctest: +SKIP
        >>> estimator.train(input_fn, steps=1, hooks=[hook]); hook.value  # doctest: +SKIP
        0.693
    """
    from tfport.keras._export import LossHook

    return LossHook()


def export_model_fn(
    estimator: Estimator,
    out: str,
    *,
    factory: str = "",
    checkpoint: str | None = None,
    input_shapes: dict | None = None,
    overwrite: bool = False,
    check_on: Sequence[str] = ("tensorflow",),
    training: bool = False,
) -> dict:
    """Writes OUT (a folder): any Estimator's model_fn as Keras 3 code (`model.py`), its
    checkpoint's weights, `model.keras` and `report.json`; returns the report. With
    `training`, model.keras is compiled with the model_fn's loss and optimizer (its
    checkpoint state) so that `fit` continues the training. See
    `tfport.keras._modelfn.export_model_fn` for the arguments.

    Example:
        >>> report = export_model_fn(est, "out", training=True)  # doctest: +SKIP
    """
    from tfport.keras._modelfn import export_model_fn as impl

    return impl(
        estimator,
        out,
        factory=factory,
        checkpoint=checkpoint,
        input_shapes=input_shapes,
        overwrite=overwrite,
        check_on=check_on,
        training=training,
    )


def sealed_code(folder: str) -> dict[str, bytes] | None:
    """The code files of a `tfport keras export` folder (`model.py`, and `preprocess.py`
    where the model_fn parsed tf.Examples) by name, when `tfport keras export` on this
    machine wrote exactly these bytes (report.json carries this user's seal of them); else
    None: code to read before importing.

    Example:
        >>> sorted(sealed_code("out"))  # doctest: +SKIP
        ['model.py']
    """
    from tfport.keras._modelfn import sealed_code as impl

    return impl(folder)


def export_code(folder: str) -> dict[str, bytes]:
    """The code files an export folder holds (`model.py`, `preprocess.py`), by name.

    Example:
        >>> sorted(export_code("out"))  # doctest: +SKIP
        ['model.py']
    """
    from tfport.keras._modelfn import export_code as impl

    return impl(folder)


def import_model_py(folder: str, source: bytes | None = None, name: str = "model.py") -> ModuleType:
    """Imports an export folder's `model.py` (its layers register with Keras), or its
    `preprocess.py` (`name`); runs `source` instead of the file's current bytes when given.

    Example:
        >>> import_model_py("out").build_model()  # doctest: +SKIP
    """
    from tfport.keras._modelfn import import_model_py as impl

    return impl(folder, source, name)


__all__ = [
    "model_to_estimator",
    "sealed_code",
    "export_code",
    "import_model_py",
    "export_model_fn",
    "load_estimator_weights",
    "estimator_to_keras",
    "save_keras",
    "one_training_step",
    "loss_recorder",
]
