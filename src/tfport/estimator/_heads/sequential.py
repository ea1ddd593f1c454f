"""Sequential heads: one prediction per time step of a padded sequence batch.

`SequentialHeadWrapper` (legacy `tensorflow_estimator.python.estimator.head.
sequential_head`) wraps a static head. In TRAIN and EVAL it keeps the valid steps only:
logits `[batch, time, d]`, labels `[batch, time(, ...)]` and the listed per-step
features (typically a weight) are flattened over the steps where the boolean sequence
mask `features[input_sequence_mask_key]` (`[batch, time]`) is true, and the static head
computes loss, train op and metrics on those steps as if they were examples. In PREDICT
the static head sees the unflattened logits and the mask joins the predictions.

Under N replicas a replica's mean loss covers its own valid steps `n_r`, not its share
of the examples; its loss is weighted by `n_r / n` (`n`: the valid steps of the global
batch, summed over replicas), so N replicas train as one device does.

Example:
    >>> from tfport.estimator._heads.sequential import SequentialHeadWrapper
    >>> SequentialHeadWrapper.__name__
    'SequentialHeadWrapper'
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Callable, Sequence
from typing import Any

from tfport._common import replica_share
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, Mode, OptimizerArg, Tensor, TFModule
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._heads import base


class SequentialHeadTypeError(TfportInputError, TypeError):
    """A sequential head's argument has the wrong type (a TypeError, as on the legacy stack)."""


class SequentialHead(base.Head):
    """A head whose logits carry a time axis; `features[input_sequence_mask_key]` marks
    the valid (unpadded) steps (legacy `_SequentialHead`).

    Example:
        >>> issubclass(SequentialHeadWrapper, SequentialHead)
        True
    """

    @property
    @abc.abstractmethod
    def input_sequence_mask_key(self) -> str:
        """Key of the boolean `[batch, time]` sequence mask in the features dict."""


_SequentialHead = SequentialHead  # the legacy name


class SequentialHeadWrapper(SequentialHead):
    """Applies `static_head` to the valid steps of sequences (mask from the features).

    Args:
        static_head: the head to wrap (not a `MultiHead`).
        sequence_length_mask: features key of the boolean `[batch, time]` sequence mask.
        feature_columns: feature key(s) (strings) flattened with the logits and passed to
            the static head, typically its per-step weight column.

    Example:
        >>> head = SequentialHeadWrapper(  # doctest: +SKIP
        ...     tf.estimator.BinaryClassHead(weight_column="w"),
        ...     sequence_length_mask="mask", feature_columns="w")
    """

    def __init__(
        self,
        static_head: base.Head,
        sequence_length_mask: str = "sequence_length_mask",
        feature_columns: object = None,  # names (str or a list of them), checked below
    ) -> None:
        if not isinstance(sequence_length_mask, str):
            raise SequentialHeadTypeError(
                message(
                    "The sequence mask key of a sequential head must be a string",
                    "Pass the name of the mask feature",
                    sequence_length_mask=type(sequence_length_mask).__name__,
                )
            )
        columns = feature_columns or []
        columns = [columns] if isinstance(columns, str) else columns
        listed = isinstance(columns, (list, tuple)) and not hasattr(columns, "_fields")
        if not listed or not isinstance(columns, (list, tuple)):
            columns = [columns]  # refused below: not names
        if not listed or not all(isinstance(c, str) for c in columns):
            raise SequentialHeadTypeError(
                message(
                    "The per-step features of a sequential head (its weight column) must be "
                    "given as feature names (strings)",
                    "Pass weight_column='name' (the key of a [batch, time] feature) "
                    "instead of a feature column",
                    feature_columns=_describe(feature_columns),
                )
            )
        if not isinstance(static_head, base.Head) or type(static_head).__name__ == "MultiHead":
            raise TfportInputError(
                message(
                    "SequentialHeadWrapper wraps one tf.estimator.Head (MultiHead is not "
                    "supported)",
                    "Pass e.g. tf.estimator.BinaryClassHead()",
                    static_head=type(static_head).__name__,
                )
            )
        self._static_head = static_head
        self._mask_key = sequence_length_mask
        self._columns = list(columns)

    input_sequence_mask_key = property(lambda self: self._mask_key, doc="Mask feature key.")
    static_head = property(lambda self: self._static_head, doc="The wrapped head.")
    logits_dimension = property(lambda self: self._static_head.logits_dimension)
    loss_reduction = property(lambda self: self._static_head.loss_reduction)

    @property
    def name(self) -> Any:
        """`<static head's name>_sequential`, or None."""
        inner = self._static_head.name
        return f"{inner}_sequential" if inner else None

    def loss(  # type: ignore[override]  # the legacy wrapper's order: logits first
        self,
        logits: Tensor,
        labels: Labels,
        features: Features | None = None,
        mode: Mode | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """The static head's loss over the valid steps.

        Example:
            >>> head.loss(logits=logits, labels=labels, features=features)  # doctest: +SKIP
        """
        labels, logits, flat = self._flatten(labels, logits, features)
        return self._static_head.loss(
            labels=labels,
            logits=logits,
            features=flat,
            mode=mode,
            regularization_losses=regularization_losses,
        )

    def predictions(self, logits: Tensor, keys: str | Sequence[str] | None = None) -> dict:
        """The static head's predictions of `logits` (one per step).

        Example:
            >>> head.predictions(logits, keys="probabilities")  # doctest: +SKIP
        """
        return self._static_head.predictions(logits, keys=keys)

    def metrics(self, regularization_losses: Sequence[Tensor] | None = None) -> dict:
        """The static head's metric objects.

        Example:
            >>> eval_metrics = head.metrics()  # doctest: +SKIP
        """
        return self._static_head.metrics(regularization_losses)

    def update_metrics(  # type: ignore[override]  # legacy: no `mode` here
        self,
        eval_metrics: dict,
        features: Features,
        logits: Tensor,
        labels: Labels,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> dict:
        """Updates `eval_metrics` with the valid steps of one batch.

        Example:
            >>> head.update_metrics(eval_metrics, features, logits, labels)  # doctest: +SKIP
        """
        labels, logits, flat = self._flatten(labels, logits, features)
        return self._static_head.update_metrics(
            eval_metrics=eval_metrics,
            features=flat,
            logits=logits,
            labels=labels,
            regularization_losses=regularization_losses,
        )

    def create_estimator_spec(
        self,
        features: Features,
        mode: str,
        logits: Tensor,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        trainable_variables: Sequence[object] | None = None,
        train_op_fn: Callable[[Tensor], object] | None = None,
        update_ops: Sequence[object] | None = None,
        regularization_losses: Sequence[Tensor] | None = None,
    ) -> Any:
        """PREDICT: the static head's spec plus the mask; else its spec on the valid steps.

        Example:
            >>> spec = head.create_estimator_spec(features, mode, logits, labels,
            ...                                   optimizer=opt)  # doctest: +SKIP
        """
        if mode == ModeKeys.PREDICT:
            spec = self._static_head.create_estimator_spec(
                features=features, mode=mode, logits=logits
            )
            predictions = dict(spec.predictions)
            predictions[self._mask_key] = self._mask(features)
            return spec._replace(predictions=predictions)
        labels, logits, flat = self._flatten(labels, logits, features)
        share = _steps_share(self._mask(features), self.loss_reduction)
        outer = replica_share.mean_scale()
        with replica_share.scope(share) if share is not None else contextlib.nullcontext():
            spec = self._static_head.create_estimator_spec(
                features=flat,
                mode=mode,
                logits=logits,
                labels=labels,
                optimizer=optimizer,
                trainable_variables=trainable_variables,
                train_op_fn=train_op_fn,
                update_ops=update_ops,
                regularization_losses=regularization_losses,
            )
        if share is None:
            return spec
        # The step reduces the replicas' losses weighted by their example shares (`outer`);
        # reweighted here so that the reduced loss is the global batch's mean over steps.
        tf = import_tf()
        factor = tf.math.divide_no_nan(share, tf.cast(outer, share.dtype))
        return spec._replace(loss=spec.loss * tf.cast(factor, spec.loss.dtype))

    # -- flattening ------------------------------------------------------------------------
    def _mask(self, features: Any) -> Any:
        if not isinstance(features, dict) or self._mask_key not in features:
            raise TfportInputError(
                message(
                    f"The sequence mask {self._mask_key!r} is not among the features",
                    "Add the boolean [batch, time] mask to the features dict under that key",
                    received_keys=sorted(map(str, features or {})),
                )
            )
        mask = features[self._mask_key]
        if mask.shape.rank != 2:
            raise TfportInputError(
                message(
                    "The sequence mask must have two dimensions [batch, time]",
                    "Pass tf.sequence_mask(lengths)",
                    mask_shape=str(mask.shape),
                )
            )
        return mask

    def _flatten(self, labels: Labels, logits: Tensor, features: Any) -> tuple:
        """(labels, logits, {column: values}) over the valid steps, each `[steps, ...]`."""
        tf = import_tf()
        mask = self._mask(features)
        for column in self._columns:
            if column not in features:
                raise TfportInputError(
                    message(
                        f"The per-step feature {column!r} of the sequential head is not "
                        "among the features",
                        "Return it from input_fn as a [batch, time] tensor",
                        received_keys=sorted(map(str, features)),
                    )
                )
        with tf.compat.v1.name_scope("flatten"):
            steps = tf.reduce_sum(tf.cast(mask, tf.int32))
            flat_logits = _flatten(tf, logits, mask, steps, "logits")
            flat_labels = _flatten(tf, labels, mask, steps, "labels")
            flat = {c: _flatten(tf, features[c], mask, steps, c) for c in self._columns}
        return flat_labels, flat_logits, flat


def _flatten(tf: TFModule, value: Any, mask: Tensor, steps: Tensor | int, what: str) -> Any:
    """`[batch, time, d...]` -> `[steps, d...]` (`[batch, time]` -> `[steps, 1]`)."""
    if value is None:
        return None
    value = tf.compat.v1.convert_to_tensor_or_sparse_tensor(value)
    rank = value.shape.rank
    if rank is None or rank < 2:
        raise TfportInputError(
            message(
                f"A sequential head needs {what} with a time axis: [batch, time, ...]",
                "Give one value per step",
                **{f"{what}_shape": str(value.shape)},
            )
        )
    if isinstance(value, tf.SparseTensor):
        flat = tf.sparse.reorder(value).values
        if rank > 2:
            flat = tf.reshape(flat, tf.concat([[-1], value.shape[2:]], 0))
    else:
        flat = tf.boolean_mask(value, mask)
    if rank == 2:
        flat = tf.expand_dims(flat, -1)
    check = tf.debugging.assert_equal(
        tf.shape(flat)[0],
        steps,
        message=f"The sequence mask does not match the steps of the {what}",
    )
    with tf.control_dependencies([check]):
        return tf.identity(flat)


def _steps_share(mask: Tensor, loss_reduction: str) -> Any:
    """Under N replicas with a mean loss: this replica's valid steps over the global ones."""
    tf = import_tf()
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1 or loss_reduction == "sum":
        return None
    steps = tf.stop_gradient(tf.reduce_sum(tf.cast(mask, tf.float32)))
    total = context.all_reduce(tf.distribute.ReduceOp.SUM, steps)
    return tf.math.divide_no_nan(steps, total)


def _describe(value: object) -> Any:
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):  # not a column
        return [v if isinstance(v, str) else type(v).__name__ for v in value]
    return type(value).__name__


def _flatten_tensor(tensor: Tensor, sequence_mask: Tensor, expected_length: Tensor | int) -> Any:
    """Legacy `sequential_head._flatten_tensor`: the masked steps of a `[batch, time, ...]`
    tensor as `[expected_length, ...]` (`[expected_length, 1]` for `[batch, time]`)."""
    return _flatten(import_tf(), tensor, sequence_mask, expected_length, "tensor")
