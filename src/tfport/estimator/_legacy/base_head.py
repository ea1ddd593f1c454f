"""Helpers of legacy `head/base_head.py` that libraries writing their own v2 heads call.

Example:
    >>> validate_loss_reduction("sum_over_batch_size")
"""

from __future__ import annotations

from typing import Any

from tfport._common.tfenv import import_tf
from tfport.estimator._engine import calls

_REDUCTIONS = ("auto", "sum", "sum_over_batch_size")


def validate_loss_reduction(loss_reduction: Any) -> None:
    """Raises ValueError unless `loss_reduction` is a `tf.losses.Reduction` other than NONE."""
    if loss_reduction not in _REDUCTIONS:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` for valid "
            "options."
        )


def validate_n_classes(n_classes: Any) -> Any:
    """`n_classes` after checking it is > 2 (a static int, as legacy checks it)."""
    if isinstance(n_classes, int) and n_classes <= 2:
        raise ValueError(f"n_classes must be > 2: {n_classes}.")
    return n_classes


def validate_loss_fn_args(loss_fn: Any) -> None:
    """Checks `loss_fn` takes `labels` and `logits` and nothing but `features`/`loss_reduction`."""
    args = set(calls.fn_args(loss_fn))
    for required in ("labels", "logits"):
        if required not in args:
            raise ValueError(
                f"loss_fn must contain argument: {required}. Given arguments: {sorted(args)}"
            )
    invalid = sorted(args - {"labels", "logits", "features", "loss_reduction"})
    if invalid:
        raise ValueError(f"loss_fn has unexpected args: {invalid}")


def check_prediction_keys(pred_keys: Any, valid_keys: Any) -> None:
    """Raises ValueError for a key of `pred_keys` not in `valid_keys`."""
    for key in pred_keys:
        if key not in valid_keys:
            raise ValueError(
                f"Prediction key must be in PredictionKeys, given: {key}. Valid prediction "
                f"keys include {valid_keys}."
            )


def validate_trainable_variables(trainable_variables: Any = None) -> Any:
    """`trainable_variables` after checking it is a list or tuple."""
    if trainable_variables is None:
        raise ValueError(f"trainable_variables cannot be None. Given {trainable_variables}")
    if not isinstance(trainable_variables, (list, tuple)):
        raise ValueError(
            f"trainable_variables should be a list or a tuple. Given {trainable_variables}"
        )
    return trainable_variables


def validate_update_ops(update_ops: Any = None) -> None:
    """Checks `update_ops` is None, a list or a tuple."""
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops should be a list or tuple. Given {update_ops}")


def validate_v2_optimizer(optimizer: Any) -> None:
    """Checks `optimizer` is a Keras optimizer (`tf.keras.optimizers` or `.legacy`)."""
    tf = import_tf()
    kinds = (tf.keras.optimizers.Optimizer, tf.keras.optimizers.legacy.Optimizer)
    if not isinstance(optimizer, kinds):
        raise ValueError(
            "The given optimizer is not a tf.keras.optimizers.Optimizer instance. "
            f"Given: {optimizer}"
        )


def create_eval_metrics_tuple(fn: Any, kwargs: dict) -> tuple:
    """`(metric_fn, tensors)` for TPUEstimatorSpec.eval_metrics: tensors passed through,
    other arguments bound into the function."""
    tf = import_tf()
    tensors = {k: v for k, v in kwargs.items() if tf.is_tensor(v)}
    others = {k: v for k, v in kwargs.items() if k not in tensors}

    def metric_fn(**given: Any) -> Any:
        return fn(**dict(others, **given))

    return metric_fn, tensors


def update_metric_with_broadcast_weights(eval_metric: Any, values: Any, weights: Any) -> Any:
    """`eval_metric.update_state(values, sample_weight=weights broadcast to values)`."""
    tf = import_tf()
    values = tf.cast(values, tf.float32)
    if weights is not None:
        weights = tf.broadcast_to(tf.cast(weights, tf.float32), tf.shape(values))
    return eval_metric.update_state(values=values, sample_weight=weights)


def check_label_range(labels: Any, n_classes: int, message: Any = None) -> Any:
    """`labels` with assertions that they lie in [0, n_classes - 1]."""
    tf = import_tf()
    with tf.compat.v1.name_scope("check_label_range", values=(labels,)):
        upper = tf.compat.v1.assert_less_equal(
            labels,
            tf.cast(n_classes - 1, labels.dtype),
            message=message or "Labels must be <= n_classes - 1",
        )
        lower = tf.compat.v1.assert_non_negative(labels, message=message or "Labels must be >= 0")
        with tf.control_dependencies((upper, lower)):
            return tf.identity(labels)


def call_loss_fn(
    loss_fn: Any, labels: Any, logits: Any, features: Any, expected_loss_dim: int = 1
) -> Any:
    """`loss_fn(labels=, logits=[, features=])`, checked to end in `expected_loss_dim`."""
    tf = import_tf()
    kwargs = {"features": features} if "features" in calls.fn_args(loss_fn) else {}
    with tf.compat.v1.name_scope("call_loss_fn", values=[labels, logits]):
        loss = loss_fn(labels=labels, logits=logits, **kwargs)
        last = loss.shape[-1] if loss.shape.rank else None
        if last is not None and last != expected_loss_dim:
            raise ValueError(
                f"loss_fn must return Tensor of shape [D0, D1, ... DN, {expected_loss_dim}]. "
                f"loss_fn returned shape: {loss.shape}"
            )
        return loss


def create_estimator_spec_summary(
    regularized_training_loss: Any, regularization_losses: Any = None, summary_key_fn: Any = None
) -> None:
    """The `loss` (and `regularization_loss`) summaries of a head's training spec."""
    tf = import_tf()
    key = summary_key_fn or (lambda k: k)
    with tf.compat.v1.name_scope(""):
        tf.compat.v1.summary.scalar(key("loss"), regularized_training_loss)
        if regularization_losses is not None:
            total = tf.math.add_n(regularization_losses)
            tf.compat.v1.summary.scalar(key("regularization_loss"), total)
