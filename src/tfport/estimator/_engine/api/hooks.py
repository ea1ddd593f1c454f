"""Session-run hooks: TF's v1 hook family plus the Estimator's early-stopping hooks."""

from __future__ import annotations

import logging
import numbers
import operator
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import RunContext, TFModule
from tfport.estimator._engine.building.graphs import STEP_AFTER_TRAIN_KEY
from tfport.estimator._engine.running import console

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook
_StepCounterHook: Any = tf.compat.v1.train.StepCounterHook

log = logging.getLogger("tfport")

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
    for name in sorted(tf.io.gfile.glob(os.path.join(eval_dir, "*.tfevents.*"))):
        try:
            for event in tf.compat.v1.train.summary_iterator(name):
                for value in event.summary.value:
                    if value.HasField("simple_value"):
                        results.setdefault(event.step, {})[value.tag] = value.simple_value
        except tf.errors.DataLossError:
            log.warning("Skipping the rest of the corrupted event file %s", name)
    return dict(sorted(results.items()))


STOP_NAME = "signal_early_stopping/STOP"


def _stop_var(tf: TFModule, model_dir: str | None = None) -> Any:
    """The `signal_early_stopping/STOP` flag of the legacy hooks.

    A global variable, saved in checkpoints as legacy saved it. Legacy failed to resume
    from a checkpoint written without early stopping ("Key signal_early_stopping/STOP not
    found in checkpoint"); when `model_dir`'s latest checkpoint lacks the key, the flag is
    a local variable of the same name instead (not restored, not saved).
    """
    v1 = tf.compat.v1
    kind = v1.GraphKeys.GLOBAL_VARIABLES
    latest = tf.train.latest_checkpoint(model_dir) if model_dir else None
    if latest and STOP_NAME not in dict(tf.train.list_variables(latest)):
        kind = v1.GraphKeys.LOCAL_VARIABLES
    with v1.variable_scope("signal_early_stopping", values=[], reuse=v1.AUTO_REUSE):
        return v1.get_variable(
            "STOP",
            shape=[],
            dtype=tf.bool,
            initializer=v1.initializers.constant(False),
            collections=[kind],
            trainable=False,
        )


def make_early_stopping_hook(
    estimator: Estimator,
    should_stop_fn: Callable[[], object],
    run_every_secs: float | None = 60,
    run_every_steps: int | None = None,
) -> Any:
    """A hook that stops training once `should_stop_fn()` returns True.

    The chief calls `should_stop_fn` every `run_every_secs` seconds or `run_every_steps`
    steps and sets the `signal_early_stopping/STOP` variable; other workers stop when
    they see it set.

    Example:
        >>> hook = make_early_stopping_hook(est, lambda: False)  # doctest: +SKIP
    """
    if not hasattr(estimator, "model_dir") or not hasattr(estimator, "config"):
        raise TfportInputError(
            message(
                "estimator must be a tf.estimator.Estimator",
                "Pass the Estimator",
                estimator=type(estimator).__name__,
            )
        )
    if not callable(should_stop_fn):
        raise TfportInputError(
            message(
                "should_stop_fn must be callable",
                "Pass a function of no arguments",
                should_stop_fn=should_stop_fn,
            )
        )
    if (run_every_secs is None) == (run_every_steps is None):
        raise TfportInputError(
            message(
                "make_early_stopping_hook takes run_every_secs or run_every_steps",
                "Pass exactly one of them (set the other to None)",
                run_every_secs=run_every_secs,
                run_every_steps=run_every_steps,
            )
        )
    if getattr(estimator.config, "is_chief", True):
        return _StopOnPredicateHook(
            should_stop_fn, run_every_secs, run_every_steps, model_dir=estimator.model_dir
        )
    return _CheckForStoppingHook(model_dir=estimator.model_dir)


class _StopOnPredicateHook(_SessionRunHook):
    """Legacy's constructor; `model_dir` (tfport's) lets a flag missing from its latest
    checkpoint be a local variable (see `_stop_var`)."""

    def __init__(
        self,
        should_stop_fn: Callable[[], object],
        run_every_secs: float | None = 60,
        run_every_steps: int | None = None,
        *,
        model_dir: str | None = None,
    ) -> None:
        self._should_stop_fn = should_stop_fn
        self._every_secs, self._every_steps = run_every_secs, run_every_steps
        self._model_dir = model_dir

    def begin(self) -> None:
        v1 = tf.compat.v1
        self._timer = v1.train.SecondOrStepTimer(
            every_secs=self._every_secs, every_steps=self._every_steps
        )
        # The step after the run. Legacy fetched the variable beside the train op, a read
        # racing the step's increment: the hook fired one step early or late by run.
        after = v1.get_collection(STEP_AFTER_TRAIN_KEY)
        self._after = after[0] if after else None
        self._global_step = v1.train.get_global_step()
        self._stop_op = v1.assign(_stop_var(tf, self._model_dir), True)

    def before_run(self, run_context: RunContext) -> Any:
        return None if self._after is None else tf.compat.v1.train.SessionRunArgs(self._after)

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        if self._after is None:  # a graph not built by tfport: one more read
            step = run_context.session.run(self._global_step)
        else:
            step = run_values.results
        if self._timer.should_trigger_for_step(step):
            self._timer.update_last_triggered_step(step)
            if self._should_stop_fn():
                log.info("Requesting early stopping at global step %d", step)
                run_context.session.run(self._stop_op)
                run_context.request_stop()


class _CheckForStoppingHook(_SessionRunHook):
    def __init__(self, *, model_dir: str | None = None) -> None:
        self._model_dir = model_dir

    def begin(self) -> None:
        self._stop = _stop_var(tf, self._model_dir)

    def before_run(self, run_context: RunContext) -> Any:
        return tf.compat.v1.train.SessionRunArgs(self._stop)

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        if run_values.results:
            log.info("Early stopping requested, suspending run.")
            run_context.request_stop()


def _is_int(value: object) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _metric_hook(
    estimator: Estimator,
    metric_name: str,
    threshold: float | None,
    compare: Callable[[float, float], object],
    steps_without: int | None,
    eval_dir: str | None,
    min_steps: int,
    run_every_secs: float | None,
    run_every_steps: int | None,
) -> Any:
    if not isinstance(metric_name, str):
        raise TfportInputError(
            message(
                "metric_name must be a string", "Pass the metric's key", metric_name=metric_name
            )
        )
    for name, value, ok in (
        ("threshold", threshold, threshold is None or isinstance(threshold, numbers.Real)),
        ("max_steps_without", steps_without, steps_without is None or _is_int(steps_without)),
        ("min_steps", min_steps, _is_int(min_steps)),
    ):
        if not ok or isinstance(value, bool):
            raise TfportInputError(
                message(f"{name} must be a number", f"Fix {name}", **{name: value})
            )
    folder = eval_dir or os.path.join(estimator.model_dir, "eval")

    def should_stop() -> bool:
        best_step, best = 0, None
        for step, metrics in read_eval_metrics(folder).items():
            if step < min_steps:
                continue
            if metric_name not in metrics:
                raise TfportInputError(
                    message(
                        f"Metric {metric_name!r} is not among the evaluation results",
                        "Pass one of the metrics evaluate() writes",
                        step=step,
                        metrics=sorted(metrics),
                    )
                )
            value = metrics[metric_name]
            if threshold is not None:
                if compare(value, threshold):
                    return True
                continue
            if best is None or compare(value, best):
                best_step, best = step, value
            if steps_without is not None and step - best_step >= steps_without:
                return True
        return False

    return make_early_stopping_hook(estimator, should_stop, run_every_secs, run_every_steps)


def stop_if_higher_hook(
    estimator: Estimator,
    metric_name: str,
    threshold: float,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
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
    estimator: Estimator,
    metric_name: str,
    threshold: float,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
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
    estimator: Estimator,
    metric_name: str,
    max_steps_without_increase: int,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
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
    estimator: Estimator,
    metric_name: str,
    max_steps_without_decrease: int,
    eval_dir: str | None = None,
    min_steps: int = 0,
    run_every_secs: float | None = 60,
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


class ExamplesPerSecondHook(_StepCounterHook):
    """Logs (and summarizes) `global_step/sec` and `examples/sec` (legacy `tpu_estimator`'s;
    TPUEstimator trains with it). The lines go to the `tensorflow` logger at INFO, as legacy's.

    Example:
        >>> hook = ExamplesPerSecondHook(batch_size=32, every_n_steps=10)  # doctest: +SKIP
    """

    def __init__(
        self,
        batch_size: int,
        every_n_steps: int | None = 100,
        every_n_secs: float | None = None,
        output_dir: str | None = None,
        summary_writer: object = None,
    ) -> None:
        self._batch_size = batch_size
        super().__init__(
            every_n_steps=every_n_steps,
            every_n_secs=every_n_secs,
            output_dir=output_dir,
            summary_writer=summary_writer,
        )

    def _log_and_record(self, elapsed_steps: int, elapsed_time: float, global_step: int) -> None:
        steps_per_sec = elapsed_steps / elapsed_time
        examples_per_sec = self._batch_size * steps_per_sec
        writer = tf_internals.hook_summary_writer(self)
        if writer is not None:
            summary = tf.compat.v1.Summary(
                value=[
                    tf.compat.v1.Summary.Value(tag="global_step/sec", simple_value=steps_per_sec),
                    tf.compat.v1.Summary.Value(tag="examples/sec", simple_value=examples_per_sec),
                ]
            )
            writer.add_summary(summary, global_step)
        console.info("global_step/sec: %g", steps_per_sec)
        console.info("examples/sec: %g", examples_per_sec)
