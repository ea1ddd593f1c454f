"""Helpers of the canned estimators under legacy's private names and signatures.

Summaries, argument checks, default optimizers and learning rates, RNN cells, weight-column
keys and batch sizes, LinearSDCA checks and the v2 DNN/linear/baseline builders of legacy's
`canned.dnn`, `canned.linear`, `canned.dnn_linear_combined`, `canned.baseline` and
`canned.rnn`, over tfport's canned code (`legacy_fns.py` has the model functions);
`tfport._legacy_tree` places them.

Example:
    >>> _linear_learning_rate(4)
    0.005
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport.estimator._canned import dnn, linear, optimizers, rnn

if TYPE_CHECKING:
    from tfport._common.types import (
        FeatureColumns,
        Features,
        KeyedColumn,
        Labels,
        OptimizerArg,
    )


def _add_hidden_layer_summary(value: Any, tag: str) -> None:
    """The fraction-of-zero scalar and activation histogram of a layer's output."""
    dnn.add_layer_summary(value, tag)


def _validate_features(features: Features) -> None:
    """ValueError unless `features` is a dict (what the DNN estimators take)."""
    if not isinstance(features, dict):
        raise ValueError(
            f"features should be a dictionary of `Tensor`s. Given type: {type(features)}"
        )


def _name_from_scope_name(name: str) -> str:
    """A name scope's name without its trailing `/`."""
    return name[:-1] if name and name[-1] == "/" else name


def _get_previous_name_scope() -> str:
    """The enclosing name scope of the current one, with a trailing `/`."""
    current = import_tf().compat.v1.get_default_graph().get_name_scope()
    return current.rsplit("/", 1)[0] + "/"


def _get_dnn_estimator_spec(
    use_tpu: bool,
    head: Any,
    features: Features,
    labels: Labels,
    mode: str,
    logits: Any,
    optimizer: OptimizerArg,
) -> Any:
    """The head's spec for `logits` (its TPU spec when `use_tpu`)."""
    create = head._create_tpu_estimator_spec if use_tpu else head.create_estimator_spec
    return create(features=features, mode=mode, labels=labels, optimizer=optimizer, logits=logits)


def _linear_learning_rate(num_linear_feature_columns: int) -> float:
    """The wide part's default learning rate: `min(0.005, 1/sqrt(columns))`."""
    return optimizers.linear_learning_rate(
        num_linear_feature_columns, optimizers.COMBINED_LINEAR_LEARNING_RATE
    )


def _check_no_sync_replicas_optimizer(optimizer: OptimizerArg) -> None:
    """ValueError for a SyncReplicasOptimizer (two optimizers cannot share one)."""
    if isinstance(optimizer, import_tf().compat.v1.train.SyncReplicasOptimizer):
        raise ValueError(
            "SyncReplicasOptimizer does not support multi optimizers case. Therefore, it is "
            "not supported in DNNLinearCombined model. If you want to use this optimizer, "
            "please use either DNN or Linear model."
        )


def _validate_feature_columns(
    linear_feature_columns: FeatureColumns | None, dnn_feature_columns: FeatureColumns | None
) -> list:
    """Both parts' columns in one list (ValueError when there are none)."""
    columns = list(linear_feature_columns or []) + list(dnn_feature_columns or [])
    if not columns:
        raise ValueError("Either linear_feature_columns or dnn_feature_columns must be defined.")
    return columns


def _compute_fraction_of_zero(variables: Any) -> Any:
    """The fraction of exactly-zero entries over all `variables` (partitions expanded)."""
    return linear.fraction_of_zero(_get_expanded_variable_list(variables))


def _get_expanded_variable_list(var_list: Any) -> list:
    """`var_list` with partitioned variables replaced by their partitions."""
    return linear._expand(var_list)


def _default_ftrl_rate(feature_columns: FeatureColumns) -> float:
    return min(optimizers.LINEAR_LEARNING_RATE, 1.0 / math.sqrt(len(feature_columns)))


def _get_default_optimizer(feature_columns: FeatureColumns) -> Any:
    """The linear estimators' default v1 optimizer: Ftrl at `min(0.2, 1/sqrt(columns))`."""
    return optimizers.get_v1("Ftrl", _default_ftrl_rate(feature_columns))


def _get_default_optimizer_v2(feature_columns: FeatureColumns) -> Any:
    """The v2 linear estimators' default Keras optimizer: Ftrl at `min(0.2, 1/sqrt(columns))`."""
    return optimizers.get_v2("Ftrl", _default_ftrl_rate(feature_columns))


def _single_rnn_cell(units: int, cell_type: str | Callable[..., object] | object) -> Any:
    """One Keras RNN cell of `cell_type` ('lstm', 'gru', 'simple_rnn' or a cell class)."""
    return rnn._single_cell(import_tf(), units, cell_type)


def _make_rnn_cell_fn(
    units: Sequence[int], cell_type: str | Callable[..., object] | object = "simple_rnn"
) -> Any:
    """A function making one cell per entry of `units` (the cell itself when one)."""

    def rnn_cell_fn() -> Any:
        cells = [_single_rnn_cell(n, cell_type) for n in units]
        return cells[0] if len(cells) == 1 else cells

    return rnn_cell_fn


def cell_types() -> dict:
    """Legacy `rnn._CELL_TYPES`: cell type name -> Keras cell class."""
    return rnn._layer_classes(import_tf())[1]


def cell_type_to_layer() -> dict:
    """Legacy `rnn._CELL_TYPE_TO_LAYER_MAPPING`: cell type name -> Keras RNN layer class."""
    return rnn._layer_classes(import_tf())[0]


def _get_rnn_estimator_spec(
    features: dict[str, object],
    labels: Labels,
    mode: str,
    head: Any,
    rnn_model: Any,
    optimizer: OptimizerArg,
    return_sequences: bool,
) -> Any:
    """The v2 head's spec over `rnn_model`'s logits (legacy's RNN model_fn body): a named
    optimizer gets lr 0.05 and clipnorm 5.0; the global step counts its iterations."""
    tf = import_tf()
    training = mode == "train"
    opt = None
    if training:
        if isinstance(optimizer, str):
            opt = optimizers.get_v2(optimizer, 0.05)
            opt.clipnorm = 5.0
        else:
            opt = optimizers.get_v2(optimizer)
        opt.iterations = tf.compat.v1.train.get_or_create_global_step()
    logits = rnn_model(features, training)
    if return_sequences and head.input_sequence_mask_key not in features:
        from tfport._common import keras_internals

        features[head.input_sequence_mask_key] = keras_internals.keras_mask(logits)
    return head.create_estimator_spec(
        features=features,
        mode=mode,
        labels=labels,
        optimizer=opt,
        logits=logits,
        update_ops=rnn_model.updates,
        trainable_variables=rnn_model.trainable_variables,
    )


def _weight_column_key(weight_column: Any, column_class: str) -> Any:
    if weight_column is None or isinstance(weight_column, str):
        return weight_column
    if column_class not in {c.__name__ for c in type(weight_column).__mro__}:
        raise TypeError(
            f"Weight column must be either a string or {column_class}. Given type: "
            f"{type(weight_column)}."
        )
    return weight_column.key


def _get_weight_column_key(weight_column: str | KeyedColumn | None) -> Any:
    """The features key of a v1 weight column (a string or `numeric_column`)."""
    return _weight_column_key(weight_column, "_NumericColumn")


def _get_weight_column_key_v2(weight_column: str | KeyedColumn | None) -> Any:
    """The features key of a weight column (a string or `numeric_column`)."""
    return _weight_column_key(weight_column, "NumericColumn")


def _get_batch_size_and_size_checks(features: dict, weight_column_key: Any) -> tuple:
    """`(size_checks, batch_size)`: the first feature's batch size (the weight column left
    out) and assertions that every other feature has it."""
    v1 = import_tf().compat.v1
    checks: list = []
    batch_size = None
    for key, feature in features.items():
        if key == weight_column_key:
            continue
        rows = v1.shape(feature)[0]
        if batch_size is None:
            batch_size = rows
        else:
            checks.append(v1.debugging.assert_equal(batch_size, rows))
    return checks, batch_size


def _baseline_logit_fn_builder(
    num_outputs: int, weight_column: str | KeyedColumn | None = None
) -> Any:
    """A logit_fn(features): the learned bias `baseline/bias` for every example."""

    def baseline_logit_fn(features: dict) -> Any:
        tf = import_tf()
        v1 = tf.compat.v1
        checks, batch_size = _get_batch_size_and_size_checks(
            features, _get_weight_column_key(weight_column)
        )
        with tf.control_dependencies(checks), v1.variable_scope("baseline"):
            bias = v1.get_variable("bias", shape=[num_outputs], initializer=v1.zeros_initializer())
            return tf.math.multiply(bias, tf.ones([batch_size, num_outputs]))

    return baseline_logit_fn


def _baseline_model_fn_builder_v2(
    features: dict, num_outputs: int, weight_column: str | KeyedColumn | None = None
) -> tuple:
    """`([bias], logits)`: a `tf.Variable` bias `baseline/bias` for every example."""
    tf = import_tf()
    checks, batch_size = _get_batch_size_and_size_checks(
        features, _get_weight_column_key_v2(weight_column)
    )
    with tf.control_dependencies(checks), tf.name_scope("baseline"):
        bias = tf.Variable(tf.zeros([num_outputs]), name="bias")
        logits = tf.math.multiply(bias, tf.ones([batch_size, num_outputs]))
    return [bias], logits


def _check_sdca(
    feature_columns: FeatureColumns, optimizer: OptimizerArg, sparse_combiner: str
) -> bool:
    from tfport.estimator._canned.sdca import LinearSDCA

    if not isinstance(optimizer, LinearSDCA):
        return False
    if sparse_combiner != "sum":
        raise ValueError('sparse_combiner must be "sum" when optimizer is a LinearSDCA object.')
    if not all(hasattr(c, "parse_example_spec") for c in feature_columns):
        raise ValueError("V2 feature columns required when optimizer is a LinearSDCA object.")
    return True


def _validate_linear_sdca_optimizer_for_linear_classifier(
    feature_columns: FeatureColumns, n_classes: int, optimizer: OptimizerArg, sparse_combiner: str
) -> None:
    """ValueError for what a LinearClassifier cannot train with a `LinearSDCA`."""
    if _check_sdca(feature_columns, optimizer, sparse_combiner) and n_classes > 2:
        raise ValueError("LinearSDCA cannot be used in a multi-class setting.")


def _validate_linear_sdca_optimizer_for_linear_regressor(
    feature_columns: FeatureColumns,
    label_dimension: int,
    optimizer: OptimizerArg,
    sparse_combiner: str,
) -> None:
    """ValueError for what a LinearRegressor cannot train with a `LinearSDCA`."""
    if _check_sdca(feature_columns, optimizer, sparse_combiner) and label_dimension > 1:
        raise ValueError("LinearSDCA can only be used with one-dimensional label.")


def _dnn_model_fn_builder_v2(
    units: int,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    batch_norm: bool,
    features: dict[str, object],
    mode: str,
) -> tuple:
    """`(logits, trainable_variables, update_ops)` of the v2 DNN (the Keras `dnn` model)."""
    from tfport.estimator._canned import v2_entry

    if not isinstance(units, int):
        raise ValueError(f"units must be an int.  Given type: {type(units)}")
    return v2_entry._build_dnn(
        features,
        mode,
        units,
        tuple(hidden_units),
        feature_columns,
        activation_fn,
        dropout,
        batch_norm,
    )


def _linear_model_fn_builder_v2(
    units: int,
    feature_columns: FeatureColumns,
    sparse_combiner: str = "sum",
    features: Any = None,
) -> tuple:
    """`(logits, variables)` of the v2 linear model `linear/linear_model`, with its bias and
    fraction-of-zero summaries."""
    from tfport.estimator._canned import v2_entry

    v2_entry._check_v2_columns(feature_columns)
    v1 = import_tf().compat.v1
    with v1.variable_scope("linear"):
        logits, bias, weights = linear.linear_logits(
            features, feature_columns, units, sparse_combiner
        )
    linear.add_linear_summaries(bias, weights, units)
    return logits, list(weights) + list(bias)
