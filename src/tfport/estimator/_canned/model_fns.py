"""model_fns of the canned estimators, v1 and v2, built from heads and logit builders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import checks, dnn, linear, optimizers
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import (
        FeatureColumns,
        Features,
        Labels,
        ModelHead,
        OptimizerArg,
        TFModule,
    )
    from tfport.estimator._engine.api.run_config import RunConfig


def _values(features: Features) -> tuple:
    return tuple(features.values()) if isinstance(features, dict) else ()


def _trainable(tf: TFModule, scope: str) -> list:
    v1 = tf.compat.v1
    return v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, scope=scope + "/")


def _iterations(opt: Any) -> Any:
    step = import_tf().compat.v1.train.get_or_create_global_step()
    if getattr(opt, "_iterations", None) is not step:  # one instance, every replica
        opt.iterations = step
    return opt


def dnn_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    config: RunConfig | None,
    *,
    head: ModelHead,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg = "Adagrad",
    activation_fn: Callable[..., object] | str = "relu",
    dropout: float | None = None,
    batch_norm: bool = False,
    input_layer_partitioner: Callable[..., object] | None = None,
) -> Any:
    """DNN model_fn; `head.v2` selects the generation.

    Example:
        >>> dnn_model_fn(features, labels, mode, config, head=head, hidden_units=[8],
        ...              feature_columns=cols)  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    checks.check_features(features, feature_columns, "DNN estimator")
    features = cast("dict[str, object]", features)  # check_features refused anything else
    kwargs: dnn.DNNSettings = dict(
        units=head.logits_dimension,
        hidden_units=hidden_units,
        feature_columns=feature_columns,
        activation_fn=activation_fn,
        dropout=dropout,
        batch_norm=batch_norm,
        v2=head.v2,
    )
    if head.v2:
        with v1.variable_scope("dnn", values=_values(features)):
            logits = dnn.dnn_logits(features, mode, **kwargs)
        opt = _iterations(optimizers.get_v2(optimizer)) if mode == ModeKeys.TRAIN else None
        return head.create_estimator_spec(
            features, mode, logits, labels, optimizer=opt, trainable_variables=_trainable(tf, "dnn")
        )
    opt = optimizers.get_v1(optimizer, optimizers.DNN_LEARNING_RATE)
    partitioner, input_partitioner = dnn.v1_partitioners(config, input_layer_partitioner)
    with v1.variable_scope("dnn", values=_values(features), partitioner=partitioner):
        logits = dnn.dnn_logits(features, mode, input_layer_partitioner=input_partitioner, **kwargs)
        return head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)


def _linear_optimizer(optimizer: OptimizerArg, columns: FeatureColumns, v2: bool) -> Any:
    tf = import_tf()
    if optimizer is None:
        ftrl = tf.keras.optimizers.legacy.Ftrl if v2 else tf.compat.v1.train.FtrlOptimizer
        return ftrl(learning_rate=optimizers.linear_learning_rate(len(columns)))
    get = optimizers.get_v2 if v2 else optimizers.get_v1
    return get(optimizer, optimizers.LINEAR_LEARNING_RATE)


def linear_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    config: RunConfig | None,
    *,
    head: ModelHead,
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg = "Ftrl",
    partitioner: Callable[..., object] | None = None,
    sparse_combiner: str = "sum",
) -> Any:
    """Linear model_fn; `head.v2` selects the generation.

    Example:
        >>> linear_model_fn(features, labels, mode, config, head=head,
        ...                 feature_columns=cols)  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    checks.check_features(features, feature_columns, "Linear estimator")
    features = cast("dict[str, object]", features)  # check_features refused anything else
    units = head.logits_dimension

    if head.v2:
        with v1.variable_scope("linear", values=_values(features)):
            logits, bias, weights = linear.linear_logits(
                features, feature_columns, units, sparse_combiner
            )
        linear.add_linear_summaries(bias, weights, units)
        opt = None
        if mode == ModeKeys.TRAIN:
            opt = _iterations(_linear_optimizer(optimizer, feature_columns, v2=True))
        return head.create_estimator_spec(
            features,
            mode,
            logits,
            labels,
            optimizer=opt,
            trainable_variables=_trainable(tf, "linear"),
        )
    replicas = getattr(config, "num_ps_replicas", 0) or 0
    partitioner = partitioner or v1.min_max_variable_partitioner(
        max_partitions=replicas, min_slice_size=64 << 20
    )
    with v1.variable_scope("linear", values=_values(features), partitioner=partitioner):
        logits, bias, weights = linear.linear_logits(
            features, feature_columns, units, sparse_combiner
        )
        linear.add_linear_summaries(bias, weights, units)
        opt = _linear_optimizer(optimizer, feature_columns, v2=False)
        return head.create_estimator_spec(features, mode, logits, labels, optimizer=opt)


def baseline_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    config: RunConfig | None,
    *,
    head: ModelHead,
    optimizer: OptimizerArg = "Ftrl",
) -> Any:
    """Baseline model_fn: logits are a learned bias `baseline/bias`, whatever the features.

    Example:
        >>> baseline_model_fn(features, labels, mode, config, head=head)  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    del config
    values = list(features.values()) if isinstance(features, dict) else [features]
    dense = [v for v in values if isinstance(v, tf.Tensor)]
    if not dense and not isinstance(labels, tf.Tensor):
        raise TfportInputError(
            message(
                "Baseline estimators need one dense feature (or labels) to know the batch size",
                "Return at least one dense Tensor feature",
                features=features,
            )
        )
    units = head.logits_dimension
    with v1.variable_scope("baseline"):
        bias = v1.get_variable("bias", shape=[units], initializer=v1.zeros_initializer())
        batch_size = tf.shape(dense[0] if dense else labels)[0]
        logits = tf.reshape(tf.tile(bias, [batch_size]), [batch_size, units])
    summary = v1.summary
    if units > 1:
        summary.histogram("bias", bias)
    else:
        summary.scalar("bias", bias[0])
    lr = optimizers.BASELINE_LEARNING_RATE
    if head.v2:
        opt = _iterations(optimizers.get_v2(optimizer, lr)) if mode == ModeKeys.TRAIN else None
        return head.create_estimator_spec(
            features, mode, logits, labels, optimizer=opt, trainable_variables=[bias]
        )
    return head.create_estimator_spec(
        features, mode, logits, labels, optimizer=optimizers.get_v1(optimizer, lr)
    )
