"""The v2 entry points of legacy's `canned.dnn` / `canned.linear` modules that libraries build
custom Estimators on: `dnn_logit_fn_builder_v2`, `dnn_model_fn_v2`, `linear_logit_fn_builder_v2`.

They run tfport's canned DNN and linear builders (`dnn.dnn_logits`, `linear.linear_logits`)
and give legacy's variable names and summaries. Legacy's Keras DNN took its names from name
scopes: `dnn/hiddenlayer_0/kernel` at the top, `deep/dnn/deep/hiddenlayer_0/kernel` inside
`variable_scope("deep")` (or `name_scope("deep")`), `dnn_1/hiddenlayer_0_1/kernel` for a
second DNN in the same scope (all measured on TF 2.15). The linear model is
`linear_model/<column>/weights` and `linear_model/bias_weights`.

Example:
    >>> from tfport.estimator._canned.v2_entry import linear_logit_fn_builder_v2
    >>> callable(linear_logit_fn_builder_v2(1, []))
    True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._canned import dnn, linear, optimizers
from tfport.estimator._canned.logit_fns import _check_units
from tfport.estimator._canned.model_fns import _iterations, _trainable
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.api.tpu_spec import TPUEstimatorSpec

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, Features, Labels, ModelHead, OptimizerArg
    from tfport.estimator._engine.api.run_config import RunConfig

tf = import_tf()  # the legacy default activation is the function `tf.nn.relu`

__all__ = ["dnn_logit_fn_builder_v2", "dnn_model_fn_v2", "linear_logit_fn_builder_v2"]


def _check_v2_columns(feature_columns: FeatureColumns) -> None:
    base = tf.__internal__.feature_column.FeatureColumn
    for column in feature_columns:
        if not isinstance(column, base):
            raise TfportInputError(
                message(
                    "Received a feature column from TensorFlow v1, but this is a TensorFlow v2 "
                    "model",
                    "Use v2 feature columns (tf.feature_column.*), or the v1 builders "
                    "(tf.compat.v1.estimator.experimental.*_logit_fn_builder) with v1 columns",
                    column=column,
                )
            )


def _check_features(features: Features) -> None:
    if not isinstance(features, dict):
        raise TfportInputError(
            message(
                "features should be a dictionary of `Tensor`s",
                "Return ({'name': tensor, ...}, labels) from input_fn",
                features=type(features),
            )
        )


def _layer_names(hidden_units: tuple) -> dict:
    """Legacy's layer names: the name scopes its Keras DNN opened for them, in its order."""
    v1 = tf.compat.v1
    names = {}
    for base in (
        "input_from_feature_columns",
        *(f"hiddenlayer_{i}" for i in range(len(hidden_units))),
        "logits",
    ):
        with v1.name_scope(base) as scope:
            names[base] = tf_internals.unreplicated_name(scope[:-1])
    return names


def _build_dnn(
    features: dict[str, object],
    mode: str,
    units: int,
    hidden_units: tuple,
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    batch_norm: bool,
) -> tuple:
    """(logits, trainable variables, update ops) of the DNN, named as legacy's Keras `dnn`
    model named them: `<model scope>/<layer scope>/kernel`, both name scopes of the call."""
    v1 = tf.compat.v1
    _check_v2_columns(feature_columns)
    names = _layer_names(hidden_units)
    reuse = v1.get_variable_scope().reuse
    with v1.name_scope("dnn", values=tuple(features.values())) as model_scope:
        scope = v1.VariableScope(reuse=reuse, name=tf_internals.unreplicated_name(model_scope[:-1]))
        settings = (units, hidden_units, feature_columns, activation_fn, dropout, batch_norm)
        return dnn_in_scope(scope, names, features, mode, *settings)


def dnn_in_scope(
    scope: Any,
    names: dict,
    features: dict[str, object],
    mode: str,
    units: int,
    hidden_units: tuple,
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    batch_norm: bool,
) -> tuple:
    """(logits, trainable variables, update ops) of the v2 DNN built in variable scope
    `scope` (a `VariableScope`), its layers named by `names` (see `_layer_names`).

    Example:
        >>> logits, variables, updates = dnn_in_scope(  # doctest: +SKIP
        ...     scope, _layer_names((4,)), features, "train", 2, (4,), cols, tf.nn.relu,
        ...     None, False)
    """
    v1 = tf.compat.v1
    before = set(v1.get_collection(v1.GraphKeys.UPDATE_OPS))
    with v1.variable_scope(scope, auxiliary_name_scope=False):
        logits = dnn.dnn_logits(
            features,
            mode,
            units=units,
            hidden_units=hidden_units,
            feature_columns=list(feature_columns),
            activation_fn=activation_fn,
            dropout=dropout,
            batch_norm=batch_norm,
            v2=True,
            layer_names=names,
        )
    variables = _trainable(tf, scope.name)
    updates = [op for op in v1.get_collection(v1.GraphKeys.UPDATE_OPS) if op not in before]
    return logits, variables, updates


def dnn_logit_fn_builder_v2(
    units: int,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    activation_fn: Callable[..., object] | str,
    dropout: float | None,
    batch_norm: bool,
) -> Callable:
    """A `logit_fn(features, mode)` building the v2 canned DNN (legacy's Keras `dnn` model).

    Args:
        units: dimension of the logits.
        hidden_units: widths of the hidden layers.
        feature_columns: v2 feature columns read through the input layer.
        activation_fn: activation of the hidden layers.
        dropout: drop probability in training, or None.
        batch_norm: batch normalization after each hidden layer.

    Returns:
        `logit_fn(features, mode) -> logits` of shape `[batch, units]`.

    Raises:
        ValueError: `units` is not an int (a `TfportInputError`).

    Example:
        >>> fn = dnn_logit_fn_builder_v2(3, [8], cols, tf.nn.relu, None, False)  # doctest: +SKIP
        >>> logits = fn(features, tf.estimator.ModeKeys.TRAIN)  # doctest: +SKIP
    """
    units = _check_units(units)

    def dnn_logit_fn(features: Features, mode: str) -> Any:
        _check_features(features)
        features = cast("dict[str, object]", features)  # _check_features refused the rest
        hidden = tuple(hidden_units)  # legacy took [] (logits straight from the inputs)
        return _build_dnn(
            features, mode, units, hidden, feature_columns, activation_fn, dropout, batch_norm
        )[0]

    return dnn_logit_fn


def dnn_model_fn_v2(
    features: Features,
    labels: Labels,
    mode: str,
    head: ModelHead,
    hidden_units: Sequence[int],
    feature_columns: FeatureColumns,
    optimizer: OptimizerArg = "Adagrad",
    activation_fn: Callable[..., object] | str = tf.nn.relu,
    dropout: float | None = None,
    config: RunConfig | None = None,
    use_tpu: bool = False,
    batch_norm: bool = False,
) -> Any:
    """The model_fn of the v2 DNN estimators, over any v2 head.

    Args:
        features: dict of feature name -> `Tensor`.
        labels: the labels, or None in PREDICT.
        mode: a `ModeKeys` value.
        head: a `tf.estimator.Head` (v2).
        hidden_units: widths of the hidden layers.
        feature_columns: v2 feature columns.
        optimizer: a Keras optimizer name, class, instance or callable (TRAIN only).
        activation_fn: activation of the hidden layers.
        dropout: drop probability in training, or None.
        config: the `RunConfig` (unused, as in legacy).
        use_tpu: build the spec with `head._create_tpu_estimator_spec`.
        batch_norm: batch normalization after each hidden layer.

    Returns:
        The head's `EstimatorSpec` (`TPUEstimatorSpec` with `use_tpu`).

    Example:
        >>> def model_fn(features, labels, mode, config):  # doctest: +SKIP
        ...     return dnn_model_fn_v2(features, labels, mode, tf.estimator.BinaryClassHead(),
        ...                            [8, 4], cols, config=config)
    """
    del config
    _check_features(features)
    features = cast("dict[str, object]", features)  # _check_features refused the rest

    logits, variables, updates = _build_dnn(
        features,
        mode,
        _check_units(head.logits_dimension),
        tuple(hidden_units),
        feature_columns,
        activation_fn,
        dropout,
        batch_norm,
    )
    opt = None
    if mode == ModeKeys.TRAIN:
        opt = _iterations(optimizers.get_v2(optimizer))  # one instance, every replica
    spec_fn = _tpu_spec(head) if use_tpu else head.create_estimator_spec
    return spec_fn(
        features=features,
        mode=mode,
        labels=labels,
        optimizer=opt,
        logits=logits,
        trainable_variables=variables,
        update_ops=updates,
    )


def _tpu_spec(head: Any) -> Callable:
    """The head's `_create_tpu_estimator_spec`; for a head without one (tfport's own v2
    heads), its `create_estimator_spec` as a `TPUEstimatorSpec` whose `eval_metrics` give
    back the metric ops it built (tfport's TPUEstimator builds metrics in the model graph)."""
    make = getattr(head, "_create_tpu_estimator_spec", None)
    if make is not None:
        return make

    def create_tpu_estimator_spec(**kwargs: object) -> TPUEstimatorSpec:
        spec = head.create_estimator_spec(**kwargs)
        ops = spec.eval_metric_ops
        return TPUEstimatorSpec(
            mode=spec.mode,
            predictions=spec.predictions,
            loss=spec.loss,
            train_op=spec.train_op,
            eval_metrics=(lambda: ops, []) if ops else None,
            export_outputs=spec.export_outputs,
            training_hooks=spec.training_hooks,
            evaluation_hooks=spec.evaluation_hooks,
            prediction_hooks=spec.prediction_hooks,
        )

    return create_tpu_estimator_spec


def linear_logit_fn_builder_v2(
    units: int, feature_columns: FeatureColumns, sparse_combiner: str = "sum"
) -> Callable:
    """A `logit_fn(features)` building the v2 linear model (`linear_model/...` variables).

    Adds legacy's `bias` and `fraction_of_zero_weights` summaries.

    Args:
        units: dimension of the logits.
        feature_columns: v2 feature columns.
        sparse_combiner: how multivalent categorical columns combine (`'sum'`, `'mean'`,
            `'sqrtn'`).

    Returns:
        `logit_fn(features) -> logits` of shape `[batch, units]`.

    Example:
        >>> fn = linear_logit_fn_builder_v2(1, cols)  # doctest: +SKIP
        >>> logits = fn(features)  # doctest: +SKIP
    """

    def linear_logit_fn(features: dict[str, object]) -> Any:
        _check_v2_columns(feature_columns)
        logits, bias, weights = linear.linear_logits(
            features, list(feature_columns), _check_units(units), sparse_combiner
        )
        linear.add_linear_summaries(bias, weights, units)
        return logits

    return linear_logit_fn
