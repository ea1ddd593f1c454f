"""The host side of legacy TPUEstimator's training loop, under legacy `tpu_estimator` names.

A TPU program runs `iterations_per_loop` steps per `session.run`; that count lives in
the graph's `tpu_estimator/iterations_per_loop` int32 resource variable
(`_create_or_get_iterations_per_loop`), which the hooks load before each run:
`_TPUStopAtStepHook` (the steps left, or an estimate from step times when the count is a
duration), `_SetEvalIterationsHook` (the evaluation's steps) and `_StoppingPredictHook`
(one; it ends prediction at the stopping signal). The infeed and outfeed threads read
their iteration counts from an `_OpQueueContext` (`_SIGNAL.STOP` ends them).

Example:
    >>> hook = _TPUStopAtStepHook(IterationsPerLoopCounter(4, "count"), num_steps=10)
    ... # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import RunValues, Session, TPUDeployment
from tfport.estimator._tpu.iteration_count import IterationCountEstimator
from tfport.estimator._tpu.tpu_inputs import _StopSignals

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook
log = logging.getLogger("tfport")
_SCOPE = "tpu_estimator"
_VARIABLE = "iterations_per_loop"
_COLLECTION = f"{_SCOPE}_{_VARIABLE}"


class _SIGNAL:  # noqa: N801 - legacy's name
    """The reserved (negative) values an infeed/outfeed queue carries besides iteration
    counts."""

    NEXT_BATCH = -1
    STOP = -2


def iterations_variable(require_global_step: bool = True) -> Any:
    """The graph's `tpu_estimator/iterations_per_loop` variable, made on first use and
    placed with the global step, as legacy does.

    Args:
        require_global_step: raise ValueError when the graph has no global step (legacy's
            `_create_or_get_iterations_per_loop`); False: placed anywhere then.

    Returns:
        The int32 local resource variable (in the `tpu_estimator_iterations_per_loop`
        collection).

    Raises:
        RuntimeError: the collection holds more than one.

    Example:
        >>> iterations_variable(require_global_step=False)  # doctest: +SKIP
    """
    v1 = tf.compat.v1
    graph = v1.get_default_graph()
    found = graph.get_collection(_COLLECTION)
    if len(found) > 1:
        raise RuntimeError("Multiple iterations_per_loop_var in collection.")
    if found:
        return found[0]
    step = v1.train.get_global_step()
    place = (
        graph.colocate_with(step)
        if step is not None or require_global_step
        else contextlib.nullcontext()
    )
    with place, v1.variable_scope(_SCOPE, reuse=v1.AUTO_REUSE):
        return v1.get_variable(
            _VARIABLE,
            initializer=v1.initializers.zeros(),
            shape=[],
            dtype=tf.int32,
            trainable=False,
            collections=[_COLLECTION, v1.GraphKeys.LOCAL_VARIABLES],
            use_resource=True,
        )


def iterations_per_loop_variable() -> Any:
    """The iterations variable, with or without a global step in the graph (tfport's
    infeed hooks and pipelines).

    Example:
        >>> iterations_per_loop_variable()  # doctest: +SKIP
    """
    return iterations_variable(require_global_step=False)


def _create_or_get_iterations_per_loop() -> Any:
    """The iterations-per-loop variable, colocated with the global step (legacy).

    Example:
        >>> variable = _create_or_get_iterations_per_loop()  # doctest: +SKIP
    """
    return iterations_variable()


def _increase_eval_step_op(iterations_per_loop: Any) -> Any:
    """An op adding `iterations_per_loop - 1` to the eval step (evaluation adds the 1).

    Example:
        >>> op = _increase_eval_step_op(iterations_variable())  # doctest: +SKIP
    """
    eval_step = tf_internals.get_or_create_eval_step()
    increment = tf.cast(iterations_per_loop - 1, dtype=eval_step.dtype)
    return tf.compat.v1.assign_add(eval_step, increment, use_locking=True)


def _sync_variables_ops(ctx: TPUDeployment) -> list:
    """Ops reading every trainable variable back (NaN-checked); a no-op under BROADCAST.

    Example:
        >>> ops = _sync_variables_ops(ctx)  # doctest: +SKIP
    """
    if ctx.is_input_broadcast_with_iterators():
        return [tf.no_op()]
    return [
        tf.debugging.check_numerics(v.read_value(), f"Gradient for {v.name} is NaN").op
        for v in tf.compat.v1.trainable_variables()
    ]


class _OpQueueContext:
    """A daemon thread running `target(self, *args)`, fed iteration counts by a queue.

    Example:
        >>> context = _OpQueueContext("infeed", run_infeed, (session,))  # doctest: +SKIP
    """

    def __init__(self, name: str, target: Callable[..., object], args: tuple) -> None:
        self._name = name
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(name=name, target=target, args=(self, *args))
        self._thread.daemon = True
        self._thread.start()

    def stop(self) -> None:
        """Tells the thread to finish once it has read the counts queued before."""
        self._queue.put(_SIGNAL.STOP)

    def send_next_batch_signal(self, iterations: int) -> None:
        """Queues one loop of `iterations` steps."""
        self._queue.put(iterations)

    def read_iteration_counts(self) -> Any:
        """Yields the queued iteration counts until the stop signal."""
        while (iterations := self._queue.get(block=True)) != _SIGNAL.STOP:
            yield iterations
        log.info("%s received shutdown signal, stopping.", self._name)

    def join(self) -> None:
        """Stops the thread and waits for it."""
        log.info("Shutting down %s thread.", self._name)
        self.stop()
        self._thread.join()


class _OpSignalOnceQueueContext(_OpQueueContext):
    """An `_OpQueueContext` passing on only its first signal (prediction's infeed)."""

    def __init__(self, name: str, target: Callable[..., object], args: tuple) -> None:
        self._has_signaled = False
        super().__init__(name, target, args)

    def send_next_batch_signal(self, iterations: int) -> None:
        """Queues `iterations` the first time only."""
        if not self._has_signaled:
            self._has_signaled = True
            super().send_next_batch_signal(iterations)


class _TPUStopAtStepHook(_SessionRunHook):
    """Sets the iterations of each loop and stops at `final_step` (or after `num_steps`).

    Each loop runs `min(steps left, iterations)`, where iterations is the counter's count
    or, for a counter in seconds, what an `IterationCountEstimator` expects to fit in it.

    Example:
        >>> hook = _TPUStopAtStepHook(IterationsPerLoopCounter(4, "count"), final_step=10)
        ... # doctest: +SKIP
    """

    def __init__(
        self,
        iterations_per_loop_counter: Any,
        num_steps: int | None = None,
        final_step: Any = None,
    ) -> None:
        if num_steps is None and final_step is None:
            raise ValueError("One of `num_steps` or `final_step` must be specified.")
        if num_steps is not None and final_step is not None:
            raise ValueError("Only one of `num_steps` or `final_step` can be specified.")
        if iterations_per_loop_counter.unit not in ("seconds", "count"):
            raise ValueError(
                "Only `count` or `seconds` are accepted as the `iterations_per_loop_counter.unit"
            )
        self._iterations_per_loop_counter = iterations_per_loop_counter
        self._num_steps = num_steps
        self._final_step = final_step
        self._next_iteration_count = 1
        self._iteration_count_estimator = (
            IterationCountEstimator() if iterations_per_loop_counter.unit == "seconds" else None
        )
        self._start_time = time.time()

    def _next_iterations(self, global_step: int, final_step: int) -> int:
        """The smaller of the steps left and the loop's (estimated) iterations."""
        counter = self._iterations_per_loop_counter
        if self._iteration_count_estimator is not None:
            estimated = self._iteration_count_estimator.get(counter.value)
        else:
            estimated = counter.value
        self._next_iteration_count = min(final_step - global_step, estimated)
        return self._next_iteration_count

    def begin(self) -> None:
        """Finds the global step (RuntimeError without one) and the iterations variable."""
        self._global_step_tensor = tf.compat.v1.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created.")
        self._iterations_per_loop_var = _create_or_get_iterations_per_loop()

    def after_create_session(self, session: Any, coord: object) -> None:
        """Loads the first loop's iterations."""
        global_step = session.run(self._global_step_tensor)
        if self._final_step is None:
            self._final_step = global_step + self._num_steps
        iterations = self._next_iterations(global_step, self._final_step)
        self._iterations_per_loop_var.load(iterations, session=session)

    def before_run(self, run_context: object) -> None:
        """Starts timing the loop (for a counter in seconds)."""
        if self._iteration_count_estimator is not None:
            self._start_time = time.time()

    def after_run(self, run_context: Any, run_values: object) -> None:
        """Stops at the final step, else loads the next loop's iterations."""
        if self._iteration_count_estimator is not None:
            elapsed = time.time() - self._start_time
            log.info("ElapsedTime: %.3f", elapsed)
            self._iteration_count_estimator.update(elapsed, self._next_iteration_count)
        global_step = run_context.session.run(self._global_step_tensor)  # read again: the
        if global_step >= self._final_step:  # loop moved it several times
            run_context.request_stop()
        else:
            iterations = self._next_iterations(global_step, self._final_step)
            self._iterations_per_loop_var.load(iterations, session=run_context.session)


class _SetEvalIterationsHook(_SessionRunHook):
    """Loads `num_steps` into the iterations variable: the evaluation runs in one loop.

    Example:
        >>> hook = _SetEvalIterationsHook(num_steps=10)
    """

    def __init__(self, num_steps: int) -> None:
        self._num_steps = num_steps

    def begin(self) -> None:
        """Finds (or makes) the iterations variable."""
        self._iterations_per_loop_var = _create_or_get_iterations_per_loop()

    def after_create_session(self, session: Session, coord: object) -> None:
        """Loads `num_steps`."""
        self._iterations_per_loop_var.load(self._num_steps, session=session)


class _StoppingPredictHook(_SessionRunHook):
    """Ends prediction when the stopping signal is set: OutOfRangeError in `after_run`, so
    the batch carrying the signal (the one TPUEstimator appended) is dropped.

    Example:
        >>> hook = _StoppingPredictHook(scalar_stopping_signal)  # doctest: +SKIP
    """

    def __init__(self, scalar_stopping_signal: object) -> None:
        self._scalar_stopping_signal = scalar_stopping_signal

    def begin(self) -> None:
        """Finds (or makes) the iterations variable."""
        self._iterations_per_loop_var = _create_or_get_iterations_per_loop()

    def after_create_session(self, session: Session, coord: object) -> None:
        """Loads 1: prediction runs one batch per `session.run`."""
        self._iterations_per_loop_var.load(1, session=session)

    def before_run(self, run_context: object) -> Any:
        """Fetches the stopping signal."""
        return tf.compat.v1.train.SessionRunArgs(self._scalar_stopping_signal)

    def after_run(self, run_context: object, run_values: RunValues) -> None:
        """Raises OutOfRangeError once the fetched signal says stop."""
        if _StopSignals.should_stop(run_values.results):
            raise tf.errors.OutOfRangeError(None, None, "Stopped by stopping signal.")
