"""The RNN model of `tf.estimator.experimental.RNNClassifier` / `RNNEstimator`.

A Keras (tf_keras) model named `rnn_model`: `SequenceFeatures` over the sequence columns
(variables `sequence_features/<column>/...`), optional context columns tiled over time,
a Keras RNN layer (`rnn_model/rnn/<cell>/...`, or `rnn_model/lstm|gru|simple_rnn/...` when
`units` is an int) masked by the sequence lengths, and a dense `rnn_model/logits` layer.
Graph, variable names and optimizer slots are those of TF 2.15's RNN estimators.

Example:
    >>> from tfport.estimator._canned.rnn import CELL_TYPES
    >>> CELL_TYPES
    ('simple_rnn', 'lstm', 'gru')
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

from tfport._common import keras_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import optimizers
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import (
        FeatureColumns,
        Features,
        Labels,
        OptimizerArg,
        TFModule,
    )
    from tfport.estimator._engine.api.run_config import RunConfig

tf = import_tf()
_Model: Any = tf.keras.models.Model

CELL_TYPES = ("simple_rnn", "lstm", "gru")
DEFAULT_LEARNING_RATE = 0.05
DEFAULT_CLIP_NORM = 5.0
USE_DEFAULT = object()


def _layer_classes(tf: TFModule) -> tuple[dict, dict]:
    layers = tf.keras.layers
    whole = {"lstm": layers.LSTM, "gru": layers.GRU, "simple_rnn": layers.SimpleRNN}
    cells = {"lstm": layers.LSTMCell, "gru": layers.GRUCell, "simple_rnn": layers.SimpleRNNCell}
    return whole, cells


def check_cell_args(
    rnn_cell_fn: Callable[..., object] | None,
    units: int | Sequence[int] | None,
    cell_type: str | Callable[..., object] | object,
) -> None:
    """Raises when `rnn_cell_fn` is combined with `units` / `cell_type`, or neither is set.

    Example:
        >>> check_cell_args(None, [4], "lstm")
    """
    if rnn_cell_fn and (units or cell_type is not USE_DEFAULT):
        raise TfportInputError(
            message(
                "units and cell_type must not be specified when using rnn_cell_fn",
                "Pass either rnn_cell_fn or units (and cell_type)",
                units=units,
                cell_type=None if cell_type is USE_DEFAULT else cell_type,
            )
        )
    if not rnn_cell_fn and not units:
        raise TfportInputError(
            message(
                "RNN estimators need units (with cell_type) or rnn_cell_fn",
                "Pass e.g. units=[32], cell_type='lstm'",
                units=units,
            )
        )


def _single_cell(tf: TFModule, width: int, cell_type: str | Callable[..., object] | object) -> Any:
    cell_type = _layer_classes(tf)[1].get(cell_type, cell_type)
    if not callable(cell_type):
        raise TfportInputError(
            message(
                "cell_type must be a class producing an RNN cell or one of "
                + ", ".join(CELL_TYPES),
                "Fix cell_type",
                cell_type=cell_type,
            )
        )
    cell = cell_type(units=width)
    keras_internals.enable_caching_device(cell)  # as the legacy estimator did
    return cell


def make_rnn_layer(
    rnn_cell_fn: Callable[..., object] | None,
    units: int | Sequence[int] | None,
    cell_type: str | Callable[..., object] | object,
    return_sequences: bool,
) -> Any:
    """The Keras RNN layer of the estimator (the legacy choice of layer and cells).

    Example:
        >>> layer = make_rnn_layer(None, 4, "lstm", False)  # doctest: +SKIP
    """
    tf = import_tf()
    whole, _ = _layer_classes(tf)
    if isinstance(cell_type, str) and cell_type in whole and isinstance(units, int):
        return whole[cell_type](units=units, return_sequences=return_sequences)
    if not rnn_cell_fn:
        kind = "simple_rnn" if cell_type is USE_DEFAULT else cell_type
        widths = [units] if isinstance(units, int) else list(cast("Sequence[int]", units))

        cells = [_single_cell(tf, n, kind) for n in widths]
        cell = cells[0] if len(cells) == 1 else cells
    else:
        cell = rnn_cell_fn()
    return tf.keras.layers.RNN(cell=cell, return_sequences=return_sequences)


def _is_sequence_column(column: Any) -> bool:
    todo = [column]
    while todo:
        col = todo.pop()
        if type(col).__name__.lstrip("_").startswith("Sequence"):
            return True
        for attr in ("source_column", "categorical_column"):
            if getattr(col, attr, None) is not None:
                todo.append(getattr(col, attr))
    return False


def check_sequence_columns(sequence_columns: Any, context_columns: Any) -> tuple[list, list]:
    """Sequence columns must be sequence columns; context columns must not be.

    Example:
        >>> check_sequence_columns([], [])
        Traceback (most recent call last):
        ...
        tfport._common.errors.TfportInputError: RNN estimators need sequence_feature_columns...
    """
    sequence_columns = list(sequence_columns or ())
    context_columns = list(context_columns or ())
    if not sequence_columns:
        raise TfportInputError(
            message(
                "RNN estimators need sequence_feature_columns",
                "Pass sequence_numeric_column / embedding_column(sequence_categorical_column_*)",
                sequence_feature_columns=sequence_columns,
            )
        )
    for col in sequence_columns:
        if not _is_sequence_column(col):
            raise TfportInputError(
                message(
                    f"sequence_feature_columns must be sequence columns; {col.name!r} is not",
                    "Use tf.feature_column.sequence_* columns, or pass it in "
                    "context_feature_columns",
                    column=col.name,
                )
            )
    for col in context_columns:
        if _is_sequence_column(col):
            raise TfportInputError(
                message(
                    f"context_feature_columns must not be sequence columns; {col.name!r} is one",
                    "Pass it in sequence_feature_columns",
                    column=col.name,
                )
            )
    return sequence_columns, context_columns


class RNNModel(_Model):
    """A Keras RNN model (legacy `canned.rnn.RNNModel`): SequenceFeatures [+ context columns
    tiled over time] -> `rnn_layer` (masked by the sequence lengths) -> dense `logits`.

    With `return_sequences` the logits `[batch, time, units]` carry the sequence mask as
    their Keras mask (`logits._keras_mask`, as legacy set it).

    Args:
        rnn_layer: a Keras RNN layer.
        units: width of the logits layer (an int).
        sequence_feature_columns: sequence columns (or columns built on one).
        context_feature_columns: dense non-sequence columns fed at every step, or None.
        activation: activation of the logits layer (None: plain logits).
        return_sequences: logits for every step rather than the last one.
        **kwargs: Keras model arguments (`name`, ...).

    Raises:
        ValueError: `units` is not an int.

    Example:
        >>> model = RNNModel(tf.keras.layers.SimpleRNN(8), 1, [seq_col])  # doctest: +SKIP
    """

    def __init__(
        self,
        rnn_layer: Any,
        units: int,
        sequence_feature_columns: FeatureColumns,
        context_feature_columns: FeatureColumns | None = None,
        activation: Any = None,
        return_sequences: bool = False,
        **kwargs: object,
    ):
        super().__init__(**kwargs)
        if isinstance(units, bool) or not isinstance(units, int):
            raise ValueError(f"units must be an int.  Given type: {type(units)}")
        self._return_sequences = return_sequences
        self._sequence_feature_columns = sequence_feature_columns
        self._context_feature_columns = context_feature_columns
        self._sequence_layer = tf.keras.experimental.SequenceFeatures(sequence_feature_columns)
        self._context_layer = None
        if context_feature_columns:
            dense_features = getattr(tf.compat.v1.keras.layers, "DenseFeatures", None)
            self._context_layer = (dense_features or tf.keras.layers.DenseFeatures)(
                context_feature_columns
            )
        self._rnn_layer = rnn_layer
        self._logits_layer = tf.keras.layers.Dense(
            units=units, activation=activation, name="logits"
        )

    def call(self, inputs: Any, training: Any = None) -> Any:
        """Logits `[batch, units]` (`[batch, time, units]` with `return_sequences`)."""
        if not isinstance(inputs, dict):
            raise ValueError(
                f"inputs should be a dictionary of `Tensor`s. Given type: {type(inputs)}"
            )
        with tf.compat.v1.name_scope("sequence_input_layer"):
            sequence_input, sequence_length = self._sequence_layer(inputs, training=training)
            tf.compat.v1.summary.histogram("sequence_length", sequence_length)
            if self._context_layer is not None:
                context = self._context_layer(inputs, training=training)
                sequence_input = _concatenate_context(tf, context, sequence_input)
        # The mask spans the padded time axis. A batch (or a replica's share of one,
        # which keeps the global dense shape) whose longest sequence is shorter than
        # that axis would get a shorter mask, which the RNN loop reads past (the
        # legacy estimator failed there: "Trying to access element 4 in a list with 3").
        mask = tf.sequence_mask(sequence_length, maxlen=tf.shape(sequence_input)[1])
        outputs = self._rnn_layer(sequence_input, mask=mask, training=training)
        logits = self._logits_layer(outputs)
        if self._return_sequences:  # the sequential head's mask of valid steps
            keras_internals.set_keras_mask(logits, mask)
        return logits

    def get_config(self) -> dict:
        """The model's config: layer, units, activation and serialized columns."""
        serialize = tf.__internal__.feature_column.serialize_feature_column
        context = self._context_feature_columns
        return {
            "name": self.name,
            "rnn_layer": {
                "class_name": type(self._rnn_layer).__name__,
                "config": self._rnn_layer.get_config(),
            },
            "units": self._logits_layer.units,
            "return_sequences": self._return_sequences,
            "activation": tf.keras.activations.serialize(self._logits_layer.activation),
            "sequence_feature_columns": [serialize(c) for c in self._sequence_feature_columns],
            "context_feature_columns": [serialize(c) for c in context] if context else None,
        }

    @classmethod
    def from_config(cls, config: dict, custom_objects: Mapping[str, object] | None = None) -> Any:
        """An `RNNModel` from `get_config()`'s output."""
        deserialize = tf.__internal__.feature_column.deserialize_feature_column
        config = dict(config)
        rnn_layer = tf.keras.layers.deserialize(
            config.pop("rnn_layer"), custom_objects=custom_objects
        )
        sequence = [deserialize(c, custom_objects) for c in config.pop("sequence_feature_columns")]
        context = config.pop("context_feature_columns", None)
        if context:
            context = [deserialize(c, custom_objects) for c in context]
        activation = tf.keras.activations.deserialize(
            config.pop("activation", None), custom_objects=custom_objects
        )
        return cls(
            rnn_layer=rnn_layer,
            sequence_feature_columns=sequence,
            context_feature_columns=context,
            activation=activation,
            **config,
        )


def _concatenate_context(tf: TFModule, context: Any, sequence: Any) -> Any:
    """Tiles `context` [batch, d] over the time axis of `sequence` and appends it."""
    context = tf.cast(context, tf.float32)
    with tf.compat.v1.name_scope("concatenate_context_input"):
        length = tf.shape(sequence)[1]
        tiled = tf.tile(tf.expand_dims(context, 1), tf.concat([[1], [length], [1]], 0))
        return tf.concat([sequence, tiled], 2)


def _optimizer(optimizer: OptimizerArg) -> Any:
    tf = import_tf()
    if isinstance(optimizer, str):
        opt = optimizers.get_v2(optimizer, DEFAULT_LEARNING_RATE)
        opt.clipnorm = DEFAULT_CLIP_NORM
    else:
        opt = optimizers.get_v2(optimizer)
    if getattr(opt, "_iterations", None) is None:  # a user instance is shared by replicas
        opt.iterations = tf.compat.v1.train.get_or_create_global_step()
    return opt


def rnn_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    config: RunConfig | None,
    *,
    head: Any,
    sequence_columns: list,
    context_columns: list,
    units: int | Sequence[int] | None,
    cell_type: str | Callable[..., object] | object,
    rnn_cell_fn: Callable[..., object] | None,
    optimizer: OptimizerArg,
    return_sequences: bool = False,
) -> Any:
    """The RNN estimators' model_fn (v2 heads, Keras legacy optimizers).

    With `return_sequences` the head is a sequential head: logits have a time axis and
    the sequence mask joins the features under the head's `input_sequence_mask_key`
    (unless input_fn gave one).

    Example:
        >>> rnn_model_fn(features, labels, mode, config, head=head, ...)  # doctest: +SKIP
    """
    del config
    if not isinstance(features, dict):
        raise TfportInputError(
            message(
                "RNN estimators need features as a dict of feature name -> (Sparse)Tensor",
                "Return ({'name': tensor, ...}, labels) from input_fn",
                features=type(features),
            )
        )
    # Each replica rebuilds the model in one graph: equal Keras names reuse replica 0's variables.
    import_tf().keras.backend.reset_uids()
    layer = make_rnn_layer(rnn_cell_fn, units, cell_type, return_sequences)
    model = RNNModel(
        layer,
        head.logits_dimension,
        sequence_columns,
        context_columns,
        return_sequences=return_sequences,
        name="rnn_model",
    )
    training = mode == ModeKeys.TRAIN
    opt = _optimizer(optimizer) if training else None
    logits = model(features, training)
    if return_sequences and head.input_sequence_mask_key not in features:
        mask = keras_internals.keras_mask(logits)
        features = {**features, head.input_sequence_mask_key: mask}
    return head.create_estimator_spec(
        features,
        mode,
        logits,
        labels,
        optimizer=opt,
        trainable_variables=model.trainable_variables,
    )
