"""Legacy `_TrainingExecutor`: `train_and_evaluate`'s per-task procedures, as libraries use it.

A library building its own `train_and_evaluate` constructs
`_TrainingExecutor(estimator, train_spec, eval_spec, train_hooks, continuous_eval_listener)`
and calls `run()` (which picks `run_local` without a cluster, else `run_<task type>`) or a
`run_*` method directly. The pieces it is made of (`_Evaluator`, `_EvalResult`,
`_ContinuousEvalListener`, ...) live in `executor.py`.

Example:
    >>> metrics, exports = _TrainingExecutor(est, train_spec, eval_spec).run()  # doctest: +SKIP
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tfport._common.types import Hook
from tfport.distribute import task_server
from tfport.estimator._engine.api.spec import check_hooks
from tfport.estimator._engine.running import console
from tfport.estimator._engine.running.executor import (
    _DELAY_SECS_PER_WORKER,
    _MAX_DELAY_SECS,
    _TRAINER_JOBS,
    GLOBAL_STEP,
    _assert_eval_spec,
    _ContinuousEvalListener,
    _EvalResult,
    _EvalStatus,
    _Evaluator,
    _is_google_env,
    _NewCheckpointListenerForEvaluate,
)
from tfport.estimator._engine.running.train_and_evaluate import (
    EvalSpec,
    TrainSpec,
    check_specs,
    train_and_evaluate_tasks,
)

if TYPE_CHECKING:
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._engine.estimator import Estimator
    from tfport.estimator._engine.running import executor


def train_and_evaluate(estimator: Estimator, train_spec: TrainSpec, eval_spec: EvalSpec) -> tuple:
    """Trains, evaluating after new checkpoints (at most every `throttle_secs`) and at the end.

    Without a cluster this is legacy's path: `_TrainingExecutor(...).run()`, so a library
    that patches or subclasses the executor (`run_local`, its `_Evaluator`,
    `_NewCheckpointListenerForEvaluate`) changes this function as it did on TF 2.15. On a
    cluster (TF_CONFIG) every task runs `train_and_evaluate_tasks` (tfport's strategies).

    Returns:
        `(metrics, export_results)` of the final evaluation.

    Example:
        >>> train_and_evaluate(est, TrainSpec(train_fn, max_steps=100), EvalSpec(eval_fn))
        ... # doctest: +SKIP
    """
    check_specs(train_spec, eval_spec)
    if not _is_local(estimator.config):
        return train_and_evaluate_tasks(estimator, train_spec, eval_spec)
    return _TrainingExecutor(estimator, train_spec, eval_spec).run()


def _is_local(config: RunConfig) -> bool:
    """No cluster and not an evaluator task: legacy's non-distributed train and evaluate."""
    return not config.cluster_spec and config.task_type != "evaluator"


class _TrainingExecutor:
    """Runs training and evaluation for the task `estimator.config` names (or locally).

    Args:
        estimator: a `tf.estimator.Estimator`.
        train_spec: a `TrainSpec`.
        eval_spec: an `EvalSpec` (or None for tasks that only train).
        train_hooks: extra `SessionRunHook`s for training.
        continuous_eval_listener: a `_ContinuousEvalListener` told around each evaluation.

    Example:
        >>> _TrainingExecutor(est, train_spec, eval_spec).run_local()  # doctest: +SKIP
    """

    _Evaluator = _Evaluator

    def __init__(
        self,
        estimator: Estimator,
        train_spec: TrainSpec,
        eval_spec: Any,
        train_hooks: Iterable[Hook] | None = None,
        continuous_eval_listener: _ContinuousEvalListener | None = None,
    ) -> None:
        from tfport.estimator._engine.estimator import Estimator

        if not isinstance(estimator, Estimator):
            raise TypeError(
                f"`estimator` must have type `tf.estimator.Estimator`. Got: {type(estimator)}"
            )
        if not isinstance(train_spec, TrainSpec):
            raise TypeError(
                f"`train_spec` must have type `tf.estimator.TrainSpec`. Got: {type(train_spec)}"
            )
        if eval_spec and not isinstance(eval_spec, EvalSpec):
            raise TypeError(
                "`eval_spec` must be either `None` or have type `tf.estimator.EvalSpec`. "
                f"Got: {type(eval_spec)}"
            )
        if continuous_eval_listener and not isinstance(
            continuous_eval_listener, _ContinuousEvalListener
        ):
            raise TypeError("`continuous_eval_listener` must have type `_ContinuousEvalListener`.")
        self._estimator = estimator
        self._train_spec = train_spec
        self._eval_spec = eval_spec
        self._train_hooks = tuple(check_hooks(_tf(), train_hooks or (), "train_hooks"))
        self._continuous_eval_listener = continuous_eval_listener or _ContinuousEvalListener()

    @property
    def estimator(self) -> Any:
        return self._estimator

    def run(self) -> Any:
        """Runs `run_local` without a cluster, else `run_<config.task_type>`.

        Returns:
            `(metrics, export results)` locally; what the task's method returns otherwise.
        """
        config = self._estimator.config
        if _is_local(config):
            console.info("Running training and evaluation locally (non-distributed).")
            return self.run_local()
        if not config.task_type:
            raise ValueError(
                "`estimator.config` must have task_type set. This usually means TF_CONFIG "
                "environment is not set correctly."
            )
        if config.task_type == "local":
            raise ValueError(
                "`task.type` in TF_CONFIG cannot be `local`. Leaving `cluster` and `task` "
                "properties in TF_CONFIG absent triggers train and evaluate `Estimator` "
                "locally (non-distributed)."
            )
        available = [
            x
            for x in dir(self)
            if x.startswith("run_") and x != "run_local" and callable(getattr(self, x))
        ]
        task_to_run = "run_" + config.task_type
        if task_to_run not in available:
            raise ValueError(
                f"Task type {config.task_type} is not supported. Supported task types are "
                f"{[x[len('run_') :] for x in available]}"
            )
        return getattr(self, task_to_run)()

    def run_chief(self) -> None:
        """Trains on the chief, with the TrainSpec's saving listeners."""
        return self._start_distributed_training(saving_listeners=self._train_spec.saving_listeners)

    def run_worker(self) -> None:
        """Trains on a worker (after legacy's start delay)."""
        return self._start_distributed_training()

    def run_master(self) -> None:
        """Trains on the master, evaluating after each checkpoint."""
        _assert_eval_spec(self._eval_spec)
        evaluator = self._Evaluator(self._estimator, self._eval_spec, self._train_spec.max_steps)
        listener = _NewCheckpointListenerForEvaluate(
            evaluator, self._eval_spec.throttle_secs, _ContinuousEvalListener()
        )
        self._start_distributed_training(
            saving_listeners=tuple(self._train_spec.saving_listeners) + (listener,)
        )

    def run_evaluator(self) -> None:
        """Evaluates each new checkpoint until training's last step was evaluated."""
        return self._start_continuous_evaluation()

    def run_ps(self) -> None:
        """Serves this parameter-server task's variables until the process is killed."""
        server = self._start_std_server(self._estimator.config)
        server.join()

    def run_local(self) -> tuple[Any, Any]:
        """Trains, evaluating after every checkpoint save but the first, and at the end.

        Returns:
            `(metrics of the last evaluation, its export results)`.
        """
        _assert_eval_spec(self._eval_spec)
        config = self._estimator.config
        console.info(
            "Start train and evaluate loop. The evaluate will happen after every checkpoint. "
            "Checkpoint frequency is determined based on RunConfig arguments: "
            f"save_checkpoints_steps {config.save_checkpoints_steps} or "
            f"save_checkpoints_secs {config.save_checkpoints_secs}."
        )
        evaluator = self._Evaluator(self._estimator, self._eval_spec, self._train_spec.max_steps)
        listener = _NewCheckpointListenerForEvaluate(
            evaluator, self._eval_spec.throttle_secs, self._continuous_eval_listener
        )
        self._estimator.train(
            input_fn=self._train_spec.input_fn,
            max_steps=self._train_spec.max_steps,
            hooks=list(self._train_spec.hooks) + list(self._train_hooks),
            saving_listeners=tuple(self._train_spec.saving_listeners) + (listener,),
        )
        result = listener.eval_result or _EvalResult(status=_EvalStatus.MISSING_CHECKPOINT)
        return result.metrics, listener.export_results

    def _start_std_server(self, config: RunConfig) -> Any:
        """This task's TensorFlow server (the one tfport's engine uses), started once."""
        if not config.cluster_spec or not config.task_type or config.task_id is None:
            raise RuntimeError(
                "Could not start server; be sure to specify cluster_spec, task_type, and task "
                "in RunConfig or set the TF_CONFIG environment variable."
            )
        if not config.master:
            jobs = config.cluster_spec.jobs
            single = len(jobs) == 1 and config.cluster_spec.num_tasks(jobs[0]) == 1
            if single and config.task_type in _TRAINER_JOBS:
                console.info("Skip starting Tensorflow server as there is only one node.")
                return None
            raise RuntimeError(
                "Could not start server; be sure to specify master in RunConfig or set the "
                "TF_CONFIG environment variable."
            )
        console.info("Start Tensorflow server.")
        return task_server(config.cluster_spec, config.task_type, config.task_id)

    def _start_distributed_training(self, saving_listeners: Iterable[object] | None = None) -> None:
        """Trains on this task (a worker waits `(task_id + 1) * 5` s, at most 60 s, first)."""
        config = self._estimator.config
        if not _is_google_env():
            self._start_std_server(config)
        delay = 0
        if config.task_type == "worker":
            most = _patched("_MAX_DELAY_SECS", _MAX_DELAY_SECS)
            if config.experimental_max_worker_delay_secs is not None:
                most = int(config.experimental_max_worker_delay_secs)
            per_worker = _patched("_DELAY_SECS_PER_WORKER", _DELAY_SECS_PER_WORKER)
            delay = min(most, (config.task_id + 1) * per_worker)
        if delay > 0:
            console.info(f"Waiting {delay} secs before starting training.")
            time.sleep(delay)
        self._estimator.train(
            input_fn=self._train_spec.input_fn,
            max_steps=self._train_spec.max_steps,
            hooks=list(self._train_spec.hooks) + list(self._train_hooks),
            saving_listeners=saving_listeners,
        )

    def _start_continuous_evaluation(self) -> None:
        """Evaluates new checkpoints until the last step's or a listener's stop."""
        _assert_eval_spec(self._eval_spec)
        if self._eval_spec.start_delay_secs:
            console.info(f"Waiting {self._eval_spec.start_delay_secs} secs before starting eval.")
            time.sleep(self._eval_spec.start_delay_secs)
        latest: _EvalResult | None = None
        evaluator = self._Evaluator(self._estimator, self._eval_spec, self._train_spec.max_steps)
        stop = False
        while not stop:
            if latest is not None and latest.status == _EvalStatus.EVALUATED:
                step = latest.metrics.get(GLOBAL_STEP)
                max_steps = self._train_spec.max_steps
                if step and max_steps and step >= max_steps:
                    console.info(f"Exiting evaluation, global_step={step} >= max_steps")
                    return
            latest, stop = self._execute_evaluator_once(
                evaluator, self._continuous_eval_listener, self._eval_spec.throttle_secs
            )

    def _execute_evaluator_once(
        self,
        evaluator: executor._Evaluator,
        continuous_eval_listener: _ContinuousEvalListener,
        throttle_secs: float,
    ) -> tuple[_EvalResult | None, bool]:
        """One evaluation pass; returns `(result, whether to stop)`, throttled."""
        _assert_eval_spec(self._eval_spec)
        start = time.time()
        if not continuous_eval_listener.before_eval():
            console.info("Exiting evaluation, as requested by _ContinuousEvalListener.before_eval.")
            return None, True
        result, _ = evaluator.evaluate_and_export()
        if not self._continuous_eval_listener.after_eval(result):
            console.info("Exiting evaluation, as requested by _ContinuousEvalListener.after_eval.")
            return result, True
        wait = throttle_secs - (time.time() - start)
        if wait > 0:
            console.info(f"Waiting {wait:f} secs before starting next eval run.")
            time.sleep(wait)
        return result, False


def _patched(name: str, default: int) -> int:
    """A `training` module constant as a library set it on the legacy module (scripts set
    `estimator.training._DELAY_SECS_PER_WORKER = 0`), else legacy's value."""
    for prefix in ("tensorflow_estimator.python.estimator", "tensorflow.python.estimator"):
        module = sys.modules.get(f"{prefix}.training")
        value = vars(module).get(name, default) if module is not None else default
        if value != default:
            return value
    return default


def _tf() -> Any:
    from tfport._common.tfenv import import_tf

    return import_tf()
