"""Steps per loop: N training steps inside one `session.run` (a `tf.while_loop`).

Like `TPUEstimator.iterations_per_loop`, and composed with any strategy: the loop body
takes the next batch and runs the (single or replicated) model step, so one run
performs N full steps. What is built once per graph stays outside the body: the
TPU `scaffold_fn` is called after the loop, and `init_from_checkpoint` called by a
model_fn inside the body builds its initializers in the outer graph.

Loops never coarsen what the user asked for: each loop ends early at the next
`save_checkpoints_steps`, `save_summary_steps` and `log_step_count_steps` boundary
and at `max_steps`, so checkpoints, summaries and logs land on the steps they would
with one step per run. Summaries that model_fn creates inside the loop cannot be
fetched outside it and are dropped (the `loss` summary is kept, from the loop's last
step).
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Callable
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import RunContext, TFModule
from tfport.estimator._engine.building import replica_draws
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.building.inputs import Batches
from tfport.estimator._engine.building.steps import StepResult

tf = import_tf()
_LoggingTensorHook: Any = tf.compat.v1.train.LoggingTensorHook
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook


def looped(
    ctx: ModeContext, batches: Batches, step: Callable[..., StepResult], deferred: list
) -> tuple[StepResult, Loop]:
    """Runs `step` inside a `while_loop` of up to `ctx.iterations` steps per session.run.

    Returns the step result (its train_op runs the whole loop, its loss is the last
    step's) and the `Loop`: its `iterations_per_loop` placeholder and the hook feeding it.

    Example:
        >>> result, loop = looped(ctx, batches, single_step, [])  # doctest: +SKIP
        >>> hooks.insert(0, loop.hook(None, 100, hooks))  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    count = v1.placeholder_with_default(
        tf.constant(ctx.iterations, tf.int32), [], name="iterations_per_loop"
    )
    results: list[StepResult] = []
    buffers = None

    def body(i: Any, _: object) -> tuple:
        nonlocal buffers
        features, labels = batches.next()
        result = step(ctx, features, labels, deferred if not results else [])
        results.append(result)
        writes: list = []
        if result.host_values is not None:  # host_call: this step's values kept for the host
            from tfport.estimator._engine.building import host_calls

            buffers = buffers or host_calls.StepBuffers(ctx.iterations)
            writes = buffers.write(i, result.host_values)
        with tf.control_dependencies([result.train_op, *writes]):
            return i + 1, tf.cast(tf.identity(result.loss), tf.float32)

    graph = v1.get_default_graph()
    with _initializers_outside_loop(), replica_draws.op_seeds_from(graph):
        done, loss = v1.while_loop(
            lambda i, _: i < count, body, [tf.constant(0), tf.constant(0.0)], parallel_iterations=1
        )
    _drop_loop_summaries(v1)
    first = results[0]
    host_values = buffers.read(done) if buffers is not None else None
    return StepResult(first.spec, loss, done.op, host_values=host_values), Loop(count, ctx)


def _initializers_outside_loop() -> contextlib.AbstractContextManager[None]:
    """`init_from_checkpoint` inside the loop body builds its assigns in the outer graph."""
    return tf_internals.init_from_checkpoint_in_init_scope()


def _drop_loop_summaries(v1: TFModule) -> None:
    summaries = v1.get_collection_ref(v1.GraphKeys.SUMMARIES)
    summaries[:] = [s for s in summaries if tf_internals.control_flow_context(s.op) is None]
    summaries[:] = [s for s in summaries if not s.graph.building_function]


@dataclasses.dataclass(frozen=True)
class Loop:
    """A steps-per-loop `while_loop`'s length placeholder, and the hook that feeds it.

    Attributes:
        count: the `iterations_per_loop` placeholder (defaults to `ctx.iterations`).
        ctx: the mode's context (its config says where runs must stop: saves, summaries,
            log lines).
    """

    count: object
    ctx: ModeContext

    def hook(self, steps: int | None, max_steps: int | None, hooks: list) -> Any:
        """A hook feeding each loop's step count: up to the next boundary or the last step.

        `hooks` are the other hooks of the session; those that count steps per run
        (checkpoint saver, summary saver, step counter) are told each run's step count.

        Example:
            >>> hook = loop.hook(None, 100, hooks)  # doctest: +SKIP
        """
        config = self.ctx.config
        every = [
            n
            for n in (
                config.save_checkpoints_steps,
                config.save_summary_steps,
                config.log_step_count_steps,
            )
            if n
        ]
        return _IterationsHook(self.count, self.ctx.iterations, every, steps, max_steps, hooks)


class _IterationsHook(_SessionRunHook):
    """Feeds each run's loop length; stops at the last step (runs make several steps)."""

    def __init__(
        self,
        placeholder: object,
        iterations: int,
        every: list[int],
        steps: int | None,
        max_steps: int | None,
        hooks: list,
    ) -> None:
        self._placeholder, self._iterations, self._every = placeholder, iterations, every
        self._steps, self._max_steps, self._hooks = steps, max_steps, hooks

    def begin(self) -> None:
        self._step_tensor = tf.compat.v1.train.get_global_step()

    def after_create_session(self, session: Any, coord: object) -> None:
        self._step = int(session.run(self._step_tensor))
        self._last = self._max_steps
        if self._last is None and self._steps is not None:
            self._last = self._step + self._steps

    def before_run(self, run_context: RunContext) -> Any:
        self._n = loop_length(self._step, self._iterations, self._every, self._last)
        end = self._step + self._n
        for hook in self._hooks:
            tf_internals.set_hook_run_length(hook, self._n, end)
        if self._n == self._iterations:  # the placeholder's default: no feed, a cacheable run
            return None
        return tf.compat.v1.train.SessionRunArgs(None, feed_dict={self._placeholder: self._n})

    def after_run(self, run_context: RunContext, run_values: object) -> None:
        self._step += self._n
        if self._last is not None and self._step >= self._last:
            run_context.request_stop()  # StopAtStepHook assumes one step per run


def logging_hook(tensors: dict, every_n_steps: int) -> Any:
    """A `LoggingTensorHook` that counts training steps, not runs (`loss = ..., step = N`).

    Without steps per loop every run is one step, as for TF's own hook. With them the
    iterations hook tells it each run's length (`_steps_per_run`), so it still logs every
    `every_n_steps` steps (as the legacy TPUEstimator did on TPU, every
    ceil(steps / iterations_per_loop) loops).

    Example:
        >>> hook = logging_hook({"loss": loss, "step": step}, 100)  # doctest: +SKIP
    """
    return _StepLoggingHook(tensors, every_n_iter=every_n_steps)


class _StepLoggingHook(_LoggingTensorHook):
    _steps_per_run = 1

    def after_run(self, run_context: RunContext, run_values: object) -> None:
        super().after_run(run_context, run_values)
        tf_internals.count_more_iterations(self, self._steps_per_run - 1)


def loop_length(step: int, iterations: int, every: list[int], last: int | None) -> int:
    """Steps of the next loop from global step `step`: stops at each boundary and at `last`.

    Example:
        >>> loop_length(0, 20, [10], None)
        10
        >>> loop_length(10, 20, [100], 15)
        5
    """
    n = iterations
    for period in every:
        n = min(n, period - step % period)
    if last is not None:
        n = min(n, last - step)
    return max(1, n)
