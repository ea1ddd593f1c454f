"""Session-run hooks: TF's v1 hook family plus the Estimator's early-stopping hooks."""

from __future__ import annotations

import operator
import os
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

TF_HOOKS = (
    "SessionRunHook",
    "SessionRunArgs",
    "SessionRunContext",
    "SessionRunValues",
    "CheckpointSaverHook",
    "CheckpointSaverListener",
    "FeedFnHook",
    "FinalOpsHook",
    "GlobalStepWaiterHook",
    "LoggingTensorHook",
    "NanTensorHook",
    "ProfilerHook",
    "SecondOrStepTimer",
    "StepCounterHook",
    "StopAtStepHook",
    "SummarySaverHook",
    "NanLossDuringTrainingError",
    "Scaffold",
)


def tf_hook(name: str) -> Any:
    """Returns `tf.compat.v1.train.<name>` (the hook classes the Estimator used)."""
    return getattr(import_tf().compat.v1.train, name)


def read_eval_metrics(eval_dir: str) -> dict[int, dict[str, float]]:
    """Reads `{global_step: {metric: value}}` from the event files of an eval folder.

    Example:
        >>> read_eval_metrics("/nonexistent")
        {}
    """
    tf = import_tf()
    results: dict[int, dict[str, float]] = {}
    if not tf.io.gfile.isdir(eval_dir):
        return results
    for name in sorted(tf.io.gfile.listdir(eval_dir)):
        if "tfevents" not in name:
            continue
        for event in tf.compat.v1.train.summary_iterator(os.path.join(eval_dir, name)):
            for value in event.summary.value:
                if value.HasField("simple_value"):
                    results.setdefault(event.step, {})[value.tag] = value.simple_value
    return dict(sorted(results.items()))


def make_early_stopping_hook(
    estimator: Any,
    should_stop_fn: Any,
    run_every_secs: float = 60,
    run_every_steps: int | None = None,
) -> Any:
    """Returns a hook that stops training once `should_stop_fn()` is true.

    Example:
        >>> hook = make_early_stopping_hook(est, lambda: False)  # doctest: +SKIP
    """
    if run_every_secs is not None and run_every_steps is not None:
        raise TfportInputError(
            message(
                "make_early_stopping_hook takes run_every_secs or run_every_steps",
                "Pass one of them (set the other to None)",
                run_every_secs=run_every_secs,
                run_every_steps=run_every_steps,
            )
        )
    tf = import_tf()
    v1 = tf.compat.v1

    class _StopHook(v1.train.SessionRunHook):
        def begin(self) -> None:
            self._timer = v1.train.SecondOrStepTimer(
                every_secs=run_every_secs, every_steps=run_every_steps
            )
            self._global_step = v1.train.get_global_step()

        def before_run(self, run_context: Any) -> Any:
            return v1.train.SessionRunArgs(self._global_step)

        def after_run(self, run_context: Any, run_values: Any) -> None:
            step = run_values.results
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if should_stop_fn():
                    run_context.request_stop()

    del estimator
    return _StopHook()


def _metric_hook(
    estimator: Any,
    metric_name: str,
    threshold: Any,
    compare: Any,
    steps_without: int | None,
    eval_dir: str | None,
    min_steps: int,
    run_every_secs: float,
    run_every_steps: int | None,
) -> Any:
    folder = eval_dir or os.path.join(estimator.model_dir, "eval")

    def should_stop() -> bool:
        metrics = read_eval_metrics(folder)
        history = [(step, m[metric_name]) for step, m in metrics.items() if metric_name in m]
        if not history or history[-1][0] < min_steps:
            return False
        if threshold is not None:
            return compare(history[-1][1], threshold)
        best_step, best = history[0]
        for step, value in history[1:]:
            if compare(value, best):
                best_step, best = step, value
        return history[-1][0] - best_step >= steps_without

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(
    estimator: Any,
    metric_name: str,
    threshold: float,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float = 60,
    run_every_steps: int | None = None,
) -> Any:
    """Stops training once the latest eval `metric_name` is above `threshold`."""
    return _metric_hook(
        estimator,
        metric_name,
        threshold,
        operator.gt,
        None,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_lower_hook(
    estimator: Any,
    metric_name: str,
    threshold: float,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float = 60,
    run_every_steps: int | None = None,
) -> Any:
    """Stops training once the latest eval `metric_name` is below `threshold`."""
    return _metric_hook(
        estimator,
        metric_name,
        threshold,
        operator.lt,
        None,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_no_increase_hook(
    estimator: Any,
    metric_name: str,
    max_steps_without_increase: int,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float = 60,
    run_every_steps: int | None = None,
) -> Any:
    """Stops training when `metric_name` has not increased for that many steps."""
    return _metric_hook(
        estimator,
        metric_name,
        None,
        operator.gt,
        max_steps_without_increase,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def stop_if_no_decrease_hook(
    estimator: Any,
    metric_name: str,
    max_steps_without_decrease: int,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float = 60,
    run_every_steps: int | None = None,
) -> Any:
    """Stops training when `metric_name` has not decreased for that many steps.

    Example:
        >>> hook = stop_if_no_decrease_hook(est, "loss", 1000)  # doctest: +SKIP
    """
    return _metric_hook(
        estimator,
        metric_name,
        None,
        operator.lt,
        max_steps_without_decrease,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )
