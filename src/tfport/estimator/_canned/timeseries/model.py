"""`TimeSeriesModel`, the base of the time-series models, and `ModelOutputs`."""

from __future__ import annotations

import abc
import collections
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport.estimator._canned.timeseries import math_utils
from tfport.estimator._canned.timeseries.feature_keys import TrainEvalFeatures

if TYPE_CHECKING:
    from tfport._common.types import FeatureColumns

ModelOutputs = collections.namedtuple(
    "ModelOutputs", ["loss", "end_state", "predictions", "prediction_times"]
)


class TimeSeriesModel(abc.ABC):
    """Base of a time-series model: input statistics, scaling, exogenous features.

    Subclasses define `get_start_state`, `get_batch_loss` and `predict`.

    Args:
        num_features: values per time step.
        exogenous_feature_columns: feature columns of extra inputs (not predicted).
        dtype: the values' float dtype (default float32).

    Example:
        >>> class Mine(TimeSeriesModel): ...  # doctest: +SKIP
    """

    def __init__(
        self,
        num_features: int,
        exogenous_feature_columns: FeatureColumns | None = None,
        dtype: object = None,
    ) -> None:
        self._exogenous_feature_columns = list(exogenous_feature_columns or [])
        self.num_features = num_features
        self.dtype = dtype if dtype is not None else import_tf().float32
        self._input_statistics = None
        self._graph_initialized = False
        self._stats_means = None
        self._stats_sigmas = None

    @property
    def exogenous_feature_columns(self) -> list:
        """The feature columns of the exogenous features."""
        return self._exogenous_feature_columns

    def generate(
        self,
        number_of_series: int,
        series_length: int,
        model_parameters: Any = None,
        seed: int | None = None,
    ) -> Any:
        """Sampling series from the model (not supported by this model)."""
        raise NotImplementedError("This model does not support generation.")

    def initialize_graph(self, input_statistics: Any = None) -> None:
        """Prepares the model for a new graph; `input_statistics` normalise the values."""
        self._graph_initialized = True
        self._input_statistics = input_statistics
        if input_statistics:
            self._stats_means, variances = input_statistics.overall_feature_moments
            self._stats_sigmas = import_tf().math.sqrt(variances)

    def _scale_data(self, data: Any) -> Any:
        if self._input_statistics is None:
            return data
        return (data - self._stats_means) / self._stats_sigmas

    def _scale_variance(self, variance: Any) -> Any:
        if self._input_statistics is None:
            return variance
        return variance / self._input_statistics.overall_feature_moments.variance

    def _scale_back_data(self, data: Any) -> Any:
        if self._input_statistics is None:
            return data
        return data * self._stats_sigmas + self._stats_means

    def _scale_back_variance(self, variance: Any) -> Any:
        if self._input_statistics is None:
            return variance
        return variance * self._input_statistics.overall_feature_moments.variance

    def _check_graph_initialized(self) -> None:
        if not self._graph_initialized:
            raise ValueError(
                "TimeSeriesModels require initialize_graph() to be called before use. This "
                "defines variables and ops in the default graph, and allows Tensor-valued "
                "input statistics to be specified."
            )

    def define_loss(self, features: dict, mode: str) -> ModelOutputs:
        """The loss and outputs of `features`, starting from the model's start state."""
        self._check_graph_initialized()
        tf = import_tf()
        batch = tf.compat.v1.shape(features[TrainEvalFeatures.TIMES])[0]
        start = math_utils.replicate_state(self.get_start_state(), batch)
        return self.get_batch_loss(features=features, mode=mode, state=start)

    @abc.abstractmethod
    def get_start_state(self) -> Any:
        """The model's state before any data (no batch dimension)."""

    @abc.abstractmethod
    def get_batch_loss(self, features: dict, mode: str, state: Any) -> ModelOutputs:
        """The loss and outputs of a batch of `features` from `state`."""

    @abc.abstractmethod
    def predict(self, features: dict) -> dict:
        """Predictions for `features[times]` from `features[start_tuple]`."""

    def _get_exogenous_embedding_shape(self) -> list:
        if not self._exogenous_feature_columns:
            return [0]
        tf = import_tf()
        v1 = tf.compat.v1
        with tf.Graph().as_default():
            spec = v1.feature_column.make_parse_example_spec(self._exogenous_feature_columns)
            parsed = v1.io.parse_example(
                serialized=v1.placeholder(shape=[None], dtype=tf.string), features=spec
            )
            embedded = v1.feature_column.input_layer(
                features=parsed, feature_columns=self._exogenous_feature_columns
            )
            return embedded.get_shape().as_list()[1:]

    def _process_exogenous_features(self, times: Any, features: dict) -> Any:
        """The exogenous features embedded to `[batch, window, size]`, or None."""
        if not self._exogenous_feature_columns:
            return None
        tf = import_tf()
        v1 = tf.compat.v1
        flat = {}
        for name, tensor in features.items():
            if tensor.get_shape().ndims is None:
                raise ValueError(
                    "Features with unknown rank are not supported. Got shape "
                    f"{tensor.get_shape()} for feature {name}."
                )
            shape = v1.shape(tensor)
            tensor = tf.reshape(tensor, tf.concat([[shape[0] * shape[1]], shape[2:]], axis=0))
            if tensor.get_shape().ndims == 1 and tensor.dtype != tf.string:
                tensor = tensor[:, None]
            flat[name] = tensor
        embedded = v1.feature_column.input_layer(
            features=flat, feature_columns=self._exogenous_feature_columns, trainable=True
        )
        regressors = tf.reshape(
            embedded, tf.concat([v1.shape(times), v1.shape(embedded)[1:]], axis=0)
        )
        regressors.set_shape(times.get_shape().concatenate(embedded.get_shape()[1:]))
        return tf.cast(regressors, dtype=self.dtype)
