"""The canned estimators' model functions under legacy's private names.

Libraries that build their own Estimators on legacy's canned internals call
`dnn._dnn_model_fn(features, labels, mode, head, hidden_units, feature_columns, ...)`,
`linear._linear_model_fn`, `dnn_linear_combined._dnn_linear_combined_model_fn`,
`baseline._baseline_model_fn`, `linear._sdca_model_fn` (and the `_v2` forms) with legacy's
positional signatures. Each runs tfport's canned model function (the same graphs, variable
names and numbers as the canned estimators); their helpers are in `legacy_helpers.py`;
`tfport._legacy_tree` places both under their legacy modules.

Example:
    >>> spec = _dnn_model_fn(features, labels, "train", head, [8], columns)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tfport.estimator._canned import model_fns
from tfport.estimator._canned.combined import combined_model_fn
from tfport.estimator._canned.legacy_helpers import (
    _get_weight_column_key,
    _get_weight_column_key_v2,
    _validate_feature_columns,
)

if TYPE_CHECKING:
    from tfport._common.types import (
        FeatureColumns,
        Features,
        KeyedColumn,
        Labels,
        ModelHead,
        OptimizerArg,
    )
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._heads.base import Head

_RELU = "relu"  # legacy's default `tf.nn.relu`, by the name tfport's layers take


def _check_reduction(head: Head, loss_reduction: str) -> None:
    if loss_reduction != head.loss_reduction:
        raise ValueError(
            f"loss_reduction ({loss_reduction}) differs from the head's "
            f"({head.loss_reduction}): tfport scales the train op by the head's reduction. "
            "Build the head with the loss_reduction you pass here."
        )


def _dnn_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg = "Adagrad",
    activation_fn: Callable[..., object] | str = _RELU,
    dropout: float | None = None,
    input_layer_partitioner: Callable[..., object] | None = None,
    config: RunConfig | None = None,
    use_tpu: bool = False,
    batch_norm: bool = False,
) -> Any:
    """Legacy `dnn._dnn_model_fn` (a v1 head): the DNN estimators' model_fn."""
    if use_tpu:
        raise ValueError(
            "_dnn_model_fn(use_tpu=True) is not supported by tfport: run the DNN through "
            "tf.compat.v1.estimator.tpu.TPUEstimator, which builds the TPU spec itself."
        )
    return model_fns.dnn_model_fn(
        features,
        labels,
        mode,
        config,
        head=head,
        hidden_units=hidden_units,
        feature_columns=feature_columns,
        optimizer=optimizer,
        activation_fn=activation_fn,
        dropout=dropout,
        batch_norm=batch_norm,
        input_layer_partitioner=input_layer_partitioner,
    )


def _linear_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg,
    partitioner: Callable[..., object] | None,
    config: RunConfig | None,
    sparse_combiner: str = "sum",
) -> Any:
    """Legacy `linear._linear_model_fn` (a v1 head)."""
    return model_fns.linear_model_fn(
        features,
        labels,
        mode,
        config,
        head=head,
        feature_columns=feature_columns,
        optimizer=optimizer,
        partitioner=partitioner,
        sparse_combiner=sparse_combiner,
    )


def _linear_model_fn_v2(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg,
    config: RunConfig | None,
    sparse_combiner: str = "sum",
) -> Any:
    """Legacy `linear._linear_model_fn_v2` (a v2 head; no partitioner)."""
    return _linear_model_fn(
        features, labels, mode, head, feature_columns, optimizer, None, config, sparse_combiner
    )


def _dnn_linear_combined_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    linear_feature_columns: FeatureColumns | None = None,
    linear_optimizer: OptimizerArg = "Ftrl",
    dnn_feature_columns: FeatureColumns | None = None,
    dnn_optimizer: OptimizerArg = "Adagrad",
    dnn_hidden_units: Sequence[int] | None = None,
    dnn_activation_fn: Callable[..., object] | str = _RELU,
    dnn_dropout: float | None = None,
    input_layer_partitioner: Callable[..., object] | None = None,
    config: RunConfig | None = None,
    batch_norm: bool = False,
    linear_sparse_combiner: str = "sum",
) -> Any:
    """Legacy `dnn_linear_combined._dnn_linear_combined_model_fn` (a v1 head)."""
    return combined_model_fn(
        features,
        labels,
        mode,
        config,
        head=head,
        linear_feature_columns=linear_feature_columns or (),
        linear_optimizer=linear_optimizer,
        dnn_feature_columns=dnn_feature_columns or (),
        dnn_optimizer=dnn_optimizer,
        dnn_hidden_units=dnn_hidden_units,
        dnn_activation_fn=dnn_activation_fn,
        dnn_dropout=dnn_dropout,
        input_layer_partitioner=input_layer_partitioner,
        batch_norm=batch_norm,
        linear_sparse_combiner=linear_sparse_combiner,
    )


def _dnn_linear_combined_model_fn_v2(
    features: Features,
    labels: Labels,
    mode: str,
    head: Head,
    linear_feature_columns: FeatureColumns | None = None,
    linear_optimizer: OptimizerArg = "Ftrl",
    dnn_feature_columns: FeatureColumns | None = None,
    dnn_optimizer: OptimizerArg = "Adagrad",
    dnn_hidden_units: Sequence[int] | None = None,
    dnn_activation_fn: Callable[..., object] | str = _RELU,
    dnn_dropout: float | None = None,
    config: RunConfig | None = None,
    batch_norm: bool = False,
    linear_sparse_combiner: str = "sum",
    loss_reduction: str = "sum_over_batch_size",
) -> Any:
    """Legacy `dnn_linear_combined._dnn_linear_combined_model_fn_v2` (a v2 head; no
    partitioner; `loss_reduction` must be the head's)."""
    _check_reduction(head, loss_reduction)
    return _dnn_linear_combined_model_fn(
        features,
        labels,
        mode,
        head,
        linear_feature_columns,
        linear_optimizer,
        dnn_feature_columns,
        dnn_optimizer,
        dnn_hidden_units,
        dnn_activation_fn,
        dnn_dropout,
        None,
        config,
        batch_norm,
        linear_sparse_combiner,
    )


def _baseline_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    optimizer: OptimizerArg,
    weight_column: str | KeyedColumn | None = None,
    config: RunConfig | None = None,
) -> Any:
    """Legacy `baseline._baseline_model_fn` (a v1 head): the baseline estimators' model_fn
    (the batch size is read from a feature other than `weight_column`)."""
    weight_key = _get_weight_column_key(weight_column)
    features = _without(features, weight_key)
    return model_fns.baseline_model_fn(
        features, labels, mode, config, head=head, optimizer=optimizer
    )


def _baseline_model_fn_v2(
    features: Features,
    labels: Labels,
    mode: str,
    head: Head,
    optimizer: OptimizerArg,
    weight_column: str | KeyedColumn | None = None,
    config: RunConfig | None = None,
    loss_reduction: str = "sum_over_batch_size",
) -> Any:
    """Legacy `baseline._baseline_model_fn_v2` (a v2 head; `loss_reduction` must be the
    head's)."""
    _check_reduction(head, loss_reduction)
    features = _without(features, _get_weight_column_key_v2(weight_column))
    return model_fns.baseline_model_fn(
        features, labels, mode, config, head=head, optimizer=optimizer
    )


def _without(features: Features, key: str | None) -> Any:
    """`features` ordered with `key` last, so the batch size comes from another feature."""
    if not isinstance(features, dict) or key not in features:
        return features
    ordered = {k: v for k, v in features.items() if k != key}
    ordered[key] = features[key]
    return ordered


def _sdca_model_fn(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg,
) -> Any:
    """Legacy `linear._sdca_model_fn`: the Linear model_fn trained by a `LinearSDCA`."""
    from tfport.estimator._canned import sdca_ops

    return sdca_ops.sdca_model_fn(
        features,
        labels,
        mode,
        None,
        head=head,
        feature_columns=feature_columns,
        optimizer=optimizer,
    )


def _init_dnn_linear_combined_estimator(
    head: ModelHead,
    linear_feature_columns: FeatureColumns | None,
    linear_optimizer: OptimizerArg,
    dnn_feature_columns: FeatureColumns | None,
    dnn_optimizer: OptimizerArg,
    dnn_hidden_units: Sequence[int] | None,
    dnn_activation_fn: Callable[..., object] | str,
    dnn_dropout: float | None,
    input_layer_partitioner: Callable[..., object] | None,
    linear_sparse_combiner: str,
) -> tuple:
    """`(feature_columns, model_fn(features, labels, mode, config))` of a v1 wide & deep
    estimator over `head`."""
    columns = _validate_feature_columns(linear_feature_columns, dnn_feature_columns)

    def model_fn(features: Features, labels: Labels, mode: str, config: RunConfig | None) -> Any:
        return _dnn_linear_combined_model_fn(
            features,
            labels,
            mode,
            head,
            linear_feature_columns or [],
            linear_optimizer,
            dnn_feature_columns or [],
            dnn_optimizer,
            dnn_hidden_units,
            dnn_activation_fn,
            dnn_dropout,
            input_layer_partitioner,
            config,
            linear_sparse_combiner=linear_sparse_combiner,
        )

    return columns, model_fn
