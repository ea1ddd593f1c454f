"""Small helpers of the time-series models: a dense layer, and prediction times."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfport._common.tfenv import import_tf
from tfport.estimator._canned.timeseries import feature_keys


def fully_connected(
    inp: Any,
    inp_size: int,
    layer_size: int,
    name: str,
    activation: Any = "relu",
    dtype: object = None,
) -> Any:
    """`activation(inp @ {name}_weight + {name}_bias)` with `get_variable` weights.

    `activation` defaults to `tf.nn.relu` (the string stands for it); None for linear.

    Example:
        >>> out = fully_connected(x, 4, 2, name="layer")  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    weight = v1.get_variable(
        name=f"{name}_weight", shape=[inp_size, layer_size], dtype=dtype or tf.float32
    )
    bias = v1.get_variable(
        name=f"{name}_bias", shape=[layer_size], initializer=v1.initializers.zeros()
    )
    output = v1.nn.xw_plus_b(inp, weight, bias)
    if activation == "relu":
        activation = tf.nn.relu
    if activation is not None:
        if not callable(activation):
            raise TypeError(f"activation must be callable or None. Received: {activation!r}")
        output = activation(output)
    return output


def canonicalize_times_or_steps_from_output(
    times: Any, steps: int | None, previous_model_output: dict
) -> np.ndarray:
    """The `[batch, n]` times to predict after `previous_model_output`'s last time.

    Exactly one of `times` (explicit, after the previous output) and `steps` (that many
    consecutive times after it) is given.

    Example:
        >>> canonicalize_times_or_steps_from_output(None, 2, {"times": np.array([[3, 4]])})
        array([[5, 6]])
    """
    if steps is not None and times is not None:
        raise ValueError("Only one of `steps` and `times` may be specified.")
    if steps is None and times is None:
        raise ValueError("One of `steps` and `times` must be specified.")
    previous = previous_model_output[feature_keys.FilteringResults.TIMES]
    if steps is not None:
        return previous[:, -1:] + 1 + np.arange(steps)[None, ...]
    times = np.array(times)
    if times.ndim != 2:
        times = times[None, ...]
    if previous.shape[0] != times.shape[0]:
        raise ValueError(
            "`times` must have a batch dimension matching the previous model output (got a "
            f"batch dimension of {times.shape[0]} for `times` and {previous.shape[0]} for "
            "the previous model output)."
        )
    if not (previous[:, -1] < times[:, 0]).all():
        raise ValueError("Prediction times must be after the corresponding previous model output.")
    return times
