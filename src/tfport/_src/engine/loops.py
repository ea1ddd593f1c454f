"""Steps per loop: N training steps inside one `session.run` (a `tf.while_loop`).

Like `TPUEstimator.iterations_per_loop`: the input pipeline's `get_next`, the
model_fn and its train_op are built inside the loop body, so one run performs N
full steps with N batches; hooks and checkpoints run at loop boundaries. The last
loop is shortened so that training stops exactly at `max_steps`. Summaries that
model_fn creates inside the loop cannot be fetched outside it and are dropped
(the `loss` summary is kept, from the loop's last step).
"""

from __future__ import annotations

from typing import Any

from tfport._src.engine import calls
from tfport._src.engine.graphs import Built
from tfport._src.engine.spec import EstimatorSpec, ModeKeys
from tfport._common.tfenv import import_tf


def build(est: Any, input_fn: Any, iterations: int) -> Built:
    """Builds a TRAIN graph whose train_op runs `iterations` steps per session.run.

    Example:
        >>> built = build(est, input_fn, 20)  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default(), graph.device(est.config.device_fn):
        if est.config.tf_random_seed is not None:
            v1.set_random_seed(est.config.tf_random_seed)
        global_step = v1.train.create_global_step(graph)
        result = calls.call_input_fn(
            input_fn, ModeKeys.TRAIN, est.params_for_input(ModeKeys.TRAIN), est.config
        )
        hooks: list = []
        if isinstance(result, tf.data.Dataset):
            iterator = v1.data.make_initializable_iterator(result)
            hooks.append(calls.dataset_initializer_hook(iterator))
            next_batch = iterator.get_next
        else:
            calls.parse_input_result(result, ModeKeys.TRAIN)  # validates
            next_batch = lambda: result  # noqa: E731 - same tensors every step
        count = v1.placeholder_with_default(
            tf.constant(iterations, tf.int32), [], name="iterations_per_loop"
        )
        specs: list = []

        def body(i: Any, _: Any) -> tuple:
            features, labels, _hooks = calls.parse_input_result(next_batch(), ModeKeys.TRAIN)
            spec = est.call_model_fn(features, labels, ModeKeys.TRAIN)
            specs.append(spec)
            with tf.control_dependencies([spec.train_op]):
                return i + 1, tf.cast(tf.identity(spec.loss), tf.float32)

        done, loss = v1.while_loop(
            lambda i, _: i < count, body, [tf.constant(0), tf.constant(0.0)], parallel_iterations=1
        )
        _drop_loop_summaries(v1)
        first = specs[0]
        spec = EstimatorSpec(
            ModeKeys.TRAIN,
            loss=loss,
            train_op=done.op,
            training_hooks=first.training_hooks,
            training_chief_hooks=first.training_chief_hooks,
            scaffold=first.scaffold,
        )
    built = Built(graph, spec, hooks, global_step)
    built.train_loop = (done, loss)
    built.iterations = (count, iterations)
    return built


def _drop_loop_summaries(v1: Any) -> None:
    summaries = v1.get_collection_ref(v1.GraphKeys.SUMMARIES)
    summaries[:] = [s for s in summaries if s.op._get_control_flow_context() is None]


def iterations_hook(placeholder: Any, iterations: int, steps: Any, max_steps: Any) -> Any:
    """A hook feeding each loop's step count, shortening the last loop to stop exactly.

    Example:
        >>> hook = iterations_hook(count, 20, None, 100)  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1

    class _IterationsHook(v1.train.SessionRunHook):
        def begin(self) -> None:
            self._step_tensor = v1.train.get_global_step()

        def after_create_session(self, session: Any, coord: Any) -> None:
            self._step = int(session.run(self._step_tensor))
            self._last = (
                max_steps
                if max_steps is not None
                else (self._step + steps if steps is not None else None)
            )

        def before_run(self, run_context: Any) -> Any:
            self._n = iterations
            if self._last is not None:
                self._n = max(1, min(iterations, self._last - self._step))
            return v1.train.SessionRunArgs(None, feed_dict={placeholder: self._n})

        def after_run(self, run_context: Any, run_values: Any) -> None:
            self._step += self._n
            if self._last is not None and self._step >= self._last:
                run_context.request_stop()  # StopAtStepHook assumes one step per run

    return _IterationsHook()
