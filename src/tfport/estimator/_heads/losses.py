"""Per-example (unreduced) losses of the head kinds, and the user `loss_fn` call."""

from __future__ import annotations

from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf


def unreduced_loss(head: Any, labels: Any, logits: Any, features: Any) -> Any:
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


def _user_loss(tf: Any, loss_fn: Any, labels: Any, logits: Any, features: Any) -> Any:
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
