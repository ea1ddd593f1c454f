"""Legacy `early_stopping`'s private helpers, over tfport's early-stopping hooks.

Libraries with their own stopping rules call `_stop_if_threshold_crossed_hook`,
`_stop_if_no_metric_improvement_hook` (what the public `stop_if_*` hooks are made of),
`_get_or_create_stop_var` and `_summaries(eval_dir)`, or build
`_MultiWorkerEarlyStoppingHook` (the stop decision summed over the workers of a
distribution strategy); `tfport._legacy_tree` places them.

Example:
    >>> hook = _stop_if_threshold_crossed_hook(est, "loss", 0.1, False, None, 0, 60, None)
    ... # doctest: +SKIP
"""

from __future__ import annotations

import operator
import os
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportError, TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import RunContext
from tfport.estimator._engine.api.hooks import _metric_hook, _SessionRunHook, _stop_var, log

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator


def _stop_if_threshold_crossed_hook(
    estimator: Estimator,
    metric_name: str,
    threshold: float,
    higher_is_better: bool,
    eval_dir: str | None,
    min_steps: int,
    run_every_secs: float | None,
    run_every_steps: int | None,
) -> Any:
    """A hook stopping once eval `metric_name` is above (`higher_is_better`) or below
    `threshold`."""
    compare = operator.gt if higher_is_better else operator.lt
    return _metric_hook(
        estimator,
        metric_name,
        threshold,
        compare,
        None,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def _stop_if_no_metric_improvement_hook(
    estimator: Estimator,
    metric_name: str,
    max_steps_without_improvement: int,
    higher_is_better: bool,
    eval_dir: str | None,
    min_steps: int,
    run_every_secs: float | None,
    run_every_steps: int | None,
) -> Any:
    """A hook stopping once eval `metric_name` has not improved for
    `max_steps_without_improvement` steps."""
    compare = operator.gt if higher_is_better else operator.lt
    return _metric_hook(
        estimator,
        metric_name,
        None,
        compare,
        max_steps_without_improvement,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def _get_or_create_stop_var() -> Any:
    """The graph's boolean `signal_early_stopping/STOP` variable (created when missing)."""
    return _stop_var(import_tf())


def _summaries(eval_dir: str) -> Iterator[Any]:
    """Yields the `Event` protos of every event file in `eval_dir` (none when missing)."""
    tf = import_tf()
    if not tf.io.gfile.exists(eval_dir):
        return
    for path in tf.io.gfile.glob(os.path.join(eval_dir, "events.out.tfevents.*")):
        yield from tf.compat.v1.train.summary_iterator(path)


class StopFnTypeError(TfportError, TypeError):
    """`should_stop_fn` is not callable (bad input; a TypeError, as legacy raised)."""

    exit_code = TfportInputError.exit_code


class _MultiWorkerEarlyStoppingHook(_SessionRunHook):
    """Stops every worker once one worker's `should_stop_fn()` returns True.

    Every `run_every_steps` global steps each worker calls `should_stop_fn` and adds 1
    (stop) or 0 to `signal_early_stopping/STOP`, an int32 variable summed over replicas;
    a worker stops at the first run that reads it above 0 (with one worker: the run after
    its `should_stop_fn` said so).

    Example:
        >>> hook = _MultiWorkerEarlyStoppingHook(lambda: False, 100)  # doctest: +SKIP
    """

    def _get_or_create_stop_var_with_aggregation(self) -> Any:
        """The graph's int32 `signal_early_stopping/STOP` (summed on write), made once."""
        tf = import_tf()
        v1 = tf.compat.v1
        with v1.variable_scope("signal_early_stopping", values=[], reuse=v1.AUTO_REUSE):
            return v1.get_variable(
                "STOP",
                shape=[],
                dtype=tf.int32,
                initializer=v1.initializers.constant(0),
                collections=[v1.GraphKeys.GLOBAL_VARIABLES],
                synchronization=tf.VariableSynchronization.ON_WRITE,
                aggregation=tf.VariableAggregation.SUM,
                trainable=False,
            )

    def __init__(
        self, should_stop_fn: Callable[[], object], run_every_steps: int | None = None
    ) -> None:
        if not callable(should_stop_fn):
            raise StopFnTypeError(
                message(
                    "should_stop_fn must be callable",
                    "Pass a function of no arguments returning a bool",
                    should_stop_fn=should_stop_fn,
                )
            )
        self._should_stop_fn = should_stop_fn
        # every_secs is not offered: the workers must decide at the same steps
        self._timer = import_tf().compat.v1.train.SecondOrStepTimer(
            every_secs=None, every_steps=run_every_steps
        )
        self._global_step_tensor: Any = None
        self._stop_var: Any = None
        self._stop_op: Any = None
        self._stop_placeholder: Any = None

    def begin(self) -> None:
        tf = import_tf()
        self._global_step_tensor = tf.compat.v1.train.get_global_step()
        self._stop_var = self._get_or_create_stop_var_with_aggregation()
        placeholders: list = []

        def add_vote(var: Any) -> Any:
            vote = tf.compat.v1.placeholder_with_default(0, (), name="stop_value")
            placeholders.append(vote)
            return var.assign_add(vote)

        # legacy asserted a cross-replica context; in the default one (no strategy) this
        # is the single worker's own vote
        self._stop_op = tf.distribute.get_strategy().run(add_vote, args=(self._stop_var,))
        self._stop_placeholder = placeholders[0]

    def before_run(self, run_context: RunContext) -> Any:
        fetches = {"global_step": self._global_step_tensor, "stop_var": self._stop_var}
        return import_tf().compat.v1.train.SessionRunArgs(fetches)

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        step = run_values.results["global_step"]
        if run_values.results["stop_var"] > 0:
            log.info("Early stopping requested, suspending run.")
            run_context.request_stop()
            return
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            vote = 1 if self._should_stop_fn() else 0
            run_context.session.run(self._stop_op, feed_dict={self._stop_placeholder: vote})
            if vote:
                log.info("Requesting early stopping at global step %d", step)
