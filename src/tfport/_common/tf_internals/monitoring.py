"""TensorFlow internals of monitoring: the usage gauges of `eager.monitoring` that the
Estimator API kept (`/tensorflow/api/estimator`, ...).

Example:
    >>> from tfport._common.tf_internals import monitoring
    >>> ("eager.monitoring", "BoolGauge") in monitoring.SYMBOLS
    True
"""

from __future__ import annotations

from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("eager.monitoring", "BoolGauge"),
    ("eager.monitoring", "StringGauge"),
)
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = ()


def bool_gauge(name: str, description: str, *labels: str) -> Any:
    """`eager.monitoring.BoolGauge(name, description, *labels)` (TF >= 2.1): a usage gauge
    like the ones legacy Estimator modules kept (`_estimator_api_gauge`)."""
    return tf_symbol("eager.monitoring", "BoolGauge")(name, description, *labels)


def string_gauge(name: str, description: str, *labels: str) -> Any:
    """`eager.monitoring.StringGauge(name, description, *labels)` (TF >= 2.1)."""
    return tf_symbol("eager.monitoring", "StringGauge")(name, description, *labels)
