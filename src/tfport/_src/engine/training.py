"""The training loop: a graph per call, MonitoredTrainingSession, legacy hooks."""

from __future__ import annotations

import logging
import os
import signal
import sys
import threading
from typing import Any

from tfport._src.engine import graphs
from tfport._src.engine.spec import ModeKeys, check_hooks
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

log = logging.getLogger("tfport")


def train(
    est: Any, input_fn: Any, hooks: Any, steps: Any, max_steps: Any, saving_listeners: Any
) -> None:
    """Trains `est` (an Estimator) as the legacy `Estimator.train` did.

    Example:
        >>> train(est, input_fn, None, None, 40, None)  # doctest: +SKIP
    """
    tf = import_tf()
    _check_steps(steps, max_steps)
    hooks = list(check_hooks(tf, hooks, "train(hooks)"))
    listeners = tuple(saving_listeners or ())
    if max_steps is not None:
        start = graphs.global_step_in_dir(est.model_dir)
        if max_steps <= start:
            log.info("Skipping training since max_steps has already saved.")
            return
    graphs.ensure_writable_dir(est.model_dir)
    if steps is not None or max_steps is not None:
        hooks.append(tf.compat.v1.train.StopAtStepHook(num_steps=steps, last_step=max_steps))
    built = graphs.build(est, input_fn, ModeKeys.TRAIN)
    with built.graph.as_default():
        if built.iterations is not None:
            from tfport._src.engine.loops import iterations_hook

            hooks.append(iterations_hook(*built.iterations, steps, max_steps))
        _train_with_spec(est, built, hooks, listeners, input_fn)


def _check_steps(steps: Any, max_steps: Any) -> None:
    if steps is not None and max_steps is not None:
        raise TfportInputError(
            message(
                "train() takes steps or max_steps, not both",
                "Pass only one",
                steps=steps,
                max_steps=max_steps,
            )
        )
    for name, value in (("steps", steps), ("max_steps", max_steps)):
        if value is not None and (not isinstance(value, int) or value <= 0):
            raise TfportInputError(
                message(f"train({name}) must be a positive int", "Fix the value", **{name: value})
            )


def _train_with_spec(est: Any, built: Any, hooks: list, listeners: tuple, input_fn: Any) -> None:
    tf = import_tf()
    v1 = tf.compat.v1
    spec, config = built.spec, est.config
    graphs.maybe_warm_start(est)
    if not any(x.op.name == "loss" for x in v1.get_collection(v1.GraphKeys.SUMMARIES)):
        v1.summary.scalar("loss", spec.loss)
    worker_hooks = list(built.input_hooks) + hooks
    worker_hooks.append(v1.train.NanTensorHook(spec.loss))
    if config.log_step_count_steps:
        worker_hooks.append(
            v1.train.LoggingTensorHook(
                {"loss": spec.loss, "step": built.global_step},
                every_n_iter=config.log_step_count_steps,
            )
        )
    worker_hooks.extend(spec.training_hooks)
    if not (spec.scaffold.saver or v1.get_collection(v1.GraphKeys.SAVERS)):
        latest = tf.train.latest_checkpoint(est.model_dir)
        var_list = None
        if latest and built.distributed:
            from tfport._src.engine.aligned_names import aligned_var_list

            var_list = aligned_var_list(est, input_fn, ModeKeys.TRAIN, latest)
        if latest:
            graphs.check_checkpoint_covers_graph(latest, var_list)
        v1.add_to_collection(
            v1.GraphKeys.SAVERS,
            v1.train.Saver(
                var_list=var_list,
                sharded=True,
                max_to_keep=config.keep_checkpoint_max,
                keep_checkpoint_every_n_hours=config.keep_checkpoint_every_n_hours,
                defer_build=var_list is None,
                save_relative_paths=True,
            ),
        )
    chief_hooks: list = []
    saver_hook = _checkpoint_hook(
        est, spec, worker_hooks + list(spec.training_chief_hooks), listeners
    )
    if saver_hook is not None:
        chief_hooks.append(saver_hook)
    preemption = PreemptionWatcher()
    worker_hooks.append(preemption.hook())
    from tfport._src.engine.distributed import session_target

    master, session_config, every_worker_inits = session_target(config.train_distribute, config)
    chief = config.is_chief
    if not chief:  # only the chief writes checkpoints and summaries
        chief_hooks = []
    with (
        preemption.installed(),
        v1.train.MonitoredTrainingSession(
            master=master,
            is_chief=chief or every_worker_inits,
            checkpoint_dir=est.model_dir,
            scaffold=spec.scaffold,
            hooks=worker_hooks,
            chief_only_hooks=tuple(chief_hooks)
            + (tuple(spec.training_chief_hooks) if chief else ()),
            save_checkpoint_secs=0,
            save_summaries_steps=config.save_summary_steps if chief else None,
            config=session_config,
            max_wait_secs=config.session_creation_timeout_secs,
            log_step_count_steps=config.log_step_count_steps if chief else None,
            save_graph_def=config.checkpoint_save_graph_def and chief,
        ) as session,
    ):
        loop = built.train_loop or (spec.train_op, spec.loss)
        while not session.should_stop():
            session.run(loop)
    preemption.exit_if_signalled(est.model_dir)


def _checkpoint_hook(est: Any, spec: Any, hooks: list, listeners: tuple) -> Any:
    tf = import_tf()
    config = est.config
    existing = [h for h in hooks if isinstance(h, tf.compat.v1.train.CheckpointSaverHook)]
    if existing:
        if listeners:
            existing[0]._listeners.extend(listeners)
        return None
    if not (config.save_checkpoints_secs or config.save_checkpoints_steps):
        if listeners:
            raise TfportInputError(
                message(
                    "saving_listeners were given but checkpointing is disabled",
                    "Set RunConfig.save_checkpoints_steps or save_checkpoints_secs",
                    saving_listeners=listeners,
                )
            )
        return None
    return tf.compat.v1.train.CheckpointSaverHook(
        est.model_dir,
        save_secs=config.save_checkpoints_secs,
        save_steps=config.save_checkpoints_steps,
        scaffold=spec.scaffold,
        listeners=list(listeners),
        save_graph_def=config.checkpoint_save_graph_def,
    )


class PreemptionWatcher:
    """Turns SIGTERM during training into: stop, save a checkpoint at this step, exit.

    The signal only sets a flag; a hook requests a stop after the running step,
    the CheckpointSaverHook's `end()` saves the checkpoint of the last step, and
    the process exits with 128 + SIGTERM.

    Example:
        >>> watcher = PreemptionWatcher()
        >>> with watcher.installed():
        ...     pass
    """

    def __init__(self) -> None:
        self.signalled: int | None = None
        self._previous: Any = None

    def installed(self) -> Any:
        watcher = self

        class _Ctx:
            def __enter__(self) -> None:
                if threading.current_thread() is threading.main_thread():
                    watcher._previous = signal.signal(signal.SIGTERM, watcher._handle)

            def __exit__(self, *exc: Any) -> None:
                if watcher._previous is not None:
                    signal.signal(signal.SIGTERM, watcher._previous)

        return _Ctx()

    def _handle(self, signum: int, frame: Any) -> None:
        del frame
        self.signalled = signum

    def hook(self) -> Any:
        tf = import_tf()
        watcher = self

        class _PreemptionHook(tf.compat.v1.train.SessionRunHook):
            def after_run(self, run_context: Any, run_values: Any) -> None:
                if watcher.signalled is not None:
                    run_context.request_stop()

        return _PreemptionHook()

    def exit_if_signalled(self, model_dir: str) -> None:
        if self.signalled is None:
            return
        tf = import_tf()
        latest = tf.train.latest_checkpoint(model_dir)
        print(
            f"tfport: received signal {self.signalled} during training; "
            f"saved {os.path.basename(latest or '?')} in {model_dir}; exiting",
            file=sys.stderr,
        )
        sys.exit(128 + self.signalled)
