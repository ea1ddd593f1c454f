"""Legacy `training.py`'s executor, for libraries that build their own `train_and_evaluate`.

`_TrainingExecutor(estimator, train_spec, eval_spec, train_hooks, continuous_eval_listener)`
with its `run` / `run_<task type>` methods, `_ContinuousEvalListener` (subclassed to stop
continuous evaluation), `_EvalResult`, `_EvalStatus`, `_assert_eval_spec`, with legacy's
arguments, return values and checks. Training, evaluation and exports go through the
Estimator's public methods, so tfport's engine (strategies from RunConfig or TF_CONFIG)
runs them; a task's TensorFlow server is the one tfport's engine uses (`task_server`).

Example:
    >>> executor = _TrainingExecutor(est, train_spec, eval_spec)  # doctest: +SKIP
    >>> metrics, exports = executor.run()  # doctest: +SKIP
"""

from __future__ import annotations

import collections
import os
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tfport._common.tfenv import import_tf
from tfport._common.types import RunContext
from tfport.estimator._engine.running import console
from tfport.estimator._engine.running.train_and_evaluate import EvalSpec

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator
    from tfport.estimator._engine.running.train_and_evaluate import Exporter

tf = import_tf()
_CheckpointSaverListener: Any = tf.compat.v1.train.CheckpointSaverListener
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

_MAX_DELAY_SECS = 60
_DELAY_SECS_PER_WORKER = 5
_TF_CONFIG_ENV = "TF_CONFIG"
_ENVIRONMENT_KEY = "environment"
_ENVIRONMENT_GOOGLE_VALUE = "google"
_TRAINER_JOBS = ("chief", "master", "worker")
GLOBAL_STEP = "global_step"

Metrics = dict


def _assert_eval_spec(eval_spec: object) -> None:
    """Raises legacy's TypeError unless `eval_spec` is an `EvalSpec`.

    Example:
        >>> _assert_eval_spec(None)
        Traceback (most recent call last):
        TypeError: `eval_spec` must have type `tf.estimator.EvalSpec`. Got: <class 'NoneType'>
    """
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(
            f"`eval_spec` must have type `tf.estimator.EvalSpec`. Got: {type(eval_spec)}"
        )


def _is_google_env() -> bool:
    """Whether TF_CONFIG says `"environment": "google"` (no server is started then)."""
    import json

    tf_config = json.loads(os.environ.get(_TF_CONFIG_ENV) or "{}")
    return tf_config.get(_ENVIRONMENT_KEY) == _ENVIRONMENT_GOOGLE_VALUE


class _EvalStatus:
    """What an evaluation pass found: a new checkpoint evaluated, none, or no new one."""

    EVALUATED = "evaluated"
    MISSING_CHECKPOINT = "missing checkpoint"
    NO_NEW_CHECKPOINT = "no new checkpoint"


class _EvalResult(collections.namedtuple("EvalResult", ["status", "metrics", "checkpoint_path"])):
    """The result of one evaluation pass (metrics and checkpoint only when EVALUATED).

    Example:
        >>> _EvalResult(_EvalStatus.MISSING_CHECKPOINT).metrics is None
        True
    """

    def __new__(
        cls, status: str, metrics: object = None, checkpoint_path: str | None = None
    ) -> _EvalResult:
        if status != _EvalStatus.EVALUATED:
            if metrics:
                raise ValueError(
                    f"metrics must be `None` if status is not {_EvalStatus.EVALUATED}; "
                    f"got status {status}, metrics {metrics}"
                )
            if checkpoint_path:
                raise ValueError(
                    f"checkpoint must be `None` if status is not {_EvalStatus.EVALUATED}; "
                    f"got status {status}, checkpoint_path {checkpoint_path}"
                )
            return super().__new__(cls, status, metrics, checkpoint_path)
        _check_evaluated(metrics, checkpoint_path)
        return super().__new__(cls, status, metrics, checkpoint_path)


def _check_evaluated(metrics: object, checkpoint_path: str | None) -> None:
    if not metrics:
        raise ValueError("Internal error: `Estimator.evaluate` should never return empty metrics.")
    if not isinstance(metrics, dict):
        raise TypeError(f"`Estimator.evaluate` should return dict. Given {type(metrics)}.")
    if GLOBAL_STEP not in metrics:
        raise ValueError(
            "Internal error: `Estimator.evaluate` result should have `global_step` in result. "
            f"Given {metrics}"
        )
    if not checkpoint_path:
        raise ValueError("Internal error: `checkpoint_path` should never be empty.")


class _ContinuousEvalListener:
    """Told before and after each evaluation; returning False stops continuous evaluation."""

    def before_eval(self) -> bool:
        """False skips this evaluation and stops; True (the default) evaluates."""
        return True

    def after_eval(self, eval_result: _EvalResult) -> bool:
        """Gets the `_EvalResult`; False stops continuous evaluation."""
        del eval_result
        return True


class _StopAtSecsHook(_SessionRunHook):
    """Requests a stop `stop_after_secs` seconds after `begin`."""

    def __init__(self, stop_after_secs: float) -> None:
        self._stop_after_secs = stop_after_secs
        self._start_time: float | None = None

    def begin(self) -> None:
        self._start_time = time.time()

    def after_run(self, run_context: RunContext, run_values: object) -> None:
        del run_values
        if time.time() - (self._start_time or 0.0) >= self._stop_after_secs:
            run_context.request_stop()


class _Evaluator:
    """Evaluates the newest checkpoint (once per checkpoint) and runs the exporters."""

    def __init__(
        self, estimator: Estimator, eval_spec: EvalSpec, max_training_steps: int | None
    ) -> None:
        _assert_eval_spec(eval_spec)
        self._estimator = estimator
        self._eval_spec = eval_spec
        self._is_final_export_triggered = False
        self._previous_ckpt_path: str | None = None
        self._last_warning_time = 0.0
        self._max_training_steps = max_training_steps

    @property
    def is_final_export_triggered(self) -> bool:
        return self._is_final_export_triggered

    def evaluate_and_export(self) -> tuple[_EvalResult, list]:
        """`(_EvalResult, export results)` for the newest checkpoint."""
        latest = self._estimator.latest_checkpoint()
        if not latest:
            self._log_err_msg(
                "Estimator is not trained yet. Will start an evaluation when a checkpoint is ready."
            )
            return _EvalResult(status=_EvalStatus.MISSING_CHECKPOINT), []
        if latest == self._previous_ckpt_path:
            self._log_err_msg(
                "No new checkpoint ready for evaluation. Skip the current evaluation pass as "
                "evaluation results are expected to be same for the same checkpoint."
            )
            return _EvalResult(status=_EvalStatus.NO_NEW_CHECKPOINT), []
        spec = self._eval_spec
        metrics = self._estimator.evaluate(
            input_fn=spec.input_fn,
            steps=spec.steps,
            name=spec.name,
            checkpoint_path=latest,
            hooks=spec.hooks,
        )
        result = _EvalResult(_EvalStatus.EVALUATED, metrics=metrics, checkpoint_path=latest)
        steps = self._max_training_steps
        final = bool(steps) and result.metrics[GLOBAL_STEP] >= steps
        exports = self._export_eval_result(result, final)
        if final:
            self._is_final_export_triggered = True
        self._last_warning_time = 0.0
        self._previous_ckpt_path = latest
        return result, exports

    def _log_err_msg(self, text: str) -> None:
        """Warns with `text` at most every 10 minutes."""
        now = time.time()
        if now - self._last_warning_time > 600:
            tf.compat.v1.logging.warning(text)
            self._last_warning_time = now

    def _export_eval_result(self, eval_result: _EvalResult, is_the_final_export: bool) -> list:
        base = os.path.join(tf.compat.as_str_any(self._estimator.model_dir), "export")
        return [
            exporter.export(
                estimator=self._estimator,
                export_path=os.path.join(base, tf.compat.as_str_any(exporter.name)),
                checkpoint_path=eval_result.checkpoint_path,
                eval_result=eval_result.metrics,
                is_the_final_export=is_the_final_export,
            )
            for exporter in self._eval_spec.exporters
        ]


class _NewCheckpointListenerForEvaluate(_CheckpointSaverListener):
    """Evaluates after each checkpoint save but the first (throttled), and at the end."""

    def __init__(
        self,
        evaluator: _Evaluator,
        eval_throttle_secs: float,
        continuous_eval_listener: Any,
    ) -> None:
        self._evaluator = evaluator
        self._eval_throttle_secs = eval_throttle_secs
        self._continuous_eval_listener = continuous_eval_listener
        self.eval_result: _EvalResult | None = None
        self.export_results: list | None = None

    def begin(self) -> None:
        self._timer = tf.compat.v1.train.SecondOrStepTimer(every_secs=self._eval_throttle_secs)
        self._is_first_run = True

    def after_save(self, session: object, global_step_value: int) -> bool | None:
        del session
        if self._is_first_run:
            self._is_first_run = False
            return None
        if not self._continuous_eval_listener.before_eval():
            console.info(
                "Exiting training and evaluation loop, as requested by "
                "_ContinuousEvalListener.before_eval."
            )
            return True
        if not self._timer.should_trigger_for_step(global_step_value):
            console.info(
                f"Skip the current checkpoint eval due to throttle secs "
                f"({self._eval_throttle_secs} secs)."
            )
            return None
        self._evaluate(global_step_value)
        if not self._continuous_eval_listener.after_eval(self.eval_result):
            console.info("Exiting evaluation, as requested by _ContinuousEvalListener.after_eval.")
            return True
        return None

    def end(self, session: object, global_step_value: int) -> None:
        del session
        if global_step_value != self._timer.last_triggered_step():
            if self._continuous_eval_listener.before_eval():
                self._evaluate(global_step_value)
                self._continuous_eval_listener.after_eval(self.eval_result)

    def _evaluate(self, global_step_value: int) -> None:
        self._timer.update_last_triggered_step(global_step_value)
        self.eval_result, self.export_results = self._evaluator.evaluate_and_export()
        if self.eval_result.status != _EvalStatus.EVALUATED:
            raise RuntimeError(
                "There was no new checkpoint after the training. "
                f"Eval status: {self.eval_result.status}"
            )


def _validate_input_fn(input_fn: object) -> None:
    """Raises legacy's TypeError unless `input_fn` is callable."""
    if not callable(input_fn):
        raise TypeError(f"`input_fn` must be callable, given: {input_fn}")


def _validate_hooks(hooks: Iterable[object] | None) -> tuple:
    """`hooks` as a tuple; legacy's TypeError for one that is not a `SessionRunHook`."""
    hooks = tuple(hooks or [])
    for hook in hooks:
        if not isinstance(hook, _SessionRunHook):
            raise TypeError(f"All hooks must be `SessionRunHook` instances, given: {hook}")
    return hooks


def _validate_saving_listeners(saving_listeners: Iterable[object] | None) -> tuple:
    """`saving_listeners` as a tuple; legacy's TypeError for a non-listener."""
    listeners = tuple(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, _CheckpointSaverListener):
            raise TypeError(
                "All saving_listeners must be `CheckpointSaverListener` instances, "
                f"given: {listener}"
            )
    return listeners


def _validate_exporters(exporters: Exporter | Iterable[Exporter] | None) -> tuple:
    """`exporters` as a tuple of uniquely, non-empty named `Exporter`s (legacy's errors).

    Example:
        >>> _validate_exporters(None)
        ()
    """
    from tfport.estimator._engine.running.train_and_evaluate import Exporter

    if not exporters:
        return ()
    if isinstance(exporters, Exporter):
        exporters = [exporters]
    try:
        names: list = []
        for exporter in exporters:
            if not isinstance(exporter, Exporter):
                raise TypeError
            _check_exporter_name(exporter, exporters, names)
            names.append(exporter.name)
    except TypeError:
        raise TypeError(
            f"`exporters` must be an Exporter, an iterable of Exporter, or `None`, "
            f"found {exporters}."
        ) from None
    return tuple(exporters)


def _check_exporter_name(exporter: Exporter, exporters: Iterable[Exporter], names: list) -> None:
    if not exporter.name:
        raise ValueError(
            "An Exporter cannot have a name that is `None` or empty. All exporter names: "
            f"{[e.name for e in exporters]}"
        )
    if not isinstance(exporter.name, str):
        raise ValueError(f"An Exporter must have a string name. Given: {type(exporter.name)}")
    if exporter.name in names:
        raise ValueError(
            "`exporters` must have unique names. Such a name cannot be `None`. All exporter "
            f"names: {[e.name for e in exporters]}"
        )
