"""Eval metrics of compiled Keras models, named as the legacy `model_to_estimator` named them."""

from __future__ import annotations

from collections.abc import Mapping

from tfport._common import keras_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasModel


def keras2_metric_ops(clone: KerasModel, names_map: Mapping[str, str] | None) -> dict | None:
    """The compiled metrics of a graph-mode tf_keras clone, keyed by their (mapped) names.

    tf_keras names them as `model.metrics_names` does: the compiled name, prefixed
    with `<output>_` on multi-output models (made unique with `_1`, `_2`, ...).

    Example:
        >>> keras2_metric_ops(clone, None)  # doctest: +SKIP
        {'accuracy': <MeanMetricWrapper ...>}
    """
    if not keras_internals.compiled_metrics(clone):
        return None
    metrics = keras_internals.compiled_metric_functions(clone)
    _as_local_variables([v for m in metrics for v in m.variables])
    return rename({m.name: m for m in metrics}, names_map)


def _as_local_variables(variables: list) -> None:
    """Keras metric variables join LOCAL_VARIABLES so every local_init_op covers them."""
    from tfport._common.tfenv import import_tf

    v1 = import_tf().compat.v1
    for key in (v1.GraphKeys.LOCAL_VARIABLES, v1.GraphKeys.METRIC_VARIABLES):
        collection = v1.get_collection_ref(key)
        for var in variables:
            if not any(var is x for x in collection):
                collection.append(var)


def rename(metrics: dict, names_map: Mapping[str, str] | None) -> dict:
    """Applies `metric_names_map`, which must name every metric exactly once.

    Example:
        >>> rename({"acc": 1}, {"acc": "accuracy"})
        {'accuracy': 1}
    """
    if not names_map:
        return metrics
    expected, given = set(metrics), set(names_map)
    if expected != given:
        raise TfportInputError(
            message(
                "metric_names_map must map exactly the model's metric names",
                f"Missing: {sorted(expected - given)}; unknown: {sorted(given - expected)}",
                expected_keys=sorted(expected),
                received_keys=sorted(given),
            )
        )
    return {names_map[name]: metric for name, metric in metrics.items()}
