"""Calling a model_fn with the arguments it accepts, and legacy's checks of them.

The input_fn's calls and results are `inputs`' (its one owner)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.types import Features, Labels, ModelFn, Params
from tfport.estimator._engine.api.spec import EstimatorSpec
from tfport.estimator._engine.running import console

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


def _verify_model_fn_args(model_fn: ModelFn, params: Params | None) -> None:
    """Legacy's checks of a model_fn's arguments against `params` (ValueError)."""
    args = set(fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(
            f"model_fn ({model_fn}) does not include params argument, but params ({params}) "
            "is passed to Estimator."
        )
    if params is None and "params" in args:
        logging.getLogger("tensorflow").warning(
            "Estimator's model_fn (%s) includes params argument, but params are not passed "
            "to Estimator.",
            model_fn,
        )
    unexpected = sorted(args - {"features", "labels", "mode", "params", "self", "config"})
    if unexpected:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: {unexpected}")
