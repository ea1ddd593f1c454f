"""Input statistics of time-series models, and replicating a start state over a batch.

`InputStatisticsFromMiniBatch` keeps running moments of the training data in variables
(`input_statistics/*`, `input_statistics_auxiliary/*`, the legacy names and order) that
the models use to normalise values.
"""

from __future__ import annotations

import collections
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport.estimator._canned.timeseries.feature_keys import TrainEvalFeatures

if TYPE_CHECKING:
    from tfport._common.types import TFModule

Moments = collections.namedtuple("Moments", ["mean", "variance"])
InputStatistics = collections.namedtuple(
    "InputStatistics",
    ["series_start_moments", "overall_feature_moments", "start_time", "total_observation_count"],
)
_Auxiliary = collections.namedtuple(
    "_Auxiliary",
    [
        "max_time_seen",
        "chunk_count",
        "inter_observation_duration_sum",
        "example_count",
        "overall_feature_sum",
        "overall_feature_sum_of_squares",
    ],
)


class _AdaptiveInputAuxiliaryStatistics(_Auxiliary):
    """The running sums behind the statistics, as variables (created in the current scope)."""

    def __new__(cls, num_features: int, dtype: object) -> _AdaptiveInputAuxiliaryStatistics:
        tf = import_tf()
        v1 = tf.compat.v1
        zeros = v1.initializers.zeros()

        def var(name: str, **kwargs: object) -> Any:
            return v1.get_variable(
                name=name,
                trainable=False,
                **_per_replica(tf),
                **kwargs,
            )

        return super().__new__(
            cls,
            max_time_seen=var("max_time_seen", initializer=tf.int64.min, dtype=tf.int64),
            chunk_count=var("chunk_count", initializer=zeros, shape=[], dtype=tf.int64),
            inter_observation_duration_sum=var(
                "inter_observation_duration_sum", initializer=zeros, shape=[], dtype=dtype
            ),
            example_count=var("example_count", shape=[], dtype=tf.int64),
            overall_feature_sum=var(
                "overall_feature_sum", shape=[num_features], dtype=dtype, initializer=zeros
            ),
            overall_feature_sum_of_squares=var(
                "overall_feature_sum_of_squares",
                shape=[num_features],
                dtype=dtype,
                initializer=zeros,
            ),
        )


def _per_replica(tf: TFModule) -> dict:
    """Variable arguments: on replicas each replica keeps its own copy of a statistic and
    updates it from the global batch (so all copies agree; the first is saved). No
    effect on one device."""
    return {
        "synchronization": tf.VariableSynchronization.ON_READ,
        "aggregation": tf.VariableAggregation.ONLY_FIRST_REPLICA,
    }


def global_batch(local: Any) -> Any:
    """On replicas: every replica's part of the batch, concatenated (the global batch).

    The statistics are updated from the global batch, identically on every replica (the
    variables keep the first replica's update), as one device does; the evaluation's
    identity metrics hold the global batch's predictions.

    Example:
        >>> times = global_batch(features["times"])  # doctest: +SKIP
    """
    tf = import_tf()
    context = tf.distribute.get_replica_context()
    if context is None or context.num_replicas_in_sync == 1:
        return local

    def merge(strategy: Any, value: Any) -> Any:
        return tf.concat(strategy.experimental_local_results(value), axis=0)

    return context.merge_call(merge, args=(local,))


def replicate_state(start_state: Any, batch_size: Any) -> Any:
    """Tiles every part of a (nested) state along a new leading batch dimension.

    Example:
        >>> state = replicate_state((tf.zeros([3]),), batch_size=4)  # doctest: +SKIP
    """
    tf = import_tf()
    flat = tf.nest.flatten(start_state)
    tiled = [
        tf.tile(
            tf.compat.v1.expand_dims(part, 0),
            tf.concat([[batch_size], tf.ones([tf.rank(part)], dtype=tf.int32)], 0),
        )
        for part in flat
    ]
    return tf.nest.pack_sequence_as(start_state, tiled)


class InputStatisticsFromMiniBatch:
    """Running input statistics updated from each training mini-batch.

    Args:
        num_features: values per time step.
        dtype: the values' float dtype.
        starting_variance_window_size: how many leading steps of the earliest series
            give `series_start_moments`.

    Example:
        >>> stats = InputStatisticsFromMiniBatch(num_features=1, dtype=tf.float32)
        ... # doctest: +SKIP
        >>> statistics = stats.initialize_graph(features)  # doctest: +SKIP
    """

    _AdaptiveInputAuxiliaryStatistics = _AdaptiveInputAuxiliaryStatistics

    def __init__(self, num_features: int, dtype: object, starting_variance_window_size: int = 16):
        self._starting_variance_window_size = starting_variance_window_size
        self._num_features = num_features
        self._dtype = dtype

    def initialize_graph(self, features: dict, update_statistics: bool = True) -> InputStatistics:
        """Creates the variables; returns statistics (updated from `features` if asked)."""
        tf = import_tf()
        v1 = tf.compat.v1
        times = features.get(TrainEvalFeatures.TIMES)
        values = features.get(TrainEvalFeatures.VALUES)
        if times is None or values is None:
            times = values = None
        with v1.variable_scope("input_statistics", use_resource=True):
            statistics = self._create_variable_statistics_object()
        with v1.variable_scope("input_statistics_auxiliary", use_resource=True):
            auxiliary = self._AdaptiveInputAuxiliaryStatistics(
                num_features=self._num_features, dtype=self._dtype
            )
        if not update_statistics or times is None:
            return statistics
        times, values = global_batch(times), global_batch(values)
        update = self._update_statistics_from_mini_batch(statistics, auxiliary, times, values)
        with tf.control_dependencies([update]):
            current = tf.nest.pack_sequence_as(
                statistics, [tf.identity(t) for t in tf.nest.flatten(statistics)]
            )
            min_time = tf.cast(tf.math.reduce_min(times), tf.int64)
            return current._replace(start_time=tf.math.minimum(current.start_time, min_time))

    def _update_statistics_from_mini_batch(
        self, statistics: InputStatistics, auxiliary_variables: Any, times: Any, values: Any
    ) -> Any:
        """The op that folds one mini-batch into the auxiliary sums and the statistics."""
        tf = import_tf()
        v1 = tf.compat.v1
        aux = auxiliary_variables
        values = tf.cast(values, self._dtype)
        spans = tf.cast(
            tf.math.reduce_max(times, axis=1) - tf.math.reduce_min(times, axis=1), self._dtype
        ) / tf.cast(v1.shape(times)[1] - 1, self._dtype)
        latest = tf.cast(tf.math.reduce_max(times), tf.int64)
        max_time_seen = v1.assign(aux.max_time_seen, tf.math.maximum(aux.max_time_seen, latest))
        aux_updates = tf.group(
            max_time_seen,
            v1.assign_add(aux.chunk_count, v1.shape(times, out_type=tf.int64)[0]),
            v1.assign_add(aux.inter_observation_duration_sum, tf.math.reduce_sum(spans)),
            v1.assign_add(aux.example_count, v1.size(times, out_type=tf.int64)),
            v1.assign_add(aux.overall_feature_sum, tf.math.reduce_sum(values, axis=[0, 1])),
            v1.assign_add(
                aux.overall_feature_sum_of_squares, tf.math.reduce_sum(values**2, axis=[0, 1])
            ),
        )
        with tf.control_dependencies([aux_updates]):
            return self._statistics_updates(tf, statistics, aux, times, values, max_time_seen)

    def _statistics_updates(
        self, tf: TFModule, statistics: Any, aux: Any, times: Any, values: Any, max_time_seen: Any
    ) -> Any:
        v1 = tf.compat.v1
        count = tf.cast(aux.example_count, self._dtype)
        mean = aux.overall_feature_sum / count
        mean_update = v1.assign(statistics.overall_feature_moments.mean, mean)
        var_update = v1.assign(
            statistics.overall_feature_moments.variance,
            count / (count - 1.0) * (aux.overall_feature_sum_of_squares / count - mean**2),
        )
        first = tf.cast(v1.math.argmin(times[:, 0]), tf.int32)

        def series_start_updates() -> Any:
            start_mean, start_var = v1.nn.moments(
                values[first, : self._starting_variance_window_size], axes=[0]
            )
            return tf.group(
                v1.assign(statistics.series_start_moments.mean, start_mean),
                v1.assign(statistics.series_start_moments.variance, start_var),
            )

        start_update = v1.cond(
            tf.math.less_equal(times[first, 0], tf.cast(statistics.start_time, times.dtype)),
            series_start_updates,
            tf.no_op,
        )
        with tf.control_dependencies([start_update]):
            min_time = tf.cast(tf.math.reduce_min(times), tf.int64)
            start_time = v1.assign(
                statistics.start_time, tf.math.minimum(statistics.start_time, min_time)
            )
        duration = aux.inter_observation_duration_sum / tf.cast(aux.chunk_count, self._dtype)
        count_update = v1.assign(
            statistics.total_observation_count,
            tf.cast(
                tf.math.round(tf.cast(max_time_seen - start_time + 1, self._dtype) / duration),
                tf.int64,
            ),
        )
        return tf.group(mean_update, var_update, start_update, start_time, count_update)

    def _create_variable_statistics_object(self) -> InputStatistics:
        """The statistics variables (`series_start_mean`, ..., `total_observation_count`)."""
        tf = import_tf()
        v1 = tf.compat.v1

        def var(name: str, init: Any, shape: Any = None, dtype: object = None) -> Any:
            return v1.get_variable(
                name=name,
                shape=shape,
                dtype=dtype or self._dtype,
                initializer=init,
                trainable=False,
                **_per_replica(tf),
            )

        n = [self._num_features]
        zeros, ones = v1.initializers.zeros(), v1.initializers.ones()
        return InputStatistics(
            series_start_moments=Moments(
                var("series_start_mean", zeros, n), var("series_start_variance", ones, n)
            ),
            overall_feature_moments=Moments(
                var("overall_feature_mean", zeros, n), var("overall_feature_var", ones, n)
            ),
            start_time=var("start_time", tf.int64.max, dtype=tf.int64),
            total_observation_count=var("total_observation_count", ones, [], tf.int64),
        )
