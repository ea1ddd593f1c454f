"""Metric pairs from a spec's `eval_metric_ops` (v1 `(value, update)` tuples or Keras Metrics)."""

from __future__ import annotations

from collections.abc import Iterable

from tfport._common.errors import TfportInputError, message
from tfport._common.types import TFModule

LOSS_KEY = "loss"


def metric_pairs(tf: TFModule, eval_metric_ops: dict) -> dict:
    """`{name: (value_op, update_op)}` from a spec's eval_metric_ops (tuples or Keras Metrics).

    Example:
        >>> metric_pairs(tf, {"acc": tf.compat.v1.metrics.accuracy(y, p)})  # doctest: +SKIP
    """
    if LOSS_KEY in eval_metric_ops:
        raise TfportInputError(
            message(
                "eval_metric_ops must not contain the key 'loss' (the Estimator adds it)",
                "Rename your metric",
                eval_metric_ops=sorted(eval_metric_ops),
            )
        )
    pairs = {}
    for key, metric in eval_metric_ops.items():
        if hasattr(metric, "result") and hasattr(metric, "update_state"):
            as_local_variables(tf.compat.v1, metric.variables)
            pairs[key] = (metric.result(), tf.group(*(getattr(metric, "updates", None) or [])))
        else:
            pairs[key] = tuple(metric)
    return pairs


def as_local_variables(v1: TFModule, variables: Iterable[object]) -> None:
    """Keras metric variables live outside TF1 collections; make local_init_op cover them."""
    local = v1.get_collection_ref(v1.GraphKeys.LOCAL_VARIABLES)
    for var in variables:
        if var not in local:
            local.append(var)
