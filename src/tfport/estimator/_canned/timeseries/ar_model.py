"""`ARModel`: an autoregressive time-series model over a Keras prediction model.

Each window of `input_window_size + output_window_size` steps is turned into input
features (time-bucket features of each periodicity, the input values, exogenous
features) and output features (time buckets and exogenous features of the output
steps); the prediction model (by default `LSTMPredictionModel`, an LSTM encoder/decoder)
maps them to a predicted mean and covariance of the output steps. Prediction feeds its
own means back in, `output_window_size` steps at a time.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport.estimator._canned.timeseries import model, model_utils
from tfport.estimator._canned.timeseries.feature_keys import PredictionFeatures, TrainEvalFeatures
from tfport.estimator._engine.api.spec import ModeKeys

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns

tf = import_tf()  # LSTMPredictionModel subclasses a Keras model: this module loads lazily
_Model: Any = tf.keras.models.Model
_HALF_LOG_TWO_PI = 0.5 * math.log(2.0 * math.pi)


class LSTMPredictionModel(_Model):
    """An LSTM encoder over the input window, an LSTM decoder over the output window.

    Args:
        num_features: values per time step (the size of the predictions).
        input_window_size: steps of the input window.
        output_window_size: steps of the output window.
        num_units: units of the encoder and decoder LSTMs.

    Example:
        >>> factory = functools.partial(LSTMPredictionModel, num_units=32)  # doctest: +SKIP
    """

    def __init__(
        self,
        num_features: int,
        input_window_size: int,
        output_window_size: int,
        num_units: int = 128,
    ) -> None:
        super().__init__()
        layers = tf.keras.layers
        self._encoder = layers.LSTM(num_units, name="encoder", dtype=self.dtype, return_state=True)
        self._decoder = layers.LSTM(
            num_units, name="decoder", dtype=self.dtype, return_sequences=True
        )
        self._mean_transform = layers.Dense(num_features, name="mean_transform")
        self._covariance_transform = layers.Dense(num_features, name="covariance_transform")

    def call(self, input_window_features: Any, output_window_features: Any) -> dict:
        """`{"mean", "covariance"}` of the output window, `[batch, output, features]`."""
        _, state_h, state_c = self._encoder(input_window_features)
        decoded = self._decoder(output_window_features, initial_state=[state_h, state_c])
        return {
            "mean": self._mean_transform(decoded),
            "covariance": tf.math.exp(self._covariance_transform(decoded)),
        }


class ARModel(model.TimeSeriesModel):
    """Autoregressive model over windows of a series.

    Args:
        periodicities: one or more periods (in time units); each adds
            `num_time_buckets` time features (the offset into the bucket the time falls in).
        input_window_size: past steps the model reads.
        output_window_size: future steps predicted at once (> 0).
        num_features: values per time step.
        prediction_model_factory: called with `num_features`, `input_window_size`,
            `output_window_size`; returns a Keras model called on (input window,
            output window) features and returning `{"mean", "covariance"}`.
        num_time_buckets: buckets per periodicity.
        loss: `ARModel.NORMAL_LIKELIHOOD_LOSS` (also trains the covariance) or
            `ARModel.SQUARED_LOSS`.
        exogenous_feature_columns: feature columns of extra, not-predicted inputs.

    Example:
        >>> model = ARModel(periodicities=12, input_window_size=6, output_window_size=2,
        ...                 num_features=1)  # doctest: +SKIP
        >>> est = TimeSeriesRegressor(model)  # doctest: +SKIP
    """

    SQUARED_LOSS = "squared_loss"
    NORMAL_LIKELIHOOD_LOSS = "normal_likelihood_loss"

    def __init__(
        self,
        periodicities: int | list[int] | tuple[int, ...] | None,
        input_window_size: int,
        output_window_size: int,
        num_features: int,
        prediction_model_factory: Any = LSTMPredictionModel,
        num_time_buckets: int = 10,
        loss: str = NORMAL_LIKELIHOOD_LOSS,
        exogenous_feature_columns: FeatureColumns | None = None,
    ) -> None:
        self._model_factory = prediction_model_factory
        self.input_window_size = input_window_size
        self.output_window_size = output_window_size
        self.window_size = input_window_size + output_window_size
        self.loss = loss
        super().__init__(
            num_features=num_features, exogenous_feature_columns=exogenous_feature_columns
        )
        self.exogenous_size = (
            self._get_exogenous_embedding_shape()[-1] if exogenous_feature_columns else 0
        )
        if num_time_buckets <= 0:
            raise ValueError(f"num_time_buckets must be > 0. Received: {num_time_buckets}")
        self._buckets = int(num_time_buckets)
        if not periodicities:
            periodicities = []
        elif not isinstance(periodicities, (list, tuple)):
            periodicities = [periodicities]
        self._periodicities = [int(p) for p in periodicities]
        if any(p <= 0 for p in self._periodicities):
            raise ValueError(f"periodicities must be > 0. Received: {periodicities}")
        if not (self._periodicities or input_window_size):
            raise ValueError("ARModel needs periodicities or an input_window_size > 0.")
        if output_window_size <= 0:
            raise ValueError(f"output_window_size must be > 0. Received: {output_window_size}")

    def initialize_graph(self, input_statistics: Any = None) -> None:
        """Prepares a new graph: the variable scope and a fresh prediction model."""
        super().initialize_graph(input_statistics=input_statistics)
        self._model_scope = tf.compat.v1.variable_scope("model/", use_resource=True)
        self._model_instance = self._model_factory(
            num_features=self.num_features,
            input_window_size=self.input_window_size,
            output_window_size=self.output_window_size,
        )

    def get_start_state(self) -> tuple:
        """Zeros: (times `[input]`, values `[input, features]`, exogenous `[input, size]`)."""
        n = self.input_window_size
        return (
            tf.zeros([n], dtype=tf.int64),
            tf.zeros([n, self.num_features], dtype=self.dtype),
            tf.zeros([n, self.exogenous_size], dtype=self.dtype),
        )

    def random_model_parameters(self, seed: int | None = None) -> None:
        """Not used by this model (kept for the legacy interface)."""

    def generate(
        self,
        number_of_series: int,
        series_length: int,
        model_parameters: Any = None,
        seed: int | None = None,
    ) -> None:
        """Not supported by this model (kept for the legacy interface; returns None)."""

    def _predicted_covariance_op(self, activations: list, num_values: int) -> Any:
        activation, size = activations[-1]
        if self.loss == ARModel.NORMAL_LIKELIHOOD_LOSS:
            log_sigma_square = model_utils.fully_connected(
                activation,
                size,
                self.output_window_size * num_values,
                name="log_sigma_square",
                activation=None,
            )
            covariance = tf.math.exp(log_sigma_square)
            return tf.reshape(covariance, [-1, self.output_window_size, num_values])
        shape = tf.stack(
            [
                tf.compat.v1.shape(activation)[0],
                tf.constant(self.output_window_size),
                tf.constant(num_values),
            ]
        )
        return tf.ones(shape=shape, dtype=activation.dtype)

    def _predicted_mean_op(self, activations: list) -> Any:
        activation, size = activations[-1]
        mean = model_utils.fully_connected(
            activation,
            size,
            self.output_window_size * self.num_features,
            name="predicted_mean",
            activation=None,
        )
        return tf.reshape(mean, [-1, self.output_window_size, self.num_features])

    def prediction_ops(self, times: Any, values: Any, exogenous_regressors: Any) -> dict:
        """Predicted `{"mean", "covariance"}` of the output window of each window.

        Args:
            times: `[batch, window_size]` integer times (input then output steps).
            values: `[batch, input_window_size, num_features]` input values.
            exogenous_regressors: `[batch, window_size, exogenous_size]`, or None.
        """
        times.get_shape().assert_is_compatible_with([None, self.window_size])
        batch = tf.compat.v1.shape(times)[0]
        if self.input_window_size:
            values.get_shape().assert_is_compatible_with(
                [None, self.input_window_size, self.num_features]
            )
        if exogenous_regressors is not None:
            exogenous_regressors.get_shape().assert_is_compatible_with(
                [None, self.window_size, self.exogenous_size]
            )
        inputs, outputs, in_size, out_size = [], [], 0, 0
        sizes = (self.input_window_size, self.output_window_size)
        if self._periodicities:
            _, time_features = self._compute_time_features(times)
            count = self._buckets * len(self._periodicities)
            time_features = tf.reshape(time_features, [batch, self.window_size, count])
            time_in, time_out = tf.split(time_features, sizes, axis=1)
            inputs.append(time_in)
            outputs.append(time_out)
            in_size, out_size = in_size + count, out_size + count
        if self.input_window_size:
            window = tf.slice(values, [0, 0, 0], [-1, self.input_window_size, -1])
            inputs.append(tf.reshape(window, [batch, self.input_window_size, self.num_features]))
            in_size += self.num_features
        if self.exogenous_size:
            exo_in, exo_out = tf.split(exogenous_regressors, sizes, axis=1)
            inputs.append(exo_in)
            outputs.append(exo_out)
            in_size, out_size = in_size + self.exogenous_size, out_size + self.exogenous_size
        input_features = tf.concat(inputs, axis=2)
        if outputs:
            output_features = tf.concat(outputs, axis=2)
        else:
            output_features = tf.zeros([batch, self.output_window_size, 0], dtype=self.dtype)
        static_batch = times.get_shape().dims[0].value
        input_features.set_shape([static_batch, self.input_window_size, in_size])
        output_features.set_shape([static_batch, self.output_window_size, out_size])
        return self._output_window_predictions(input_features, output_features)

    def _output_window_predictions(
        self, input_window_features: Any, output_window_features: Any
    ) -> dict:
        with self._model_scope:
            predictions = self._model_instance(input_window_features, output_window_features)
            for value in predictions.values():
                value.set_shape([None, self.output_window_size, self.num_features])
            return predictions

    def loss_op(self, targets: Any, prediction_ops: dict) -> Any:
        """The mean negative normal log-likelihood, or the mean squared error."""
        prediction = prediction_ops["mean"]
        if self.loss == ARModel.NORMAL_LIKELIHOOD_LOSS:
            sigma = tf.math.sqrt(tf.math.maximum(prediction_ops["covariance"], 1e-5))
            # log N(prediction; loc=targets, scale=sigma)
            log_prob = -0.5 * tf.math.square((prediction - targets) / sigma) - (
                _HALF_LOG_TWO_PI + tf.math.log(sigma)
            )
            loss = -tf.math.reduce_sum(log_prob)
        elif self.loss == ARModel.SQUARED_LOSS:
            loss = tf.math.reduce_sum(tf.math.square(prediction - targets))
        else:
            raise ValueError(f"Unknown ARModel loss. Received: loss={self.loss!r}")
        count = tf.cast(tf.math.reduce_prod(tf.compat.v1.shape(targets)), loss.dtype)
        # 0, not NaN, on a replica given no examples (a batch smaller than the replicas)
        return tf.math.divide_no_nan(loss, count)

    def _process_exogenous_features(self, times: Any, features: dict) -> Any:
        embedded = super()._process_exogenous_features(times=times, features=features)
        if embedded is not None:
            return embedded
        return tf.zeros(tf.concat([tf.compat.v1.shape(times), tf.constant([0])], axis=0))

    def _exogenous_of(self, times: Any, features: dict) -> Any:
        skip = (TrainEvalFeatures.TIMES, TrainEvalFeatures.VALUES, PredictionFeatures.STATE_TUPLE)
        rest = {k: v for k, v in features.items() if k not in skip}
        return self._process_exogenous_features(times=times, features=rest)

    def predict(self, features: dict) -> dict:
        """Predictions for `features["times"]` after the state `features["start_tuple"]`.

        Returns `{"mean", "covariance"}`, `[batch, len(times), num_features]`.
        """
        if not self._graph_initialized:
            self.initialize_graph()
        from tfport.estimator._canned.timeseries import _ar_predict

        return _ar_predict.predict(self, features)

    def _process_window(self, features: dict, mode: str, exogenous_regressors: Any) -> Any:
        """The loss and predictions of one window of `window_size` steps."""
        times = tf.cast(features[TrainEvalFeatures.TIMES], tf.int64)
        values = tf.cast(features[TrainEvalFeatures.VALUES], dtype=self.dtype)
        exogenous_regressors = tf.cast(exogenous_regressors, dtype=self.dtype)
        original_values = values
        if not times.get_shape().is_compatible_with([None, self.window_size]):
            raise ValueError(
                f"ARModel with input_window_size={self.input_window_size} and "
                f"output_window_size={self.output_window_size} expects feature "
                f"'{TrainEvalFeatures.TIMES}' to have shape (batch_size, {self.window_size}) "
                f"(for any batch_size), but got shape {times.get_shape()}. If you are using "
                f"RandomWindowInputFn, set window_size={self.window_size} or adjust the "
                "input_window_size and output_window_size arguments to ARModel."
            )
        values = self._scale_data(values)
        inputs = values[:, : self.input_window_size, :] if self.input_window_size > 0 else None
        prediction_ops = self.prediction_ops(times, inputs, exogenous_regressors)
        targets = tf.slice(values, [0, self.input_window_size, 0], [-1, -1, -1])
        targets.get_shape().assert_is_compatible_with(prediction_ops["mean"].get_shape())
        if mode == ModeKeys.EVAL and self.loss == ARModel.SQUARED_LOSS:
            loss = self.loss_op(
                self._scale_back_data(targets),
                {"mean": self._scale_back_data(prediction_ops["mean"])},
            )
        else:
            loss = self.loss_op(targets, prediction_ops)
        n = self.input_window_size
        return model.ModelOutputs(
            loss=loss,
            end_state=(times[:, -n:], values[:, -n:, :], exogenous_regressors[:, -n:, :]),
            predictions={
                "mean": self._scale_back_data(prediction_ops["mean"]),
                "covariance": self._scale_back_variance(prediction_ops["covariance"]),
                "observed": original_values[:, -self.output_window_size :],
            },
            prediction_times=times[:, -self.output_window_size :],
        )

    def get_batch_loss(self, features: dict, mode: str, state: Any) -> Any:
        """The loss and outputs of a batch (TRAIN: one window; EVAL: windows along it).

        In EVAL the series may be longer than `window_size`: its last whole output
        windows are predicted one after another (non-overlapping).
        """
        features = {k: tf.convert_to_tensor(v) for k, v in features.items()}
        times = features[TrainEvalFeatures.TIMES]
        exogenous = self._exogenous_of(times, features)
        if mode == ModeKeys.TRAIN:
            return self._process_window(features, mode=mode, exogenous_regressors=exogenous)
        if mode == ModeKeys.EVAL:
            from tfport.estimator._canned.timeseries import _ar_predict

            return _ar_predict.evaluate_windows(self, features, times, exogenous, state)
        raise ValueError(f"Unknown mode '{mode}' passed to get_batch_loss.")

    def _compute_time_features(self, time: Any) -> tuple[Any, Any]:
        """(offsets, bucket features `[batch, window, periodicities, buckets]`) of `time`."""
        batch = tf.compat.v1.shape(time)[0]
        periods = tf.constant(
            self._periodicities, shape=[1, 1, len(self._periodicities), 1], dtype=time.dtype
        )
        time = tf.reshape(time, [batch, -1, 1, 1])
        window_offset = time / self._periodicities
        mod = tf.cast(time % periods, self.dtype) * self._buckets / tf.cast(periods, self.dtype)
        intervals = tf.reshape(tf.range(self._buckets, dtype=self.dtype), [1, 1, 1, self._buckets])
        mod = tf.nn.relu(mod - intervals)
        mod = tf.where(mod < 1.0, mod, tf.compat.v1.zeros_like(mod))
        return window_offset, mod
