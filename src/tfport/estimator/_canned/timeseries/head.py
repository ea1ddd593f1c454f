"""The time-series heads: the model_fn of `TimeSeriesRegressor` and `LSTMAutoRegressor`.

`TimeSeriesRegressionHead.create_estimator_spec` trains (loss through the state
manager, the head's optimizer), evaluates (identity metrics of the predictions, times
and end state, `average_loss`) and predicts; with flattened `model_state_NN` features
(a serving graph) it exports the `serving_default`, `filter` and `cold_start_filter`
signatures. `OneShotPredictionHead` exports one signature that filters and predicts.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from tfport._common import replica_share, tf_internals
from tfport._common.tfenv import import_tf
from tfport.estimator._canned.timeseries import feature_keys, math_utils
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import Features, Labels, Mode, OptimizerArg, TFModule
    from tfport.estimator._canned.timeseries.math_utils import InputStatisticsFromMiniBatch
    from tfport.estimator._canned.timeseries.model import TimeSeriesModel
    from tfport.estimator._canned.timeseries.state_management import PassthroughStateManager

_LOSS, _LOSS_MEAN = "loss", "average_loss"
_STATE_RE = re.compile("^" + feature_keys.State.STATE_PREFIX + r"_(\d+)$")


def _no_state(tensors: dict) -> dict:
    prefix = feature_keys.State.STATE_PREFIX
    return {k: v for k, v in tensors.items() if not k.startswith(prefix)}


_PredictOutput: Any = tf_internals.predict_output_class()


class _NoStatePredictOutput(_PredictOutput):
    """A `PredictOutput` whose signature leaves the state inputs out."""

    def as_signature_def(self, receiver_tensors: dict) -> Any:
        return super().as_signature_def(receiver_tensors=_no_state(receiver_tensors))


class TimeSeriesRegressionHead:
    """Turns a `TimeSeriesModel` into EstimatorSpecs (the legacy v1 head interface).

    Args:
        model: a `TimeSeriesModel`.
        state_manager: a state manager (`FilteringOnlyStateManager`, ...).
        optimizer: a `tf.compat.v1.train.Optimizer` used in TRAIN.
        input_statistics_generator: an `InputStatisticsFromMiniBatch`, or None.
        name: the head's name (scopes and the loss summary's suffix).

    Example:
        >>> head = TimeSeriesRegressionHead(model, FilteringOnlyStateManager(), opt)
        ... # doctest: +SKIP
        >>> est = tf.estimator.Estimator(head.create_estimator_spec)  # doctest: +SKIP
    """

    def __init__(
        self,
        model: TimeSeriesModel,
        state_manager: PassthroughStateManager,
        optimizer: Any,
        input_statistics_generator: InputStatisticsFromMiniBatch | None = None,
        name: str | None = None,
    ) -> None:
        self.model = model
        self.state_manager = state_manager
        self.optimizer = optimizer
        self.input_statistics_generator = input_statistics_generator
        self._name = name

    @property
    def name(self) -> str | None:
        """The head's name."""
        return self._name

    @property
    def logits_dimension(self) -> int:
        """Always 1 (the head reads no logits)."""
        return 1

    def create_loss(
        self, features: dict, mode: str, logits: Any = None, labels: Labels = None
    ) -> Any:
        """The model's outputs through the state manager; writes the `loss` summary."""
        tf = import_tf()
        outputs = self.state_manager.define_loss(self.model, features, mode)
        key = _LOSS if not self._name else f"{_LOSS}/{self._name}"
        tf.compat.v1.summary.scalar(key, outputs.loss)
        return outputs

    def _create_tpu_estimator_spec(
        self,
        features: Features,
        mode: Mode,
        logits: Any,
        labels: Labels = None,
        optimizer: OptimizerArg | None = None,
        train_op_fn: Any = None,
        regularization_losses: Any = None,
    ) -> Any:
        raise NotImplementedError("TPUEstimatorSpec not available for this model head.")

    def _train_ops(self, features: dict) -> EstimatorSpec:
        tf = import_tf()
        with tf.compat.v1.variable_scope("model", use_resource=True):
            outputs = self.create_loss(features, ModeKeys.TRAIN)
        train_op = self.optimizer.minimize(
            outputs.loss, global_step=tf.compat.v1.train.get_global_step()
        )
        return EstimatorSpec(loss=outputs.loss, mode=ModeKeys.TRAIN, train_op=train_op)

    def _evaluate_ops(self, features: dict) -> EstimatorSpec:
        tf = import_tf()
        with tf.compat.v1.variable_scope("model", use_resource=True):
            outputs = self.create_loss(features, ModeKeys.EVAL)
        metrics = {
            key: _identity_metric_single(key, value) for key, value in outputs.predictions.items()
        }
        times_key, state_key = feature_keys.FilteringResults.TIMES, feature_keys.State.STATE_TUPLE
        metrics[times_key] = _identity_metric_single(times_key, outputs.prediction_times)
        metrics[state_key] = _identity_metric_nested(state_key, outputs.end_state)
        metrics[_LOSS_MEAN] = tf.compat.v1.metrics.mean(
            outputs.loss, weights=_replica_weight(tf), name="average_loss"
        )
        return EstimatorSpec(
            loss=outputs.loss,
            mode=ModeKeys.EVAL,
            eval_metric_ops=metrics,
            predictions=outputs.predictions,
        )

    def _predict_ops(self, features: dict) -> EstimatorSpec:
        tf = import_tf()
        with tf.compat.v1.variable_scope("model", use_resource=True):
            prediction = self.model.predict(features=features)
        key = feature_keys.PredictionResults.TIMES
        prediction[key] = features[feature_keys.PredictionFeatures.TIMES]
        return EstimatorSpec(predictions=prediction, mode=ModeKeys.PREDICT)

    def _serving_ops(self, features: dict) -> EstimatorSpec:
        tf = import_tf()
        scope = tf.compat.v1.variable_scope
        with scope("model", use_resource=True):
            predicted = self.model.predict(features=features)
        with scope("model", reuse=True):
            filtered = self.create_loss(features, ModeKeys.EVAL)
        with scope("model", reuse=True):
            cold = self.model.define_loss(features=_no_state(features), mode=ModeKeys.EVAL)
        labels = feature_keys.SavedModelLabels
        outputs = {
            labels.PREDICT: _PredictOutput(predicted),
            labels.FILTER: _PredictOutput(state_to_dictionary(filtered.end_state)),
            labels.COLD_START_FILTER: _NoStatePredictOutput(state_to_dictionary(cold.end_state)),
        }
        return EstimatorSpec(mode=ModeKeys.PREDICT, export_outputs=outputs, predictions={})

    def _convert_feature_to_tensor(self, name: str, value: Any) -> Any:
        tf = import_tf()
        if name in (feature_keys.TrainEvalFeatures.TIMES, feature_keys.PredictionFeatures.TIMES):
            return tf.cast(value, tf.int64)
        if name == feature_keys.TrainEvalFeatures.VALUES:
            return tf.cast(value, self.model.dtype)
        if name == feature_keys.PredictionFeatures.STATE_TUPLE:
            return value
        return tf.compat.v1.convert_to_tensor_or_sparse_tensor(value)

    def _gather_state(self, features: dict) -> tuple[dict, bool]:
        """Packs `model_state_NN` features back into a `start_tuple` feature."""
        numbered = []
        for key, tensor in features.items():
            found = _STATE_RE.search(key)
            if found:
                numbered.append((int(found.group(1)), key, tensor))
        if not numbered:
            return features, False
        features = {k: v for k, v in features.items() if not _STATE_RE.search(k)}
        numbered.sort(key=lambda item: item[0])
        features[feature_keys.State.STATE_TUPLE] = import_tf().nest.pack_sequence_as(
            structure=self.model.get_start_state(), flat_sequence=[t for _, _, t in numbered]
        )
        return features, True

    def _check_predict_features(self, features: dict) -> None:
        _require(features, feature_keys.PredictionFeatures.TIMES, "prediction")
        _require(features, feature_keys.PredictionFeatures.STATE_TUPLE, "prediction")
        _check_times_and_shapes(
            features,
            feature_keys.PredictionFeatures.TIMES,
            ignore={feature_keys.PredictionFeatures.STATE_TUPLE},
        )

    def create_estimator_spec(
        self, features: dict, mode: str, labels: Labels = None
    ) -> EstimatorSpec:
        """The EstimatorSpec of `mode` (the model_fn of the time-series estimators)."""
        tf = import_tf()
        with tf.compat.v1.name_scope(self._name, "head"):
            if labels is not None and not (isinstance(labels, dict) and labels == {}):
                raise ValueError(
                    "The model received a `labels`, which is not supported. Pass "
                    f"'{feature_keys.TrainEvalFeatures.TIMES}' and "
                    f"'{feature_keys.TrainEvalFeatures.VALUES}' as features."
                )
            features = {
                name: self._convert_feature_to_tensor(name=name, value=value)
                for name, value in features.items()
            }
            statistics = None
            if self.input_statistics_generator is not None:
                statistics = self.input_statistics_generator.initialize_graph(
                    features, update_statistics=mode == ModeKeys.TRAIN
                )
            self.model.initialize_graph(input_statistics=statistics)
            features, passed_state = self._gather_state(features)
            if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
                _check_train_eval_features(features, self.model)
            elif mode == ModeKeys.PREDICT:
                self._check_predict_features(features)
            else:
                raise ValueError(f"Unknown mode '{mode}' passed to model_fn.")
            self.state_manager.initialize_graph(model=self.model, input_statistics=statistics)
            if mode == ModeKeys.TRAIN:
                return self._train_ops(features)
            if mode == ModeKeys.EVAL:
                return self._evaluate_ops(features)
            return self._serving_ops(features) if passed_state else self._predict_ops(features)


class OneShotPredictionHead(TimeSeriesRegressionHead):
    """A head whose export filters `values` and predicts the remaining `times` in one call.

    Its serving signature takes `times` (filtering + prediction window), `values`
    (filtering window) and exogenous features, and no state.

    Example:
        >>> head = OneShotPredictionHead(model, FilteringOnlyStateManager(), opt)
        ... # doctest: +SKIP
    """

    def _check_predict_features(self, features: dict) -> None:
        _require(features, feature_keys.PredictionFeatures.TIMES, "prediction")
        _require(features, feature_keys.TrainEvalFeatures.VALUES, "prediction")
        _require(features, feature_keys.PredictionFeatures.STATE_TUPLE, "prediction")
        _check_times_and_shapes(
            features,
            feature_keys.PredictionFeatures.TIMES,
            ignore={
                feature_keys.PredictionFeatures.STATE_TUPLE,
                feature_keys.TrainEvalFeatures.VALUES,
            },
        )

    def _evaluate_ops(self, features: dict) -> EstimatorSpec:
        spec = super()._evaluate_ops(features)
        del (spec.eval_metric_ops or {})[feature_keys.State.STATE_TUPLE]
        return spec

    def _serving_ops(self, features: dict) -> EstimatorSpec:
        tf = import_tf()
        values_key = feature_keys.FilteringFeatures.VALUES
        with tf.compat.v1.variable_scope("model", use_resource=True):
            filtering, predicting = {}, {}
            length = tf.compat.v1.shape(features[values_key])[1]
            for key, value in features.items():
                if key == feature_keys.State.STATE_TUPLE:
                    continue
                if key == values_key:
                    filtering[key] = value
                else:
                    filtering[key] = value[:, :length]
                    predicting[key] = value[:, length:]
            cold = self.model.define_loss(features=filtering, mode=ModeKeys.EVAL)
            predicting[feature_keys.State.STATE_TUPLE] = cold.end_state
        with tf.compat.v1.variable_scope("model", reuse=True):
            predicted = self.model.predict(features=predicting)
        outputs = {feature_keys.SavedModelLabels.PREDICT: _NoStatePredictOutput(predicted)}
        return EstimatorSpec(mode=ModeKeys.PREDICT, export_outputs=outputs, predictions={})


def _replica_weight(tf: TFModule) -> Any:
    """None on one device; on replicas, this replica's share of the global batch (the loss
    is a per-example mean, so the shares weight the replicas' losses into the global one)."""
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return None
    return replica_share.mean_scale()


def _require(features: dict, key: str, what: str) -> None:
    if key not in features:
        raise ValueError(f"Expected a '{key}' feature for {what}.")


def _check_times_and_shapes(features: dict, times_key: str, ignore: set) -> None:
    times = features[times_key]
    if not times.get_shape().is_compatible_with([None, None]):
        raise ValueError(
            f"Expected shape (batch dimension, window size) for feature '{times_key}' "
            f"(got shape {times.get_shape()})"
        )
    _check_feature_shapes_compatible_with(features, times_key, times, ignore)


def _check_feature_shapes_compatible_with(
    features: dict, compatible_with_name: str, compatible_with_value: Any, ignore: Any = None
) -> None:
    """Every feature (but `ignore`) has the times feature's (batch, window) prefix."""
    times_shape = compatible_with_value.get_shape()
    for name, value in features.items():
        if name in (ignore or set()):
            continue
        shape = value.get_shape()
        if shape.ndims is None:
            continue
        if shape.ndims < 2:
            raise ValueError(
                "Features must have shape (batch dimension, window size, ...) (got rank "
                f"{shape.ndims} for feature '{name}')"
            )
        if not shape[:2].is_compatible_with(times_shape):
            raise ValueError(
                "Features must have shape (batch dimension, window size, ...) where batch "
                f"dimension and window size match the '{compatible_with_name}' feature (got "
                f"shape {shape} for feature '{name}' but shape {times_shape} for feature "
                f"'{compatible_with_name}')"
            )


def _check_train_eval_features(features: dict, model: TimeSeriesModel) -> None:
    """`times` `[batch, window]` and `values` `[batch, window, num_features]` are present."""
    times_key, values_key = (
        feature_keys.TrainEvalFeatures.TIMES,
        feature_keys.TrainEvalFeatures.VALUES,
    )
    _require(features, times_key, "training/evaluation")
    _require(features, values_key, "training/evaluation")
    times = features[times_key]
    if not times.get_shape().is_compatible_with([None, None]):
        raise ValueError(
            f"Expected shape (batch dimension, window size) for feature '{times_key}' "
            f"(got shape {times.get_shape()})"
        )
    if not features[values_key].get_shape().is_compatible_with([None, None, model.num_features]):
        raise ValueError(
            f"Expected shape (batch dimension, window size, {model.num_features}) for feature "
            f"'{values_key}', since the model was configured with num_features="
            f"{model.num_features} (got shape {features[values_key].get_shape()})"
        )
    _check_feature_shapes_compatible_with(
        features, times_key, times, ignore={feature_keys.State.STATE_TUPLE}
    )


def _identity_metric_single(name: str, input_tensor: Any) -> tuple[Any, Any]:
    """A metric whose value is the last `input_tensor` it was updated with."""
    tf = import_tf()
    v1 = tf.compat.v1
    input_tensor = math_utils.global_batch(input_tensor)  # on replicas: every replica's part
    variable = v1.Variable(
        name=f"{name}_identity_metric",
        initial_value=tf.zeros([], dtype=input_tensor.dtype),
        collections=[v1.GraphKeys.LOCAL_VARIABLES],
        validate_shape=False,
        shape=tf.TensorShape(None),  # resource variables too take any assigned shape
        # under a strategy: each replica keeps its own; reading gives the first replica's
        synchronization=tf.VariableSynchronization.ON_READ,
        aggregation=tf.VariableAggregation.ONLY_FIRST_REPLICA,
    )
    update = v1.assign(variable, input_tensor, validate_shape=False)
    value = variable.value()
    if tf.is_tensor(value):
        value.set_shape(input_tensor.get_shape())
    return value, update


def _identity_metric_nested(name: str, input_tensors: Any) -> tuple[Any, Any]:
    """`_identity_metric_single` over a nested structure; one grouped update."""
    tf = import_tf()
    pairs = [
        _identity_metric_single(f"{name}_{i}", tensor)
        for i, tensor in enumerate(tf.nest.flatten(input_tensors))
    ]
    values = tf.nest.pack_sequence_as(input_tensors, [value for value, _ in pairs])
    return values, tf.group(*[update for _, update in pairs])


def state_to_dictionary(state_tuple: Any) -> dict:
    """A (nested) state flattened to `{"model_state_00": part, ...}`.

    Example:
        >>> sorted(state_to_dictionary((1, (2, 3))))
        ['model_state_00', 'model_state_01', 'model_state_02']
    """
    flat = import_tf().nest.flatten(state_tuple)
    return {f"{feature_keys.State.STATE_PREFIX}_{i:02d}": part for i, part in enumerate(flat)}
