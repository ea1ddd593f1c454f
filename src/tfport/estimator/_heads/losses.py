"""Per-example (unreduced) losses of the head kinds, and the user `loss_fn` call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, Tensor, TFModule


class LossHead(Protocol):
    """What `unreduced_loss` reads of a head: its kind, its classes, its loss function."""

    @property
    def kind(self) -> str:
        """The head's kind: classifier, multi_label, regression, poisson or logistic."""
        ...

    @property
    def n_classes(self) -> int:
        """The number of classes (classifier heads)."""
        ...

    @property
    def loss_fn(self) -> Callable[..., object] | None:
        """The user's `loss_fn(labels, logits[, features])`, or None."""
        ...

    @property
    def compute_full_loss(self) -> bool:
        """Whether a Poisson loss adds the Stirling term."""
        ...


def unreduced_loss(head: LossHead, labels: Labels, logits: Tensor, features: Features) -> Any:
    """`[batch, 1]` (or `[batch, label_dimension]`) losses of `head`'s kind or loss_fn."""
    tf = import_tf()
    losses = tf.compat.v1.losses
    none = losses.Reduction.NONE
    if head.loss_fn is not None:
        return _user_loss(tf, head.loss_fn, labels, logits, features)
    kind = head.kind
    if kind == "regression":
        return losses.mean_squared_error(labels, logits, reduction=none)
    if kind == "poisson":
        return tf.nn.log_poisson_loss(
            targets=labels, log_input=logits, compute_full_loss=head.compute_full_loss
        )
    if kind == "logistic":
        return tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
    if kind == "multi_label":
        per_class = losses.sigmoid_cross_entropy(labels, logits, reduction=none)
        return tf.reduce_mean(per_class, axis=-1, keepdims=True)
    if head.n_classes == 2:
        return losses.sigmoid_cross_entropy(labels, logits, reduction=none)
    return tf.expand_dims(losses.sparse_softmax_cross_entropy(labels, logits, reduction=none), -1)


def _user_loss(
    tf: TFModule, loss_fn: Callable[..., object], labels: Labels, logits: Any, features: Features
) -> Any:
    from tfport.estimator._engine.building.calls import fn_args

    args = fn_args(loss_fn)
    if "labels" not in args or "logits" not in args:
        raise TfportInputError(
            message(
                "loss_fn must take labels and logits (and optionally features)",
                "Define loss_fn(labels, logits, features=None)",
                loss_fn_args=list(args),
            )
        )
    kwargs = {"features": features} if "features" in args else {}
    loss = tf.convert_to_tensor(loss_fn(labels=labels, logits=logits, **kwargs))
    if loss.shape.rank is not None and loss.shape.rank == logits.shape.rank - 1:
        loss = tf.expand_dims(loss, -1)
    return tf.cast(loss, tf.float32)
