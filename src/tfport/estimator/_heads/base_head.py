"""Helpers of legacy `head/base_head.py` that libraries writing their own v2 heads call.

Example:
    >>> validate_loss_reduction("sum_over_batch_size")
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from tfport._common import replica_share, tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Tensor, TFModule
from tfport.estimator._engine.building import calls

_REDUCTIONS = ("auto", "sum", "sum_over_batch_size")


def validate_loss_reduction(loss_reduction: str) -> None:
    """Raises ValueError unless `loss_reduction` is a `tf.losses.Reduction` other than NONE."""
    if loss_reduction not in _REDUCTIONS:
        raise ValueError(
            f"Invalid loss_reduction: {loss_reduction}. See `tf.losses.Reduction` for valid "
            "options."
        )


def validate_n_classes(n_classes: object) -> Any:
    """`n_classes` after checking it is > 2 (a static int, as legacy checks it)."""
    if isinstance(n_classes, int) and n_classes <= 2:
        raise ValueError(f"n_classes must be > 2: {n_classes}.")
    return n_classes


def validate_loss_fn_args(loss_fn: Callable[..., object]) -> None:
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


def check_prediction_keys(pred_keys: Iterable[str], valid_keys: Collection[str]) -> None:
    """Raises ValueError for a key of `pred_keys` not in `valid_keys`."""
    for key in pred_keys:
        if key not in valid_keys:
            raise ValueError(
                f"Prediction key must be in PredictionKeys, given: {key}. Valid prediction "
                f"keys include {valid_keys}."
            )


def validate_trainable_variables(trainable_variables: object = None) -> Any:
    """`trainable_variables` after checking it is a list or tuple."""
    if trainable_variables is None:
        raise ValueError(f"trainable_variables cannot be None. Given {trainable_variables}")
    if not isinstance(trainable_variables, (list, tuple)):
        raise ValueError(
            f"trainable_variables should be a list or a tuple. Given {trainable_variables}"
        )
    return trainable_variables


def validate_update_ops(update_ops: object = None) -> None:
    """Checks `update_ops` is None, a list or a tuple."""
    if update_ops is not None and not isinstance(update_ops, (list, tuple)):
        raise ValueError(f"update_ops should be a list or tuple. Given {update_ops}")


def validate_v2_optimizer(optimizer: object) -> None:
    """Checks `optimizer` is a Keras optimizer (`tf.keras.optimizers` or `.legacy`)."""
    tf = import_tf()
    kinds = (tf.keras.optimizers.Optimizer, tf.keras.optimizers.legacy.Optimizer)
    if not isinstance(optimizer, kinds):
        raise ValueError(
            "The given optimizer is not a tf.keras.optimizers.Optimizer instance. "
            f"Given: {optimizer}"
        )


def create_eval_metrics_tuple(fn: Callable[..., object], kwargs: dict) -> tuple:
    """`(metric_fn, tensors)` for TPUEstimatorSpec.eval_metrics: tensors passed through,
    other arguments bound into the function."""
    tf = import_tf()
    tensors = {k: v for k, v in kwargs.items() if tf.is_tensor(v)}
    others = {k: v for k, v in kwargs.items() if k not in tensors}

    def metric_fn(**given: object) -> Any:
        return fn(**dict(others, **given))

    return metric_fn, tensors


def update_metric_with_broadcast_weights(eval_metric: Any, values: object, weights: object) -> Any:
    """`eval_metric.update_state(values, sample_weight=weights broadcast to values)`."""
    tf = import_tf()
    values = tf.cast(values, tf.float32)
    if weights is not None:
        weights = tf.broadcast_to(tf.cast(weights, tf.float32), tf.shape(values))
    return eval_metric.update_state(values=values, sample_weight=weights)


def check_label_range(labels: Tensor, n_classes: int, message: str | None = None) -> Any:
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
    loss_fn: Any, labels: object, logits: object, features: Features, expected_loss_dim: int = 1
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
    regularized_training_loss: object,
    regularization_losses: Sequence[object] | None = None,
    summary_key_fn: Callable[[str], str] | None = None,
) -> None:
    """The `loss` (and `regularization_loss`) summaries of a head's training spec."""
    tf = import_tf()
    key = summary_key_fn or (lambda k: k)
    with tf.compat.v1.name_scope(""):
        tf.compat.v1.summary.scalar(key("loss"), regularized_training_loss)
        if regularization_losses is not None:
            total = tf.math.add_n(regularization_losses)
            tf.compat.v1.summary.scalar(key("regularization_loss"), total)


_LABEL_SHAPE = "labels shape must be [D0, D1, ... DN, {}]; check n_classes / label_dimension"


def _static_dims(tensor: Any) -> tuple | None:
    shape = tensor.shape
    return None if shape.rank is None else tuple(shape.as_list())


def check_dense_labels_match_logits_and_reshape(
    labels: Any, logits: Any, expected_labels_dimension: int
) -> Any:
    """`labels` as `[D0, ... DN, expected_labels_dimension]` for logits `[D0, ... DN, k]`.

    Labels of rank one less than the logits get a last axis of 1. Static shapes are checked
    while building (ValueError); dynamic ones by assertions run with the returned tensor.

    Raises:
        ValueError: labels are None or sparse, or their known shape does not fit.

    Example:
        >>> check_dense_labels_match_logits_and_reshape([1, 0], [[0.2], [0.1]], 1)
        ... # doctest: +SKIP
    """
    if labels is None:
        raise ValueError(
            "You must provide a labels Tensor. Given: None. Check that your input_fn returns "
            "(features, labels) and that your data holds the label feature."
        )
    tf = import_tf()
    v1 = tf.compat.v1
    with v1.name_scope("labels", values=(labels, logits)) as scope:
        labels = v1.convert_to_tensor_or_sparse_tensor(labels)
        logits = tf.convert_to_tensor(logits)
        if isinstance(labels, tf.SparseTensor):
            raise ValueError(
                "SparseTensor labels are not supported: labels must be a dense Tensor of shape "
                f"[D0, D1, ..., DN, {expected_labels_dimension}] (tf.sparse.to_dense in "
                "input_fn)."
            )
        if labels.shape.rank is not None and labels.shape.rank == logits.shape.rank - 1:
            labels = tf.expand_dims(labels, -1)
        dims, want = _static_dims(labels), expected_labels_dimension
        if dims is not None and dims and dims[-1] is not None and dims[-1] != want:
            raise ValueError(
                f"Mismatched label shape. Expected labels dimension={want}.  Received "
                f"{dims[-1]}. Check n_classes / label_dimension and the shape of your label."
            )
        if tf.executing_eagerly():
            if len(dims or ()) < 2:
                raise ValueError(f"labels must have rank at least 2.  Received shape {dims}")
            expected = _static_dims(logits)[:-1] + (want,)  # type: ignore[index]
            if expected != dims:
                raise ValueError(
                    f"{_LABEL_SHAPE.format(want)}, expected_labels_shape: {expected}. "
                    f"labels_shape: {dims}."
                )
            return labels
        rank = v1.debugging.assert_rank_at_least(labels, 2, message=_LABEL_SHAPE.format(want))
        with tf.control_dependencies([rank]):
            expected = tf.concat([tf.shape(logits)[:-1], [want]], axis=0)
            got = tf.shape(labels)
            same = v1.debugging.assert_equal(
                expected,
                got,
                message=_LABEL_SHAPE.format(want),
                data=["expected_labels_shape: ", expected, "labels_shape: ", got],
            )
            with tf.control_dependencies([same]):
                return tf.identity(labels, name=scope)


def _weight_tensor(tf: TFModule, features: Any, weight_column: object) -> Any:
    if isinstance(weight_column, str):
        weight_column = tf.feature_column.numeric_column(key=weight_column, shape=(1,))
    if not isinstance(weight_column, tf_internals.numeric_column_class()):
        raise TypeError(
            "Weight column must be either a string or NumericColumn. Given type: "
            f"{type(weight_column)}."
        )
    key = weight_column.key
    raw = features[key] if key in features else None
    if raw is not None and not tf.is_tensor(raw):
        raw = tf.convert_to_tensor(raw)
    if raw is not None and not (raw.dtype.is_floating or raw.dtype.is_integer):
        raise ValueError(f"Weight column should be castable to float. Given dtype: {raw.dtype}")
    cache = tf.__internal__.feature_column.FeatureTransformationCache(features)
    weights = weight_column.get_dense_tensor(cache, None)
    return tf.cast(weights, tf.float32, name="weights")


def get_weights_and_check_match_logits(
    features: Mapping[str, object],
    weight_column: object,
    logits: Any,
    allow_per_logit_weights: bool = False,
) -> Any:
    """The example weights of `features[weight_column]`, shaped to broadcast over `logits`.

    For logits `[D0, ... DN, k]` weights may be `[D0, ... DN]` (given a last axis of 1),
    `[D0, ... DN, 1]`, or with `allow_per_logit_weights` `[D0, ... DN, k]`. Returns 1.0
    when `weight_column` is None.

    Raises:
        TypeError: `weight_column` is neither a name nor a numeric column.
        ValueError: the weights are not numbers, or their known shape does not fit.

    Example:
        >>> get_weights_and_check_match_logits({}, None, [[0.5]])
        1.0
    """
    allowed = "[D0, D1, ... DN] or [D0, D1, ... DN, 1]"
    if allow_per_logit_weights:
        allowed = "[D0, D1, ... DN], [D0, D1, ... DN, 1] or [D0, D1, ... DN, logits_dimension]"
    err = f"weights shape must be {allowed}"
    tf = import_tf()
    v1 = tf.compat.v1
    values = tuple(features.values()) + (logits,)
    with v1.name_scope("weights", values=values) as scope:
        if weight_column is None:
            return 1.0
        weights = _weight_tensor(tf, features, weight_column)
        logits = tf.convert_to_tensor(logits)
        if tf.executing_eagerly():
            return _eager_weights(tf, weights, logits, allow_per_logit_weights, err)
        w_shape = tf.shape(weights, name="weights_shape")
        l_shape = tf.shape(logits, name="logits_shape")
        data = ["logits_shape: ", l_shape, "weights_shape: ", w_shape]
        if weights.shape.rank is not None and weights.shape.rank == logits.shape.rank - 1:
            check = v1.debugging.assert_equal(l_shape[:-1], w_shape, message=err, data=data)
            with tf.control_dependencies([check]):
                return tf.expand_dims(weights, -1, name=scope)
        one = tf.concat([l_shape[:-1], [1]], axis=0)
        if allow_per_logit_weights:
            fits = tf.reduce_any(
                [
                    tf.reduce_all(tf.equal(l_shape, w_shape)),
                    tf.reduce_all(tf.equal(one, w_shape)),
                ]
            )
            check = tf.debugging.Assert(fits, [err, *data])
        else:
            check = v1.debugging.assert_equal(one, w_shape, message=err, data=data)
        with tf.control_dependencies([check]):
            return tf.identity(weights, name=scope)


def _eager_weights(tf: TFModule, weights: Any, logits: Any, per_logit: bool, err: str) -> Any:
    w_dims, l_dims = tuple(weights.shape.as_list()), tuple(logits.shape.as_list())
    if len(w_dims) == len(l_dims) - 1:
        if l_dims[:-1] != w_dims:
            raise ValueError(f"{err}, logits_shape: {l_dims}. weights_shape: {w_dims}.")
        return tf.expand_dims(weights, -1)
    fits = (l_dims[:-1] + (1,),) + ((l_dims,) if per_logit else ())
    if w_dims not in fits:
        raise ValueError(f"{err}, logits_shape: {l_dims}. weights_shape: {w_dims}.")
    return weights


def create_estimator_spec_train_op(
    head_name: str | None,
    optimizer: Any = None,
    trainable_variables: Any = None,
    train_op_fn: Callable[[object], object] | None = None,
    update_ops: Sequence[object] | None = None,
    regularized_training_loss: object = None,
    loss_reduction: str = "sum_over_batch_size",
) -> Any:
    """The train op of a v2 head's TRAIN spec, built under the root `training` name scope.

    With `optimizer` (a Keras optimizer): `optimizer.get_updates(loss, trainable_variables)`;
    a mean-reduced loss is scaled by this replica's share of the batch under a strategy
    (1/N for even batches), as v2 heads do. Else `train_op_fn(loss)`. `update_ops` are
    grouped with it.

    Raises:
        ValueError: both or neither of `optimizer` and `train_op_fn`; an optimizer that is
            not a Keras one; `trainable_variables` or `update_ops` not a list or tuple.

    Example:
        >>> train_op = create_estimator_spec_train_op(  # doctest: +SKIP
        ...     "my_head", optimizer=opt, trainable_variables=variables,
        ...     regularized_training_loss=loss)
    """
    del head_name
    validate_update_ops(update_ops)
    tf = import_tf()
    v1 = tf.compat.v1
    loss = regularized_training_loss
    with v1.get_default_graph().name_scope(None), v1.name_scope("training"):
        if optimizer is not None:
            if train_op_fn is not None:
                raise ValueError("train_op_fn and optimizer cannot both be set.")
            validate_v2_optimizer(optimizer)
            validate_trainable_variables(trainable_variables)
            mean = loss_reduction == "sum_over_batch_size"
            train_op = keras_optimizer_train_op(optimizer, loss, trainable_variables, mean)
        elif train_op_fn is not None:
            train_op = train_op_fn(loss)
        else:
            raise ValueError("train_op_fn and optimizer cannot both be None.")
        if update_ops is not None:
            train_op = tf.group(train_op, *update_ops)
        return train_op


def keras_optimizer_train_op(optimizer: Any, loss: Any, variables: Any, mean_reduced: bool) -> Any:
    """A Keras optimizer's update of `variables` for `loss`, as the v2 heads make it.

    Under a strategy with several replicas a mean-reduced loss is first scaled by this
    replica's share of the global batch (1/N for even batches), so the summed gradients
    are the global mean's.

    Example:
        >>> op = keras_optimizer_train_op(opt, loss, variables, True)  # doctest: +SKIP
    """
    tf = import_tf()
    if mean_reduced and tf.distribute.get_strategy().num_replicas_in_sync > 1:
        loss = replica_share.scaled(loss)
    return optimizer.get_updates(loss, list(variables))[0]
