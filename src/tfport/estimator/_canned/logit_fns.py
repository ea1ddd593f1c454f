"""`tf.compat.v1.estimator.experimental.dnn_logit_fn_builder` / `linear_logit_fn_builder`.

The returned logit_fns build their variables in the caller's variable scope, with the
names of the canned v1 DNN / Linear models (`hiddenlayer_N/kernel`, `logits/bias`,
`input_from_feature_columns/input_layer/...`, `linear_model/<column>/weights`,
`linear_model/bias_weights`) and the legacy summaries (`dnn/hiddenlayer_N/...`, `bias`,
`fraction_of_zero_weights`).

Example:
    >>> from tfport.estimator._canned.logit_fns import dnn_logit_fn_builder
    >>> fn = dnn_logit_fn_builder(3, [8], [], "relu", None, None, False)
    >>> callable(fn)
    True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import dnn, linear
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, Features

__all__ = ["dnn_logit_fn_builder", "linear_logit_fn_builder"]


def _check_units(units: int) -> int:
    if isinstance(units, bool) or not isinstance(units, int):
        raise TfportInputError(
            message("units must be an int", "Pass the logits dimension", units=units)
        )
    return units


def dnn_logit_fn_builder(
    units: int,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    input_layer_partitioner: Callable[..., object] | None,
    batch_norm: bool,
) -> Callable:
    """A `logit_fn(features, mode)` building the canned DNN in the current variable scope.

    Args:
        units: dimension of the logits.
        hidden_units: widths of the hidden layers.
        feature_columns: the columns read through `input_layer`.
        activation_fn: activation of the hidden layers.
        dropout: drop probability in training, or None.
        input_layer_partitioner: partitioner of the input layer's variables, or None.
        batch_norm: batch normalization after each hidden layer.

    Returns:
        `logit_fn(features, mode) -> logits` of shape `[batch, units]`.

    Example:
        >>> fn = dnn_logit_fn_builder(3, [8], cols, tf.nn.relu, None, None, False)
        ... # doctest: +SKIP
        >>> with tf.compat.v1.variable_scope("dnn"):  # doctest: +SKIP
        ...     logits = fn(features, mode)
    """
    units = _check_units(units)
    hidden = tuple(hidden_units or ())

    def dnn_logit_fn(features: Features, mode: str) -> Any:
        with warnings.catch_warnings():  # tfport's own tf.layers use
            warnings.filterwarnings("ignore", r".*tf\.layers.* is deprecated", UserWarning)
            return _dnn(
                features,
                mode,
                units,
                hidden,
                feature_columns,
                activation_fn,
                dropout,
                input_layer_partitioner,
                batch_norm,
            )

    return dnn_logit_fn


def _dnn(
    features: Features,
    mode: str,
    units: int,
    hidden: tuple,
    columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    partitioner: Callable[..., object] | None,
    batch_norm: bool,
) -> Any:
    tf = import_tf()
    v1 = tf.compat.v1
    layers = dnn.v1_layers(tf)
    training = mode == ModeKeys.TRAIN
    with v1.variable_scope("input_from_feature_columns", partitioner=partitioner):
        net = v1.feature_column.input_layer(features, list(columns))
    for i, width in enumerate(hidden):
        name = f"hiddenlayer_{i}"
        net = layers.dense(
            net,
            width,
            activation=activation_fn,
            name=name,
            kernel_initializer=v1.glorot_uniform_initializer(),
        )
        if dropout is not None and training:
            net = layers.dropout(net, rate=dropout, training=True)
        if batch_norm:
            net = layers.batch_normalization(
                net, momentum=0.999, training=training, name=f"batchnorm_{i}"
            )
        dnn.add_layer_summary(net, f"dnn/{name}")
    logits = layers.dense(
        net,
        units,
        activation=None,
        name="logits",
        kernel_initializer=v1.glorot_uniform_initializer(),
    )
    dnn.add_layer_summary(logits, "dnn/logits")
    return logits


def linear_logit_fn_builder(
    units: int, feature_columns: FeatureColumns, sparse_combiner: str = "sum"
) -> Callable:
    """A `logit_fn(features)` building the canned linear model in the current variable scope.

    Args:
        units: dimension of the logits.
        feature_columns: the columns of the linear model.
        sparse_combiner: how multivalent categorical columns combine (`'sum'`, `'mean'`,
            `'sqrtn'`).

    Returns:
        `logit_fn(features) -> logits` of shape `[batch, units]`.

    Example:
        >>> fn = linear_logit_fn_builder(3, cols)  # doctest: +SKIP
        >>> with tf.compat.v1.variable_scope("linear"):  # doctest: +SKIP
        ...     logits = fn(features)
    """
    units = _check_units(units)

    def linear_logit_fn(features: dict[str, object]) -> Any:
        logits, bias, weights = linear.linear_logits(
            features, feature_columns, units, sparse_combiner
        )
        linear.add_linear_summaries(bias, weights, units)
        return logits

    return linear_logit_fn
