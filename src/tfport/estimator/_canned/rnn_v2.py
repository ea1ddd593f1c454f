"""`tf.estimator.experimental.RNNEstimator` / `RNNClassifier` with the legacy signatures.

Example:
    >>> from tfport.estimator._canned.rnn_v2 import RNNClassifier
    >>> RNNClassifier.__name__
    'RNNClassifier'
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport.estimator._canned import base, rnn
from tfport.estimator._canned.base import CannedEstimator
from tfport.estimator._heads import sequential

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, KeyedColumn, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head

__all__ = ["RNNEstimator", "RNNClassifier"]


def _check_sequential_head(head: Head, return_sequences: bool) -> None:
    if return_sequences and not isinstance(head, sequential.SequentialHead):
        raise TfportInputError(
            message(
                "RNNEstimator with return_sequences=True needs a sequential head (one "
                "prediction per step, loss over the valid steps)",
                "Wrap the head: SequentialHeadWrapper(head, sequence_length_mask=..., "
                "feature_columns=<weight column name>) from "
                "tensorflow_estimator.python.estimator.head.sequential_head",
                head=type(head).__name__,
                return_sequences=return_sequences,
            )
        )


class RNNEstimator(CannedEstimator):
    """An RNN over sequence feature columns with a given head.

    Args:
        head: a head from `tf.estimator.BinaryClassHead` / `MultiClassHead` / `RegressionHead`.
        sequence_feature_columns: sequence columns (`sequence_numeric_column`,
            `embedding_column` of a `sequence_categorical_column_*`).
        context_feature_columns: dense non-sequence columns, repeated at every step.
        units: widths of the RNN layers (an int: one Keras LSTM/GRU/SimpleRNN layer).
        cell_type: `'simple_rnn'` (default), `'lstm'`, `'gru'` or a cell class.
        rnn_cell_fn: a callable returning a Keras RNN cell (instead of units/cell_type).
        return_sequences: one output per step; `head` must then be a sequential head
            (`SequentialHeadWrapper`), the labels `[batch, time]`.
        model_dir: directory for checkpoints and summaries.
        optimizer: a legacy Keras optimizer or its name (default Adagrad, learning rate
            0.05, gradient clip norm 5).
        config: a `RunConfig`.

    Example:
        >>> est = tf.estimator.experimental.RNNEstimator(  # doctest: +SKIP
        ...     head=tf.estimator.RegressionHead(),
        ...     sequence_feature_columns=[token_emb],
        ...     units=[32], cell_type="lstm")
    """

    def __init__(
        self,
        head: Head,
        sequence_feature_columns: FeatureColumns,
        context_feature_columns: FeatureColumns | None = None,
        units: int | Sequence[int] | None = None,
        cell_type: str | Callable[..., object] | object = rnn.USE_DEFAULT,
        rnn_cell_fn: Callable[..., object] | None = None,
        return_sequences: bool = False,
        model_dir: str | os.PathLike[str] | None = None,
        optimizer: OptimizerArg = "Adagrad",
        config: RunConfig | None = None,
    ) -> None:
        head = base.check_head(head, v2=True)
        self._init_rnn(
            head,
            sequence_feature_columns,
            context_feature_columns,
            units,
            cell_type,
            rnn_cell_fn,
            return_sequences,
            model_dir,
            optimizer,
            config,
        )

    def _init_rnn(
        self,
        head: Head,
        sequence_feature_columns: FeatureColumns,
        context_feature_columns: FeatureColumns | None,
        units: int | Sequence[int] | None,
        cell_type: str | Callable[..., object] | object,
        rnn_cell_fn: Callable[..., object] | None,
        return_sequences: bool,
        model_dir: str | os.PathLike[str] | None,
        optimizer: OptimizerArg,
        config: RunConfig | None,
    ) -> None:
        _check_sequential_head(head, return_sequences)
        rnn.check_cell_args(rnn_cell_fn, units, cell_type)
        sequence, context = rnn.check_sequence_columns(
            sequence_feature_columns, context_feature_columns
        )
        self._init_canned(
            rnn.rnn_model_fn,
            head,
            model_dir,
            config,
            None,
            sequence_columns=sequence,
            context_columns=context,
            units=units,
            cell_type=cell_type,
            rnn_cell_fn=rnn_cell_fn,
            optimizer=optimizer,
            return_sequences=bool(return_sequences),
        )


class RNNClassifier(RNNEstimator):
    """An RNN classifier over sequence feature columns (softmax / sigmoid cross entropy).

    Args:
        sequence_feature_columns: sequence columns.
        context_feature_columns: dense non-sequence columns, repeated at every step.
        units: widths of the RNN layers (an int: one Keras LSTM/GRU/SimpleRNN layer).
        cell_type: `'simple_rnn'` (default), `'lstm'`, `'gru'` or a cell class.
        rnn_cell_fn: a callable returning a Keras RNN cell (instead of units/cell_type).
        return_sequences: one output per step: labels `[batch, time]`, loss and metrics
            over the valid steps, the mask in the predictions (`weight_column` must then be
            None or the name of a `[batch, time]` feature).
        model_dir: directory for checkpoints and summaries.
        n_classes: number of label classes (2: binary).
        weight_column: name or numeric column of per-example weights.
        label_vocabulary: the string labels, in class-id order.
        optimizer: a legacy Keras optimizer or its name (default Adagrad, 0.05, clip norm 5).
        loss_reduction: how per-example losses reduce to the training loss.
        sequence_mask: name of the sequence mask (with return_sequences): taken from the
            features when present, else made from the sequence lengths; a prediction key.
        config: a `RunConfig`.

    Example:
        >>> est = tf.estimator.experimental.RNNClassifier(  # doctest: +SKIP
        ...     sequence_feature_columns=[token_emb], units=[32], cell_type="lstm")
        >>> est.train(input_fn, steps=100)  # doctest: +SKIP
    """

    def __init__(
        self,
        sequence_feature_columns: FeatureColumns,
        context_feature_columns: FeatureColumns | None = None,
        units: int | Sequence[int] | None = None,
        cell_type: str | Callable[..., object] | object = rnn.USE_DEFAULT,
        rnn_cell_fn: Callable[..., object] | None = None,
        return_sequences: bool = False,
        model_dir: str | os.PathLike[str] | None = None,
        n_classes: int = 2,
        weight_column: str | KeyedColumn | None = None,
        label_vocabulary: Sequence[str] | None = None,
        optimizer: OptimizerArg = "Adagrad",
        loss_reduction: str = "sum_over_batch_size",
        sequence_mask: str = "sequence_mask",
        config: RunConfig | None = None,
    ) -> None:
        head: Any = base.classifier_head(
            n_classes, weight_column, label_vocabulary, loss_reduction, v2=True
        )
        if return_sequences:
            head = sequential.SequentialHeadWrapper(head, sequence_mask, weight_column)
        self._init_rnn(
            head,
            sequence_feature_columns,
            context_feature_columns,
            units,
            cell_type,
            rnn_cell_fn,
            return_sequences,
            model_dir,
            optimizer,
            config,
        )
