"""Calling user code: input_fn and model_fn with the arguments they accept."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, InputFn, Labels, ModelFn, Session, TFModule
from tfport.estimator._engine import console
from tfport.estimator._engine.spec import EstimatorSpec

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

_MODEL_FN_ARGS = ("features", "labels", "mode", "params", "config")


def fn_args(fn: Callable[..., object]) -> tuple[str, ...]:
    """Returns the argument names `fn` accepts (unwrapping partials and methods).

    Example:
        >>> fn_args(lambda features, mode: None)
        ('features', 'mode')
    """
    sig = inspect.signature(fn)
    return tuple(
        name
        for name, p in sig.parameters.items()
        if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.POSITIONAL_ONLY)
    )


def check_model_fn(model_fn: ModelFn) -> tuple[str, ...]:
    """Validates a model_fn's signature; returns its argument names.

    Example:
        >>> check_model_fn(lambda features, labels, mode: None)
        ('features', 'labels', 'mode')
    """
    if not callable(model_fn):
        raise TfportInputError(
            message("model_fn must be callable", "Pass a function", model_fn=model_fn)
        )
    args = fn_args(model_fn)
    if "features" not in args:
        raise TfportInputError(
            message(
                "model_fn must take a `features` argument",
                "Define model_fn(features, labels, mode, params, config) or a subset of it",
                model_fn_args=args,
            )
        )
    unknown = [a for a in args if a not in _MODEL_FN_ARGS and a != "self"]
    sig = inspect.signature(model_fn)
    unknown = [a for a in unknown if sig.parameters[a].default is inspect.Parameter.empty]
    if unknown:
        raise TfportInputError(
            message(
                "model_fn takes arguments the Estimator cannot supply",
                f"Use only {list(_MODEL_FN_ARGS)}",
                model_fn_args=args,
            )
        )
    return args


def call_model_fn(
    model_fn: Any,
    features: Features,
    labels: Labels,
    mode: str,
    params: dict,
    config: object,
    deferred: list | None = None,
) -> EstimatorSpec:
    """Calls model_fn with the subset of arguments it takes; checks what it returns.

    A TPUEstimatorSpec becomes an EstimatorSpec; when `deferred` is a list its
    `scaffold_fn` is appended there instead of being called, so the graph builder
    can call it once, outside any replica or loop body.

    Example:
        >>> spec = call_model_fn(fn, feats, labels, ModeKeys.TRAIN, {}, config)  # doctest: +SKIP
    """
    args = fn_args(model_fn)
    kwargs: dict[str, Any] = {}
    if "labels" in args:
        kwargs["labels"] = labels
    elif labels is not None and mode != "infer":
        raise TfportInputError(
            message(
                "input_fn returned labels but model_fn takes no `labels` argument",
                "Add `labels` to model_fn's arguments or return only features",
                model_fn_args=args,
            )
        )
    if "mode" in args:
        kwargs["mode"] = mode
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    with console.calling_model_fn():
        spec = model_fn(features=features, **kwargs)
    if hasattr(spec, "as_estimator_spec") and not isinstance(spec, EstimatorSpec):
        scaffold_fn = getattr(spec, "scaffold_fn", None)
        if deferred is not None and scaffold_fn is not None:
            deferred.append(scaffold_fn)
            spec = spec._replace(scaffold_fn=None)
        spec = spec.as_estimator_spec()
    if not isinstance(spec, EstimatorSpec):
        raise TfportInputError(
            message(
                f"model_fn must return an EstimatorSpec (mode {mode})",
                "Return tfport.estimator.EstimatorSpec(mode, ...) (tf.estimator.EstimatorSpec "
                "after tfport.install())",
                returned=type(spec).__name__,
            )
        )
    if spec.mode != mode:
        raise TfportInputError(
            message(
                "model_fn returned an EstimatorSpec for another mode",
                "Pass the `mode` argument through to EstimatorSpec",
                expected=mode,
                returned=spec.mode,
            )
        )
    return spec


def call_input_fn(
    input_fn: InputFn, mode: str, params: dict, config: object, device: str | None = "/cpu:0"
) -> Any:
    """Calls input_fn on the CPU with the arguments it takes (`params`, `config`, `mode`).

    Example:
        >>> call_input_fn(lambda: ({"x": [[1.0]]}, [0]), "train", {}, None)  # doctest: +SKIP
    """
    if not callable(input_fn):
        raise TfportInputError(
            message(
                "input_fn must be a callable returning a tf.data.Dataset or (features, labels)",
                "Pass the function itself, not its result",
                input_fn=input_fn,
            )
        )
    # numpy_input_fn / pandas_input_fn: the Dataset itself, not the tensors their
    # input_fn returns in a graph (legacy's queue outputs), so batches can be split.
    input_fn = getattr(input_fn, "_tfport_dataset_fn", input_fn)
    args = fn_args(input_fn)
    kwargs: dict[str, Any] = {}
    if "params" in args:
        kwargs["params"] = params
    if "config" in args:
        kwargs["config"] = config
    if "mode" in args:
        kwargs["mode"] = mode
    tf = import_tf()
    with tf.device(device):
        return input_fn(**kwargs)


def dataset_initializer_hook(iterator: object) -> Any:
    """A SessionRunHook that initializes `iterator` once the session exists.

    Example:
        >>> hook = dataset_initializer_hook(iterator)  # doctest: +SKIP
    """
    return _DatasetInitializerHook(iterator)


class _DatasetInitializerHook(_SessionRunHook):
    """Initializes a v1 dataset iterator once the session exists (legacy `util`'s too)."""

    def __init__(self, iterator: Any) -> None:
        self._iterator = iterator

    def begin(self) -> None:
        self._initializer = self._iterator.initializer  # built before the graph is finalized

    def after_create_session(self, session: Session, coord: object) -> None:
        del coord
        session.run(self._initializer)


def parse_input_result(result: object, mode: str) -> tuple[Any, Any, list]:
    """Turns input_fn's result into `(features, labels, hooks)`.

    Example:
        >>> parse_input_result(({"x": x}, y), "train")  # doctest: +SKIP
    """
    tf = import_tf()
    hooks: list = []
    if isinstance(result, tf.data.Dataset):
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(dataset_initializer_hook(iterator))
        result = iterator.get_next()
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise TfportInputError(
                message(
                    "input_fn must return (features, labels) or a Dataset of them",
                    "Return a 2-tuple, features alone, or a tf.data.Dataset",
                    tuple_length=len(result),
                )
            )
        features, labels = result
    else:
        features, labels = result, None
    if not _is_features(tf, features):
        raise TfportInputError(
            message(
                "input_fn must return a tf.data.Dataset, a (features, labels) pair or features "
                "(a tensor, numpy array or Python list, or a dict of them)",
                "Return tf.data.Dataset.from_tensor_slices(...).batch(...) or tensors",
                received=describe(result),
            )
        )
    return features, labels, hooks


def describe(value: object, limit: int = 160) -> str:
    """A short description of what an input_fn returned: its type and a cut repr.

    Example:
        >>> describe({"x": object})
        "dict {'x': <class 'object'>}"
    """
    text = repr(value)
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return f"{type(value).__name__} {text}"


def _is_nested(tf: TFModule, value: object) -> bool:
    """A tuple/list of features inside a features dict (a time-series `start_tuple`)."""
    return isinstance(value, (tuple, list)) and all(_is_features(tf, v) for v in value)


def _is_features(tf: TFModule, features: object, in_dict: bool = False) -> bool:
    """Tensors, numpy arrays, Python lists (converted by the model_fn's ops, as legacy passed
    them through), or a dict of them (whose values may also be Python scalars)."""
    if isinstance(features, dict):
        return all(_is_features(tf, v, True) or _is_nested(tf, v) for v in features.values())
    if isinstance(features, list) or (in_dict and isinstance(features, (int, float, str, bytes))):
        return True
    return isinstance(features, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)) or (
        hasattr(features, "dtype") and hasattr(features, "shape")
    )
