"""DNN logits with the legacy variable names (`dnn/hiddenlayer_N/...`, `dnn/logits/...`).

Both generations build the same graph: feature columns through `input_layer` under
`dnn/input_from_feature_columns`, `tf.compat.v1.layers` dense layers (Glorot uniform
kernels) named `hiddenlayer_N` and `logits`. v1 partitions variables (single partition
`part_0` as legacy did with no parameter servers); v2 does not.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypedDict

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import shared_embeddings
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, TFModule
    from tfport.estimator._engine.api.run_config import RunConfig


class DNNSettings(TypedDict, total=False):
    """The keyword settings of `dnn_logits` that a model binds once for every call.

    Example:
        >>> settings: DNNSettings = dict(units=3, hidden_units=(8,), feature_columns=[])
        >>> sorted(settings)
        ['feature_columns', 'hidden_units', 'units']
    """

    units: int
    hidden_units: Sequence[int]
    feature_columns: FeatureColumns
    activation_fn: Callable[..., object] | str
    dropout: float | None
    batch_norm: bool
    v2: bool


def check_hidden_units(hidden_units: Sequence[int] | None) -> tuple:
    """`hidden_units` as a tuple of positive ints, or a clear error.

    Example:
        >>> check_hidden_units([16, 8])
        (16, 8)
    """
    units = tuple(hidden_units or ())
    if not units or not all(isinstance(u, int) and u > 0 for u in units):
        raise TfportInputError(
            message(
                "hidden_units must be a non-empty list of positive ints",
                "Pass e.g. hidden_units=[64, 32]",
                hidden_units=hidden_units,
            )
        )
    return units


def add_layer_summary(value: Any, tag: str) -> None:
    """The legacy `<tag>/fraction_of_zero_values` and `<tag>/activation` summaries."""
    tf = import_tf()
    tf.compat.v1.summary.scalar(f"{tag}/fraction_of_zero_values", tf.math.zero_fraction(value))
    tf.compat.v1.summary.histogram(f"{tag}/activation", value)


def v1_layers(tf: TFModule) -> Any:
    """`tf.compat.v1.layers`, or tf_keras's TF1 layers when TF's lazy route is unavailable."""
    try:
        tf.compat.v1.layers.dense  # noqa: B018 - probing the lazy loader
        return tf.compat.v1.layers
    except (AttributeError, ImportError):
        import importlib

        return importlib.import_module("tf_keras.api._v1.keras.__internal__.legacy.layers")


def dnn_logits(
    features: dict,
    mode: str,
    *,
    units: int,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str = "relu",
    dropout: float | None = None,
    batch_norm: bool = False,
    input_layer_partitioner: Callable[..., object] | None = None,
    v2: bool = False,
    layer_names: dict | None = None,
) -> Any:
    """Builds the DNN in the current variable scope (the caller opens `dnn`); returns logits.

    `layer_names` maps the layer names (`input_from_feature_columns`, `hiddenlayer_N`,
    `logits`) to the names to use instead: legacy's Keras DNN behind the v2 logit_fn builder
    named its layers after the name scopes they were made in.

    Example:
        >>> with tf.compat.v1.variable_scope("dnn"):  # doctest: +SKIP
        ...     logits = dnn_logits(features, mode, units=3, hidden_units=[16],
        ...                         feature_columns=cols)
    """
    with warnings.catch_warnings():  # tfport's own tf.layers use is not the user's concern
        warnings.filterwarnings("ignore", r".*tf\.layers.* is deprecated", UserWarning)
        return _build(
            features,
            mode,
            units,
            hidden_units,
            feature_columns,
            activation_fn,
            dropout,
            batch_norm,
            input_layer_partitioner,
            v2,
            layer_names or {},
        )


def _build(
    features: dict,
    mode: str,
    units: int,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    batch_norm: bool,
    input_layer_partitioner: Callable[..., object] | None,
    v2: bool,
    names: dict,
) -> Any:
    tf = import_tf()
    v1 = tf.compat.v1
    layers = v1_layers(tf)
    if isinstance(activation_fn, str) and activation_fn == "relu":  # the legacy default
        activation_fn = tf.nn.relu
    training = mode == ModeKeys.TRAIN
    scope_name = v1.get_variable_scope().name
    prefix = f"{scope_name}/" if scope_name else ""  # the summaries' tag scope
    input_scope = names.get("input_from_feature_columns", "input_from_feature_columns")
    with v1.variable_scope(input_scope, partitioner=input_layer_partitioner):
        net = shared_embeddings.input_layer(features, list(feature_columns))
    for i, width in enumerate(hidden_units):
        name = names.get(f"hiddenlayer_{i}", f"hiddenlayer_{i}")
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
            bn_name = f"{name}/batchnorm_{i}" if v2 else f"batchnorm_{i}"
            net = layers.batch_normalization(net, momentum=0.999, training=training, name=bn_name)
        add_layer_summary(net, name if v2 else f"{prefix}{name}")
    logits_name = names.get("logits", "logits")
    logits = layers.dense(
        net,
        units,
        activation=None,
        name=logits_name,
        kernel_initializer=v1.glorot_uniform_initializer(),
    )
    add_layer_summary(logits, logits_name if v2 else f"{prefix}logits")
    return logits


def v1_partitioners(
    config: RunConfig | None, input_layer_partitioner: Callable[..., object] | None
) -> tuple:
    """(dnn partitioner, input layer partitioner) as the v1 model_fns chose them.

    Example:
        >>> v1_partitioners(RunConfig(), None)  # doctest: +SKIP
    """
    tf = import_tf()
    replicas = getattr(config, "num_ps_replicas", 0) or 0
    make = tf.compat.v1.min_max_variable_partitioner
    return (
        make(max_partitions=replicas),
        input_layer_partitioner or make(max_partitions=replicas, min_slice_size=64 << 20),
    )
