"""`TimeSeriesRegressor` and `LSTMAutoRegressor`: Estimators over time-series models."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport.estimator._canned import optimizers
from tfport.estimator._canned.timeseries import ar_model, feature_keys, math_utils, state_management
from tfport.estimator._canned.timeseries import head as ts_head_lib
from tfport.estimator._engine.api.receivers import ServingInputReceiver
from tfport.estimator._engine.estimator import Estimator

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns, OptimizerArg, TFModule
    from tfport.estimator._canned.timeseries.model import TimeSeriesModel
    from tfport.estimator._canned.timeseries.state_management import PassthroughStateManager
    from tfport.estimator._engine.api.run_config import RunConfig

_KEYS = feature_keys.TrainEvalFeatures


class TimeSeriesRegressor(Estimator):
    """An Estimator training, evaluating, predicting with and exporting a `TimeSeriesModel`.

    Features are `times` `[batch, window]` and `values` `[batch, window, num_features]`
    (no labels). Prediction takes `times` and a `start_tuple` state (e.g. the
    `start_tuple` an evaluation returned).

    Args:
        model: a `TimeSeriesModel` (e.g. `ARModel`).
        state_manager: default: `FilteringOnlyStateManager` for an `ARModel`, else
            `PassthroughStateManager`.
        optimizer: a `tf.compat.v1.train.Optimizer` (default Adam, learning rate 0.02).
        model_dir: the model folder.
        config: a `RunConfig`.
        head_type: the head class (`TimeSeriesRegressionHead` or `OneShotPredictionHead`).

    Example:
        >>> est = TimeSeriesRegressor(ar_model.ARModel(periodicities=12,
        ...     input_window_size=6, output_window_size=2, num_features=1))
        ... # doctest: +SKIP
        >>> est.train(input_fn, steps=40)  # doctest: +SKIP
    """

    def __init__(
        self,
        model: TimeSeriesModel,
        state_manager: PassthroughStateManager | None = None,
        optimizer: OptimizerArg | None = None,
        model_dir: str | None = None,
        config: RunConfig | None = None,
        head_type: type[
            ts_head_lib.TimeSeriesRegressionHead
        ] = ts_head_lib.TimeSeriesRegressionHead,
    ) -> None:
        statistics = math_utils.InputStatisticsFromMiniBatch(
            dtype=model.dtype, num_features=model.num_features
        )
        if state_manager is None:
            if isinstance(model, ar_model.ARModel):
                state_manager = state_management.FilteringOnlyStateManager()
            else:
                state_manager = state_management.PassthroughStateManager()
        if optimizer is None:
            optimizer = import_tf().compat.v1.train.AdamOptimizer(0.02)
        self._model = model
        head = head_type(
            model=model,
            state_manager=state_manager,
            optimizer=optimizer,
            input_statistics_generator=statistics,
        )
        super().__init__(model_fn=head.create_estimator_spec, model_dir=model_dir, config=config)

    def _model_start_state_placeholders(
        self, batch_size_tensor: Any, static_batch_size: Any = None
    ) -> dict:
        """`model_state_NN` placeholders defaulting to the start state tiled over the batch."""
        tf = import_tf()
        with tf.Graph().as_default():
            self._model.initialize_graph()
            start = tf.nest.map_structure(
                lambda t: tf.get_static_value(tf.compat.v1.zeros_like(t)),
                self._model.get_start_state(),
            )
        placeholders = {}
        for name, state in ts_head_lib.state_to_dictionary(start).items():
            shape = tf.TensorShape((static_batch_size,)).concatenate(state.shape)
            tiled = tf.tile(
                state[None, ...],
                multiples=tf.concat(
                    [batch_size_tensor[None], tf.ones(len(state.shape), dtype=tf.int32)], axis=0
                ),
            )
            placeholders[name] = tf.compat.v1.placeholder_with_default(
                input=tiled, name=name, shape=shape
            )
        return placeholders

    def build_one_shot_parsing_serving_input_receiver_fn(
        self,
        filtering_length: int,
        prediction_length: int,
        default_batch_size: int | None = None,
        values_input_dtype: Any = None,
        truncate_values: bool = False,
    ) -> Any:
        """A receiver parsing `tf.Example`s holding `times` (filtering + prediction) and `values`.

        Example:
            >>> fn = est.build_one_shot_parsing_serving_input_receiver_fn(10, 2)
            ... # doctest: +SKIP
        """
        return functools.partial(
            _one_shot_receiver,
            self,
            filtering_length,
            prediction_length,
            default_batch_size,
            values_input_dtype,
            truncate_values,
        )

    def build_raw_serving_input_receiver_fn(
        self, default_batch_size: int | None = None, default_series_length: int | None = None
    ) -> Any:
        """A receiver of raw `times`, `values`, exogenous features and `model_state_NN` tensors.

        Example:
            >>> est.export_saved_model("export", est.build_raw_serving_input_receiver_fn())
            ... # doctest: +SKIP
        """
        return functools.partial(_raw_receiver, self, default_batch_size, default_series_length)


def _one_shot_receiver(
    est: TimeSeriesRegressor,
    filtering_length: int,
    prediction_length: int,
    default_batch_size: Any,
    values_input_dtype: Any,
    truncate_values: bool,
) -> ServingInputReceiver:
    tf = import_tf()
    v1 = tf.compat.v1
    model = est._model
    values_length = filtering_length + (prediction_length if truncate_values else 0)
    total = filtering_length + prediction_length
    columns = list(model.exogenous_feature_columns) + [
        tf.feature_column.numeric_column(key=_KEYS.TIMES, dtype=tf.int64),
        tf.feature_column.numeric_column(
            key=_KEYS.VALUES, dtype=values_input_dtype or tf.float32, shape=(model.num_features,)
        ),
    ]
    spec = {}
    for key, feature in v1.feature_column.make_parse_example_spec(columns).items():
        if isinstance(feature, tf.io.FixedLenFeature):
            length = values_length if key == _KEYS.VALUES else total
            spec[key] = feature._replace(shape=(length,) + tuple(feature.shape))
        elif feature.dtype == tf.string:
            spec[key] = tf.io.FixedLenFeature(shape=(total,), dtype=tf.string)
        else:
            raise ValueError(f"VarLenFeatures not supported, got {feature} for key {key}")
    examples = v1.placeholder(shape=[default_batch_size], dtype=tf.string, name="input")
    features = v1.io.parse_example(serialized=examples, features=spec)
    features[_KEYS.TIMES] = v1.squeeze(features[_KEYS.TIMES], axis=-1)
    features[_KEYS.VALUES] = tf.cast(features[_KEYS.VALUES], dtype=model.dtype)[
        :, :filtering_length
    ]
    batch = v1.shape(features[_KEYS.TIMES])[0]
    features.update(est._model_start_state_placeholders(batch, default_batch_size))
    return ServingInputReceiver(features, {"examples": examples})


def _raw_receiver(
    est: TimeSeriesRegressor, default_batch_size: Any, default_series_length: Any
) -> ServingInputReceiver:
    tf = import_tf()
    v1 = tf.compat.v1
    model = est._model
    batch, length = default_batch_size, default_series_length
    times = v1.placeholder(name=_KEYS.TIMES, dtype=tf.int64, shape=[batch, length])
    placeholders = {_KEYS.TIMES: times}
    placeholders[_KEYS.VALUES] = v1.placeholder_with_default(
        name=_KEYS.VALUES,
        input=tf.zeros(shape=[batch or 0, length or 0, model.num_features], dtype=model.dtype),
        shape=(batch, length, model.num_features),
    )
    for key, (shape, dtype) in _exogenous_shapes(tf, model).items():
        shape = shape.with_rank_at_least(1).as_list()
        placeholders[key] = v1.placeholder(dtype=dtype, name=key, shape=[batch, length] + shape[1:])
    placeholders.update(est._model_start_state_placeholders(v1.shape(times)[0], batch))
    return ServingInputReceiver(placeholders, placeholders)


def _exogenous_shapes(tf: TFModule, model: TimeSeriesModel) -> dict:
    if not model.exogenous_feature_columns:
        return {}
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        spec = v1.feature_column.make_parse_example_spec(model.exogenous_feature_columns)
        parsed = v1.io.parse_example(
            serialized=v1.placeholder(shape=[None], dtype=tf.string), features=spec
        )
        return {key: (value.get_shape(), value.dtype) for key, value in parsed.items()}


class LSTMAutoRegressor(TimeSeriesRegressor):
    """An `ARModel` with an LSTM encoder/decoder, trained by a `TimeSeriesRegressor`.

    Its export (`build_one_shot_parsing_serving_input_receiver_fn` or the raw receiver)
    filters the given `values` and predicts the remaining `times` in one call.

    Args:
        periodicities: periods of the time features (see `ARModel`).
        input_window_size: past steps read.
        output_window_size: steps predicted at once.
        model_dir: the model folder.
        num_features: values per time step.
        extra_feature_columns: exogenous feature columns.
        num_timesteps: time buckets per periodicity.
        loss: `ARModel.NORMAL_LIKELIHOOD_LOSS` or `ARModel.SQUARED_LOSS`.
        num_units: LSTM units.
        optimizer: a name ('Adam', 'Adagrad', ...; learning rate 0.01) or an optimizer.
        config: a `RunConfig`.

    Example:
        >>> est = LSTMAutoRegressor(periodicities=10, input_window_size=10,
        ...                         output_window_size=5, num_units=16)  # doctest: +SKIP
    """

    def __init__(
        self,
        periodicities: int | list[int] | tuple[int, ...] | None,
        input_window_size: int,
        output_window_size: int,
        model_dir: str | None = None,
        num_features: int = 1,
        extra_feature_columns: FeatureColumns | None = None,
        num_timesteps: int = 10,
        loss: str = ar_model.ARModel.NORMAL_LIKELIHOOD_LOSS,
        num_units: int = 128,
        optimizer: OptimizerArg = "Adam",
        config: RunConfig | None = None,
    ) -> None:
        optimizer = optimizers.get_v1(optimizer, learning_rate=0.01)
        model = ar_model.ARModel(
            periodicities=periodicities,
            input_window_size=input_window_size,
            output_window_size=output_window_size,
            num_features=num_features,
            exogenous_feature_columns=extra_feature_columns,
            num_time_buckets=num_timesteps,
            loss=loss,
            prediction_model_factory=functools.partial(
                ar_model.LSTMPredictionModel, num_units=num_units
            ),
        )
        super().__init__(
            model=model,
            state_manager=state_management.FilteringOnlyStateManager(),
            optimizer=optimizer,
            model_dir=model_dir,
            config=config,
            head_type=ts_head_lib.OneShotPredictionHead,
        )
