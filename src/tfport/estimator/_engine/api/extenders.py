"""`add_metrics`, `call_logit_fn` and the canned estimators' parse-example specs."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import FeatureColumns, Features, Labels, TFModule
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.building import calls

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator

_METRIC_FN_ARGS = ("labels", "predictions", "features", "config")


class _LazyDType:
    """A `tf.<name>` default that does not import TensorFlow until used."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def resolve(self) -> Any:
        return getattr(import_tf(), self.name)


_INT64, _FLOAT32 = _LazyDType("int64"), _LazyDType("float32")


def add_metrics(estimator: Estimator, metric_fn: Callable[..., object]) -> Any:
    """A new Estimator whose evaluation also reports `metric_fn`'s metrics.

    `metric_fn` takes `predictions` and any of `labels`, `features`, `config`, and returns
    `{name: (value_op, update_op)}` (or a Keras metric object); its metrics replace those
    of the same name.

    Example:
        >>> def my_auc(labels, predictions):
        ...     return {"auc": tf.compat.v1.metrics.auc(labels, predictions["logistic"])}
        >>> est = add_metrics(est, my_auc)  # doctest: +SKIP
    """
    from tfport.estimator._engine.estimator import Estimator

    if not isinstance(estimator, Estimator):
        raise TfportInputError(
            message(
                "add_metrics needs a tf.estimator.Estimator",
                "Pass an Estimator (canned or custom)",
                estimator=type(estimator).__name__,
            )
        )
    args = _check_metric_fn(metric_fn)
    model_fn, params = estimator._model_fn, estimator.params
    old_config = estimator.config

    def new_model_fn(features: Features, labels: Labels, mode: str, config: object) -> Any:
        spec = calls.call_model_fn(model_fn, features, labels, mode, params, config)
        if mode != ModeKeys.EVAL:
            return spec
        values = {
            "labels": labels,
            "predictions": spec.predictions,
            "features": features,
            "config": config,
        }
        new_metrics = metric_fn(**{k: values[k] for k in args})
        if not isinstance(new_metrics, dict):
            raise TfportInputError(
                message(
                    "metric_fn must return a dict {name: (value_op, update_op)}",
                    "Return a dict",
                    returned=type(new_metrics).__name__,
                )
            )
        return spec._replace(eval_metric_ops={**(spec.eval_metric_ops or {}), **new_metrics})

    return Estimator(
        model_fn=new_model_fn,
        model_dir=estimator.model_dir,
        config=old_config,
        warm_start_from=estimator.warm_start_settings,
    )


def _check_metric_fn(metric_fn: object) -> tuple[str, ...]:
    if not callable(metric_fn):
        raise TfportInputError(
            message("metric_fn must be callable", "Pass a function", metric_fn=metric_fn)
        )
    args = calls.fn_args(metric_fn)
    if "predictions" not in args:
        raise TfportInputError(
            message(
                "metric_fn must include a predictions argument",
                "Add `predictions` to metric_fn's arguments",
                metric_fn_args=list(args),
            )
        )
    unexpected = [a for a in args if a not in _METRIC_FN_ARGS]
    if unexpected:
        raise TfportInputError(
            message(
                "metric_fn has unexpected arguments",
                f"Take only {list(_METRIC_FN_ARGS)}",
                unexpected=unexpected,
            )
        )
    return args


def call_logit_fn(
    logit_fn: object, features: Features, mode: str, params: object, config: object
) -> Any:
    """Calls `logit_fn(features, [mode], [params], [config])`; checks it returns logits.

    Example:
        >>> logits = call_logit_fn(my_logit_fn, features, "train", {}, config)  # doctest: +SKIP
    """
    tf = import_tf()
    if not callable(logit_fn):
        raise TfportInputError(
            message("logit_fn must be callable", "Pass a function", logit_fn=logit_fn)
        )
    args = calls.fn_args(logit_fn)
    values = {"mode": mode, "params": params, "config": config}
    logits = logit_fn(features=features, **{k: v for k, v in values.items() if k in args})
    items = logits.values() if isinstance(logits, dict) else [logits]
    if isinstance(logits, dict) and not all(isinstance(k, str) for k in logits):
        items = []
    if not items or not all(isinstance(t, tf.Tensor) for t in items):
        raise TfportInputError(
            message(
                "logit_fn should return a Tensor or a dictionary mapping strings to Tensors",
                "Return the logits",
                returned=logits,
            )
        )
    return logits


def classifier_parse_example_spec(
    feature_columns: FeatureColumns,
    label_key: str,
    label_dtype: object = _INT64,
    label_default: object = None,
    weight_column: object = None,
) -> dict:
    """The `tf.io.parse_example` spec of a classifier's features, label and weight.

    Example:
        >>> spec = classifier_parse_example_spec([age], label_key="y")  # doctest: +SKIP
        >>> spec["y"]  # doctest: +SKIP
        FixedLenFeature(shape=(1,), dtype=tf.int64, default_value=None)
    """
    tf = import_tf()
    dtype = label_dtype.resolve() if isinstance(label_dtype, _LazyDType) else label_dtype
    return _parse_spec(tf, feature_columns, label_key, dtype, label_default, 1, weight_column)


def regressor_parse_example_spec(
    feature_columns: FeatureColumns,
    label_key: str,
    label_dtype: object = _FLOAT32,
    label_default: object = None,
    label_dimension: int = 1,
    weight_column: object = None,
) -> dict:
    """The `tf.io.parse_example` spec of a regressor's features, label and weight.

    Example:
        >>> spec = regressor_parse_example_spec([age], label_key="y")  # doctest: +SKIP
    """
    tf = import_tf()
    dtype = label_dtype.resolve() if isinstance(label_dtype, _LazyDType) else label_dtype
    return _parse_spec(
        tf, feature_columns, label_key, dtype, label_default, label_dimension, weight_column
    )


def _parse_spec(
    tf: TFModule,
    columns: FeatureColumns,
    label_key: object,
    dtype: object,
    default: object,
    dim: object,
    weight: object,
) -> dict:
    if not isinstance(label_key, str):
        raise TfportInputError(
            message(
                "label_key must be a string", "Pass the label's feature name", label_key=label_key
            )
        )
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise TfportInputError(
            message("label_dimension must be a positive int", "Fix it", label_dimension=dim)
        )
    try:
        spec = tf.compat.v1.feature_column.make_parse_example_spec(columns)
    except (TypeError, ValueError) as err:
        raise TfportInputError(
            message(
                "feature_columns must be feature columns",
                "Pass tf.feature_column.* columns",
                error=str(err).splitlines()[0],
            )
        ) from err
    if label_key in spec:
        raise TfportInputError(
            message(
                "label should not be already in feature_columns",
                "Use another label_key",
                label_key=label_key,
            )
        )
    spec[label_key] = tf.io.FixedLenFeature((dim,), dtype, default)
    if weight is not None:
        if not isinstance(weight, str) and not hasattr(weight, "key"):
            raise TfportInputError(
                message(
                    "weight_column must be a string or a numeric_column",
                    "Pass the weight feature's key",
                    weight_column=weight,
                )
            )
        if isinstance(weight, str):
            weight = tf.feature_column.numeric_column(weight)
        weight_spec = tf.compat.v1.feature_column.make_parse_example_spec([weight])
        clash = sorted(set(weight_spec) & {label_key})
        if clash:
            raise TfportInputError(
                message(
                    "weight_column and label_key must differ", "Rename one", label_key=label_key
                )
            )
        spec.update(weight_spec)
    return spec


# -- legacy `extenders`, `exporter` and `parsing_utils` private helpers --------------------
def _verify_metric_fn_args(metric_fn: Callable[..., object]) -> None:
    """ValueError when metric_fn takes arguments other than features/labels/predictions/
    config."""
    unexpected = sorted(set(calls.fn_args(metric_fn)) - set(_METRIC_FN_ARGS))
    if unexpected:
        raise ValueError(f"metric_fn ({metric_fn}) has following not expected args: {unexpected}")


def _call_metric_fn(
    metric_fn: Callable[..., object],
    features: Features,
    labels: Labels,
    predictions: object,
    config: object,
) -> Any:
    """Calls metric_fn with the subset of the four arguments it takes."""
    given = {"features": features, "labels": labels, "predictions": predictions, "config": config}
    taken = set(calls.fn_args(metric_fn))
    return metric_fn(**{k: v for k, v in given.items() if k in taken})


def _verify_compare_fn_args(compare_fn: Callable[..., object]) -> None:
    """ValueError unless compare_fn takes exactly best_eval_result and current_eval_result."""
    args = set(calls.fn_args(compare_fn))
    for needed in ("best_eval_result", "current_eval_result"):
        if needed not in args:
            raise ValueError(f"compare_fn ({compare_fn}) must include {needed} argument.")
    unexpected = sorted(args - {"best_eval_result", "current_eval_result"})
    if unexpected:
        raise ValueError(f"compare_fn ({compare_fn}) has following not expected args: {unexpected}")


def _add_label_and_weight_to_parsing_spec(
    parsing_spec: dict, label_key: str, label_spec: object, weight_column: Any = None
) -> dict:
    """Adds the label's (and a numeric weight column's) parsing spec to `parsing_spec`."""
    tf = import_tf()
    if label_key in parsing_spec:
        raise ValueError(
            f"label should not be used as feature. label_key: {label_key}, features: "
            f"{parsing_spec.keys()}"
        )
    parsing_spec[label_key] = label_spec
    if weight_column is None:
        return parsing_spec
    if isinstance(weight_column, str):
        weight_column = tf.feature_column.numeric_column(weight_column)
    if type(weight_column).__name__ != "NumericColumn":
        raise ValueError(
            "weight_column should be an instance of tf.feature_column.numeric_column. Given "
            f"type: {type(weight_column)} value: {weight_column}"
        )
    if weight_column.key in parsing_spec:
        raise ValueError(
            f"weight_column should not be used as feature. weight_column: {weight_column.key}, "
            f"features: {parsing_spec.keys()}"
        )
    parsing_spec.update(weight_column.parse_example_spec)
    return parsing_spec
