"""`ARModel`'s two loops: prediction past the state, evaluation along a long series."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport.estimator._canned.timeseries import model
from tfport.estimator._canned.timeseries.feature_keys import PredictionFeatures, TrainEvalFeatures

if TYPE_CHECKING:
    from tfport._common.types import TFModule


def predict(ar: Any, features: dict) -> dict:
    """`ARModel.predict`: feeds its own means back, `output_window_size` steps a loop."""
    tf = import_tf()
    v1 = tf.compat.v1
    times = tf.cast(tf.convert_to_tensor(features[PredictionFeatures.TIMES]), tf.int32)
    exogenous = ar._exogenous_of(times, features)
    with tf.control_dependencies(
        [v1.debugging.assert_equal(v1.shape(times)[1], v1.shape(exogenous)[1])]
    ):
        exogenous = tf.identity(exogenous)
    batch, wanted = v1.shape(times)[0], v1.shape(times)[1]
    out = ar.output_window_size
    iterations = (wanted + out - 1) // out
    padding = iterations * out - wanted
    times = v1.pad(times, [[0, 0], [0, padding]])
    exogenous = v1.pad(exogenous, [[0, 0], [0, padding], [0, 0]])
    start = _initial_window(ar, tf, features[PredictionFeatures.STATE_TUPLE], times, exogenous)
    body = _PredictBody(ar, times, exogenous, iterations, start[0].get_shape(), start[2])
    squared = ar.loss == ar.SQUARED_LOSS
    covariance_init = 0.0 if squared else tf.TensorArray(dtype=ar.dtype, size=iterations)
    _, _, _, _, mean_ta, covariance_ta = v1.while_loop(
        lambda i, *_: tf.math.less(i, iterations),
        body,
        [0, *start, tf.TensorArray(dtype=ar.dtype, size=iterations), covariance_init],
    )
    mean = _unpack(tf, mean_ta, batch, iterations * out, wanted)
    covariance = _unpack(tf, covariance_ta, batch, iterations * out, wanted)
    if covariance is None:
        covariance = v1.ones_like(mean)
    return {"mean": ar._scale_back_data(mean), "covariance": ar._scale_back_variance(covariance)}


def _initial_window(ar: Any, tf: TFModule, state: Any, times: Any, exogenous: Any) -> tuple:
    """(times, values, exogenous) of the first window: the state's tail, then the times."""
    v1 = tf.compat.v1
    state_times, state_values, state_exogenous = state
    state_times = tf.cast(tf.convert_to_tensor(state_times), tf.int32)
    state_values = tf.convert_to_tensor(state_values, dtype=ar.dtype)
    state_exogenous = tf.convert_to_tensor(state_exogenous, dtype=ar.dtype)
    out, n = ar.output_window_size, ar.input_window_size
    first_times = times[:, :out]
    first_exogenous = exogenous[:, :out, :]
    if n <= 0:
        return first_times, 0, first_exogenous
    first_times = tf.concat([state_times[:, -n:], first_times], 1)
    values_size, times_size = v1.shape(state_values)[1], v1.shape(state_times)[1]
    with tf.control_dependencies(
        [
            v1.debugging.assert_greater_equal(values_size, n),
            v1.debugging.assert_equal(values_size, times_size),
        ]
    ):
        first_values = state_values[:, -n:, :]
        first_exogenous = tf.concat(
            [state_exogenous[:, -n:, :], first_exogenous[:, :out, :]], axis=1
        )
    return first_times, first_values, first_exogenous


class _PredictBody:
    """One prediction loop step: predict a window, then shift the window along."""

    def __init__(
        self, ar: Any, times: Any, exogenous: Any, iterations: Any, times_shape: Any, exo0: Any
    ) -> None:
        self.ar, self.times, self.exogenous, self.iterations = ar, times, exogenous, iterations
        self.times_shape, self.exogenous_shape = times_shape, exo0.get_shape()

    def __call__(self, i: Any, times: Any, values: Any, exogenous: Any, mean_ta: Any, cov_ta: Any):
        tf = import_tf()
        ar = self.ar
        ops = ar.prediction_ops(times, values, exogenous)
        mean, covariance = ops["mean"], ops["covariance"]
        out, n = ar.output_window_size, ar.input_window_size
        offset = out * tf.math.minimum(i + 1, self.iterations - 1)
        if n > 0 and out < n:
            new_values = tf.concat([values[:, out:, :], mean], 1)
            new_exogenous = tf.concat(
                [exogenous[:, -n:, :], self.exogenous[:, offset : offset + out, :]], axis=1
            )
            new_times = tf.concat([times[:, -n:], self.times[:, offset : offset + out]], 1)
        elif n > 0:
            new_values = mean[:, -n:, :]
            new_exogenous = self.exogenous[:, offset - n : offset + out, :]
            new_times = self.times[:, offset - n : offset + out]
        else:
            new_values = values
            new_exogenous = self.exogenous[:, offset : offset + out, :]
            new_times = self.times[:, offset : offset + out]
        new_times.set_shape(self.times_shape)
        new_exogenous.set_shape(self.exogenous_shape)
        if isinstance(cov_ta, tf.TensorArray):
            cov_ta = cov_ta.write(i, covariance)
        return i + 1, new_times, new_values, new_exogenous, mean_ta.write(i, mean), cov_ta


def _unpack(tf: TFModule, values_ta: Any, batch: Any, length: Any, wanted: Any) -> Any:
    if not isinstance(values_ta, tf.TensorArray):
        return None
    stacked = tf.compat.v1.transpose(values_ta.stack(), [1, 0, 2, 3])
    return tf.reshape(stacked, tf.stack([batch, length, -1]))[:, :wanted, :]


def evaluate_windows(ar: Any, features: dict, times: Any, exogenous: Any, state: Any) -> Any:
    """`ARModel.get_batch_loss` in EVAL: the last whole output windows, one by one."""
    tf = import_tf()
    v1 = tf.compat.v1
    times.get_shape().assert_has_rank(2)
    static_window = times.get_shape().dims[1].value
    if static_window is not None and static_window < ar.window_size:
        raise ValueError(
            "ARModel requires a window of at least input_window_size + output_window_size to "
            f"evaluate on (input_window_size={ar.input_window_size}, output_window_size="
            f"{ar.output_window_size}, and got shape {times.get_shape()} for feature "
            f"'{TrainEvalFeatures.TIMES}' (batch size, window size))."
        )
    out = ar.output_window_size
    iterations = (v1.shape(times)[1] - ar.input_window_size) // out
    output_size = iterations * out
    crop = output_size + ar.input_window_size
    features = {name: value[:, -crop:] for name, value in features.items()}

    def body(i: Any, loss_ta: Any, mean_ta: Any, cov_ta: Any) -> tuple:
        base = i * out
        window = {name: value[:, base : base + ar.window_size] for name, value in features.items()}
        outputs = ar._process_window(
            features=window,
            mode="eval",
            exogenous_regressors=exogenous[:, base : base + ar.window_size],
        )
        predictions = outputs.predictions
        return (
            i + 1,
            loss_ta.write(i, outputs.loss),
            mean_ta.write(i, predictions["mean"]),
            cov_ta.write(i, predictions["covariance"]),
        )

    arrays = [tf.TensorArray(dtype=ar.dtype, size=iterations) for _ in range(3)]
    _, loss_ta, mean_ta, cov_ta = v1.while_loop(lambda i, *_: i < iterations, body, [0, *arrays])
    values = tf.cast(features[TrainEvalFeatures.VALUES], dtype=ar.dtype)
    shape = [v1.shape(times)[0], output_size, ar.num_features]
    return model.ModelOutputs(
        loss=tf.math.reduce_mean(loss_ta.stack(), axis=0),
        end_state=_eval_end_state(ar, tf, state, times, values, exogenous),
        predictions={
            "mean": tf.reshape(v1.transpose(mean_ta.stack(), [1, 0, 2, 3]), shape),
            "covariance": tf.reshape(v1.transpose(cov_ta.stack(), [1, 0, 2, 3]), shape),
            "observed": values[:, -output_size:],
        },
        prediction_times=times[:, -output_size:],
    )


def _eval_end_state(ar: Any, tf: TFModule, state: Any, times: Any, values: Any, exogenous: Any):
    """The last `input_window_size` steps of the state followed by the evaluated series."""
    n = ar.input_window_size
    if n <= 0:
        return tuple(state)
    old_times, old_values, old_exogenous = state
    new_times = tf.concat([old_times, tf.cast(times, dtype=tf.int64)], axis=1)[:, -n:]
    new_times.set_shape((None, n))
    new_values = tf.concat([old_values, ar._scale_data(values)], axis=1)[:, -n:, :]
    new_values.set_shape((None, n, ar.num_features))
    new_exogenous = tf.concat([old_exogenous, exogenous], axis=1)[:, -n:, :]
    new_exogenous.set_shape((None, n, ar.exogenous_size))
    return new_times, new_values, new_exogenous
