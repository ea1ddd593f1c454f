"""DNNLinearCombined (wide & deep) model_fn, v1 and v2."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from tfport._common import replica_share
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import checks, dnn, linear, optimizers
from tfport.estimator._canned.model_fns import _iterations, _trainable, _values
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, Features, Labels, ModelHead, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head


def _check_columns(
    linear_columns: FeatureColumns | None,
    dnn_columns: FeatureColumns | None,
    hidden_units: Sequence[int] | None,
) -> None:
    if not linear_columns and not dnn_columns:
        raise TfportInputError(
            message(
                "Either linear_feature_columns or dnn_feature_columns must be given",
                "Pass at least one of them",
                linear_feature_columns=linear_columns,
                dnn_feature_columns=dnn_columns,
            )
        )
    if dnn_columns:
        dnn.check_hidden_units(hidden_units)


def combined_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    config: RunConfig | None,
    *,
    head: ModelHead,
    linear_feature_columns: FeatureColumns = (),
    linear_optimizer: OptimizerArg = "Ftrl",
    dnn_feature_columns: FeatureColumns = (),
    dnn_optimizer: OptimizerArg = "Adagrad",
    dnn_hidden_units: Sequence[int] | None = None,
    dnn_activation_fn: Callable[..., object] | str = "relu",
    dnn_dropout: float | None = None,
    input_layer_partitioner: Callable[..., object] | None = None,
    batch_norm: bool = False,
    linear_sparse_combiner: str = "sum",
) -> Any:
    """Wide & deep model_fn: logits = dnn logits + linear logits; two optimizers.

    Example:
        >>> combined_model_fn(features, labels, mode, config, head=head,
        ...                   linear_feature_columns=[cat], dnn_feature_columns=[x],
        ...                   dnn_hidden_units=[8])  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    _check_columns(linear_feature_columns, dnn_feature_columns, dnn_hidden_units)
    checks.check_features(
        features,
        list(linear_feature_columns) + list(dnn_feature_columns),
        "DNNLinearCombined estimator",
    )
    features = cast("dict[str, object]", features)  # check_features refused anything else
    v2, units = head.v2, head.logits_dimension
    lin_lr = optimizers.linear_learning_rate(
        len(linear_feature_columns or [1]), optimizers.COMBINED_LINEAR_LEARNING_RATE
    )
    dnn_lr = optimizers.COMBINED_DNN_LEARNING_RATE
    dnn_part, input_part = (
        (None, None) if v2 else dnn.v1_partitioners(config, input_layer_partitioner)
    )
    logits_parts, var_lists, opts = [], [], []
    if dnn_feature_columns:
        with v1.variable_scope("dnn", values=_values(features), partitioner=dnn_part):
            logits_parts.append(
                dnn.dnn_logits(
                    features,
                    mode,
                    units=units,
                    hidden_units=cast("Sequence[int]", dnn_hidden_units),  # _check_columns
                    feature_columns=dnn_feature_columns,
                    activation_fn=dnn_activation_fn,
                    dropout=dnn_dropout,
                    batch_norm=batch_norm,
                    input_layer_partitioner=input_part,
                    v2=v2,
                )
            )
        var_lists.append(_trainable(tf, "dnn"))
        opts.append((dnn_optimizer, dnn_lr))
    if linear_feature_columns:
        with v1.variable_scope("linear", values=_values(features), partitioner=input_part) as scope:
            logits, bias, weights = linear.linear_logits(
                features, linear_feature_columns, units, linear_sparse_combiner
            )
            if not v2:
                linear.add_linear_summaries(bias, weights, units)
                dnn.add_layer_summary(logits, scope.name)
        if v2:
            linear.add_linear_summaries(bias, weights, units)
            dnn.add_layer_summary(logits, "linear")
        logits_parts.append(logits)
        var_lists.append(_trainable(tf, "linear"))
        opts.append((linear_optimizer, lin_lr))
    logits = logits_parts[0] if len(logits_parts) == 1 else logits_parts[0] + logits_parts[1]
    train_op_fn = None
    if mode == ModeKeys.TRAIN:
        train_op_fn = (
            _train_op_fn_v2(opts, var_lists, cast("Head", head).loss_reduction != "sum")
            if v2
            else _train_op_fn_v1(opts, var_lists)
        )
    return head.create_estimator_spec(features, mode, logits, labels, train_op_fn=train_op_fn)


def _train_op_fn_v1(opts: list, var_lists: list) -> Any:
    built = [optimizers.get_v1(opt, lr) for opt, lr in opts]

    def train_op_fn(loss: object) -> Any:
        tf = import_tf()
        ops = [opt.minimize(loss, var_list=vs) for opt, vs in zip(built, var_lists)]
        with tf.control_dependencies([tf.group(*ops)]):
            return tf.compat.v1.assign_add(tf.compat.v1.train.get_global_step(), 1).op

    return train_op_fn


def _train_op_fn_v2(opts: list, var_lists: list, scale: bool) -> Any:
    built = [optimizers.get_v2(opt, lr) for opt, lr in opts]
    _iterations(built[0])

    def train_op_fn(loss: object) -> Any:
        tf = import_tf()
        replicas = tf.distribute.get_strategy().num_replicas_in_sync
        if scale and replicas > 1:
            loss = replica_share.scaled(loss)  # b_r / B: 1/N if even
        ops = []
        for opt, vs in zip(built, var_lists):
            ops.extend(opt.get_updates(loss, vs))
        return tf.group(*ops)

    return train_op_fn
