"""`InMemoryEvaluatorHook` and `make_stop_at_checkpoint_step_hook` (tf.estimator.experimental)."""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, InputFn, RunContext, Session
from tfport.estimator._engine.building.graphs import global_step_in_dir

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

log = logging.getLogger("tfport")


def _check_estimator(estimator: object, what: str, method: str = "evaluate") -> None:
    if not (hasattr(estimator, method) and hasattr(estimator, "model_dir")):
        raise TfportInputError(
            message(
                f"{what} needs a tf.estimator.Estimator",
                "Pass the Estimator being trained",
                estimator=type(estimator).__name__,
            )
        )


class InMemoryEvaluatorHook(_SessionRunHook):
    """Evaluates the model being trained, every `every_n_iter` iterations, in-process.

    It evaluates after the training session is created, every `every_n_iter`
    `session.run` calls and at the end, on the training session's current variables
    (no checkpoint of model_dir is needed); results go to `estimator.eval_dir(name)`
    like `evaluate(name=name)`'s.

    Example:
        >>> hook = InMemoryEvaluatorHook(est, eval_input_fn, every_n_iter=100)
        ... # doctest: +SKIP
        >>> est.train(train_input_fn, hooks=[hook])  # doctest: +SKIP
    """

    _estimator_api_names = (
        "estimator.experimental.InMemoryEvaluatorHook",
    )  # legacy's estimator_export names
    _estimator_api_names_v1 = ("estimator.experimental.InMemoryEvaluatorHook",)

    def __init__(
        self,
        estimator: Estimator,
        input_fn: InputFn,
        steps: int | None = None,
        hooks: Iterable[Hook] | None = None,
        name: str | None = None,
        every_n_iter: int = 100,
    ) -> None:
        _check_estimator(estimator, "InMemoryEvaluatorHook", "_evaluate_in_memory")
        if isinstance(every_n_iter, bool) or not isinstance(every_n_iter, int):
            raise TfportInputError(
                message("every_n_iter must be an int", "Fix it", every_n_iter=every_n_iter)
            )
        if every_n_iter <= 0:
            raise TfportInputError(
                message(
                    "every_n_iter should be a positive number",
                    "Pass every_n_iter >= 1",
                    every_n_iter=every_n_iter,
                )
            )
        if not callable(input_fn):
            raise TfportInputError(
                message("input_fn must be callable", "Pass the eval input_fn", input_fn=input_fn)
            )
        self._estimator = estimator
        self._input_fn = input_fn
        self._steps = steps
        self._hooks = list(hooks or [])
        self._name = name
        self._every_n_iter = every_n_iter
        self._eval_dir = os.path.join(estimator.model_dir, "eval" if not name else "eval_" + name)
        self._folder: str | None = None

    def begin(self) -> None:
        v1 = tf.compat.v1
        self._timer = v1.train.SecondOrStepTimer(every_steps=self._every_n_iter)
        self._iter_count = 0
        self._saver = v1.train.Saver(sharded=True, max_to_keep=1)
        self._folder = tempfile.mkdtemp(prefix="tfport_in_memory_eval_")

    def after_create_session(self, session: Session, coord: object) -> None:
        del coord
        self._evaluate(session)

    def after_run(self, run_context: RunContext, run_values: object) -> None:
        del run_values
        self._iter_count += 1
        if self._timer.should_trigger_for_step(self._iter_count):
            self._evaluate(run_context.session)

    def end(self, session: Session) -> None:
        try:
            self._evaluate(session)
        finally:
            if self._folder:
                shutil.rmtree(self._folder, ignore_errors=True)

    def _evaluate(self, train_session: Session) -> None:
        path = self._saver.save(
            train_session, os.path.join(self._folder or "", "model.ckpt"), write_meta_graph=False
        )
        self._estimator._evaluate_in_memory(
            self._input_fn, self._steps, self._hooks, path, self._name
        )
        self._timer.update_last_triggered_step(self._iter_count)


def make_stop_at_checkpoint_step_hook(
    estimator: Estimator, last_step: int, wait_after_file_check_secs: float = 30
) -> Any:
    """A hook that stops a worker once the chief has checkpointed step `last_step`.

    The chief gets `StopAtStepHook(last_step=last_step)`; other workers wait (checking
    every `wait_after_file_check_secs` seconds) until model_dir's latest checkpoint is at
    `last_step` or beyond.

    Example:
        >>> hook = make_stop_at_checkpoint_step_hook(est, 1000)  # doctest: +SKIP
    """
    _check_estimator(estimator, "make_stop_at_checkpoint_step_hook")
    if isinstance(last_step, bool) or not isinstance(last_step, int):
        raise TfportInputError(
            message("last_step must be an int", "Pass the final global step", last_step=last_step)
        )
    if getattr(estimator.config, "is_chief", True):
        return tf.compat.v1.train.StopAtStepHook(last_step=last_step)
    return _StopAtCheckpointStepHook(estimator.model_dir, last_step, wait_after_file_check_secs)


class _StopAtCheckpointStepHook(_SessionRunHook):
    """Legacy `hooks._StopAtCheckpointStepHook`: stops once the latest checkpoint in
    `model_dir` has reached `last_step` (checked when this worker reaches it, then every
    `wait_after_file_check_secs`), so workers stop only after the chief saved the last step.

    Example:
        >>> hook = _StopAtCheckpointStepHook("/m", last_step=100)  # doctest: +SKIP
    """

    def __init__(
        self, model_dir: str | None, last_step: int | None, wait_after_file_check_secs: float = 30
    ) -> None:
        if last_step is None:
            raise ValueError("last_step must be specified.")
        if model_dir is None:
            raise ValueError("model_dir must be specified.")
        self._model_dir = model_dir
        self._last_step = last_step
        self._wait_after_file_check_secs = wait_after_file_check_secs

    def begin(self) -> None:
        from tfport._common import tf_internals

        v1 = tf.compat.v1
        reads = v1.get_collection(tf_internals.global_step_read_key())
        self._global_step_tensor = reads[0] if reads else v1.train.get_global_step()
        if self._global_step_tensor is None:
            raise RuntimeError("Global step should be created to use StopAtCheckpointStepHook.")

    def before_run(self, run_context: RunContext) -> Any:
        del run_context
        return tf.compat.v1.train.SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        if run_values.results + 1 < self._last_step:
            return
        if global_step_in_dir(self._model_dir) >= self._last_step:
            run_context.request_stop()
        else:
            time.sleep(self._wait_after_file_check_secs)
