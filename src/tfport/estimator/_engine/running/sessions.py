"""Session plumbing of training: the master to connect to, chief hooks, preemption.

The chief's summary, step-counter and checkpoint hooks are made here rather than by
`MonitoredTrainingSession`, so that steps per loop can tell them how many steps each
`session.run` made.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import RunContext
from tfport.distribute import task_server
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.building.graphs import global_step_in_dir
from tfport.estimator._engine.building.inputs import is_multi_worker, is_parameter_server
from tfport.estimator._engine.running.checkpointing import safe_checkpoint_saver_hook

if TYPE_CHECKING:
    from tfport.estimator._engine.api.run_config import RunConfig
    from tfport.estimator._engine.api.spec import EstimatorSpec

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook


def session_target(strategy: Any, config: RunConfig) -> tuple[str, Any, bool]:
    """The session master, ConfigProto, and whether every worker initializes variables.

    Multi-worker collectives run on the in-process server the strategy started (each
    worker initializes; initial values are broadcast). Parameter-server training runs on
    this task's own server, the chief initializes the variables that live on the ps tasks.

    Example:
        >>> session_target(None, RunConfig())[0]  # doctest: +SKIP
        ''
    """
    session_config = config.session_config
    if strategy is None:
        return "", session_config, False
    if is_multi_worker(strategy):
        return config.master, strategy.update_config_proto(session_config), True
    if is_parameter_server(strategy) and config.cluster_spec:
        target = task_server(config.cluster_spec, config.task_type, config.task_id).target
        return target, strategy.update_config_proto(session_config), False
    return "", session_config, False


def chief_hooks(
    ctx: ModeContext, spec: EstimatorSpec, worker_hooks: list, listeners: tuple
) -> list:
    """The chief's hooks: model_fn's chief hooks, step counter, summaries, checkpoints.

    Example:
        >>> hooks = chief_hooks(ctx, spec, [], ())  # doctest: +SKIP
    """
    v1 = import_tf().compat.v1
    config = ctx.config
    hooks = list(spec.training_chief_hooks)
    if config.log_step_count_steps:
        hooks.append(
            v1.train.StepCounterHook(
                output_dir=ctx.model_dir, every_n_steps=config.log_step_count_steps
            )
        )
    if config.save_summary_steps:
        hooks.append(
            v1.train.SummarySaverHook(
                scaffold=spec.scaffold,
                save_steps=config.save_summary_steps,
                output_dir=ctx.model_dir,
            )
        )
    saver_hook = _checkpoint_hook(ctx, spec, worker_hooks + hooks, listeners)
    if saver_hook is not None:
        hooks.append(saver_hook)
    return hooks


def _checkpoint_hook(ctx: ModeContext, spec: EstimatorSpec, hooks: list, listeners: tuple) -> Any:
    tf = import_tf()
    config = ctx.config
    existing = [h for h in hooks if isinstance(h, tf.compat.v1.train.CheckpointSaverHook)]
    if existing:
        _add_listeners(tf_internals.saver_hook_listeners(existing[0]), listeners)
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
    return safe_checkpoint_saver_hook(
        ctx.model_dir,
        save_secs=config.save_checkpoints_secs,
        save_steps=config.save_checkpoints_steps,
        scaffold=spec.scaffold,
        listeners=_add_listeners([], listeners),
        save_graph_def=config.checkpoint_save_graph_def,
    )


def _add_listeners(held: list, listeners: tuple) -> list:
    """Appends to a saver hook's `held` listeners those of `listeners` not there yet.

    Legacy's rule: a listener the model_fn's own CheckpointSaverHook already holds (or
    one passed twice) is called once per save, not once per mention.
    """
    for listener in listeners:
        if listener not in held:
            held.append(listener)
    return held


class ChiefCheckpointWait:
    """Ends training on a non-chief multi-worker task only once the chief has checkpointed.

    The workers step together, but only the chief saves; a worker that went on to
    `evaluate` (also under the strategy, its collectives joined with the chief's) could
    otherwise restore the checkpoint before the last one. `hook()` records the global step
    the session ended at; `wait()` then polls model_dir until the chief's checkpoint of
    that step exists (at most `timeout` seconds, then a warning).

    Example:
        >>> waiter = ChiefCheckpointWait(model_dir, 600)  # doctest: +SKIP
    """

    def __init__(self, model_dir: str, timeout: float, poll_secs: float = 0.2) -> None:
        self.model_dir, self.timeout, self.poll_secs = model_dir, timeout, poll_secs
        self.step: int | None = None

    def hook(self) -> Any:
        """The SessionRunHook that reads the final global step when the session ends."""
        return _FinalStepHook(self)

    def wait(self) -> None:
        """Returns once model_dir's latest checkpoint is at the final step (or on timeout)."""
        if self.step is None:  # the session did not end normally
            return
        tf = import_tf()
        deadline = time.monotonic() + self.timeout
        logged = False
        while time.monotonic() < deadline:
            if global_step_in_dir(self.model_dir) >= self.step:
                return
            if not logged:
                tf.compat.v1.logging.info(
                    "Waiting for the chief's checkpoint of step %d in %s", self.step, self.model_dir
                )
                logged = True
            time.sleep(self.poll_secs)
        tf.compat.v1.logging.warning(
            "The chief wrote no checkpoint of step %d in %s within %d s; going on",
            self.step,
            self.model_dir,
            self.timeout,
        )


def cache_runs(monitored: object) -> None:
    """Lets the training session reuse the fetch plan of runs it has seen before.

    Every `session.run` under a MonitoredSession fetches the caller's tensors and every
    hook's, and TensorFlow maps that structure to graph elements anew each time (a
    Python cost that shows on small models). The raw session's `run` is wrapped: a run
    without feeds or run options, whose fetches have the structure (and the very tensors
    and ops) of an earlier one, goes through `Session.make_callable` made for it, with
    the same error rewriting (`_do_call`); anything else takes `Session.run` as before.
    A session recreated after an error (`_RecoverableSession`) runs unwrapped.

    Example:
        >>> cache_runs(monitored_session)  # doctest: +SKIP
    """
    v1 = import_tf().compat.v1
    raw = tf_internals.raw_session(monitored)
    if isinstance(raw, v1.Session) and raw.graph.finalized and "run" not in vars(raw):
        raw.run = _RunCache(raw).run


class _Uncacheable(Exception):
    pass


class _RunCache:
    LIMIT = 16  # distinct fetch structures (hooks add summaries or logs every N steps)

    def __init__(self, session: Any) -> None:
        tf = import_tf()
        self._session = session
        self._run = session.run  # the class's bound method
        self._leaves = (tf.Tensor, tf.Operation, tf.Variable)
        self._plans: dict = {}

    def run(
        self,
        fetches: object,
        feed_dict: object = None,
        options: Any = None,
        run_metadata: object = None,
    ) -> Any:
        """`Session.run`, through a cached callable when the fetch structure was seen."""
        session = self._session
        closed = tf_internals.session_closed(session)
        if feed_dict or (options is not None and options.ByteSize()) or closed:
            return self._run(fetches, feed_dict, options, run_metadata)
        try:
            key = self._signature(fetches)
        except _Uncacheable:
            return self._run(fetches, feed_dict, options, run_metadata)
        plan = self._plans.get(key)
        if plan is None:
            if len(self._plans) >= self.LIMIT:
                return self._run(fetches, feed_dict, options, run_metadata)
            # Keeps `fetches` alive with the plan, so the ids in `key` stay theirs. A run
            # that fetches nothing (`Checkpoint.restore(...).initialize_or_restore(session)`
            # runs `[]`) has no callable: `Session.run` returns its empty structure.
            callable_fn = (
                session.make_callable(fetches, accept_options=True)
                if _fetches_something(fetches)
                else None
            )
            plan = self._plans[key] = (fetches, callable_fn)
        if plan[1] is None:
            return self._run(fetches, feed_dict, options, run_metadata)
        return tf_internals.call_callable(session, plan[1], options, run_metadata)

    def _signature(self, value: Any) -> Any:
        kind = type(value)
        if kind is dict:
            sign = self._signature
            return ("d", *((k if type(k) is str else id(k), sign(v)) for k, v in value.items()))
        if kind is list or kind is tuple:
            return (kind, *(self._signature(v) for v in value))
        if kind is str:
            return ("s", value)
        if isinstance(value, self._leaves):
            return id(value)
        raise _Uncacheable


def _fetches_something(fetches: Any) -> bool:
    """Whether a fetch structure `_RunCache` accepted names a tensor, op, variable or name."""
    kind = type(fetches)
    if kind is dict:
        return any(_fetches_something(v) for v in fetches.values())
    if kind is list or kind is tuple:
        return any(_fetches_something(v) for v in fetches)
    return True


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

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """SIGTERM handled by this watcher inside the block (on the main thread)."""
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGTERM, self._handle)
        try:
            yield
        finally:
            if self._previous is not None:
                signal.signal(signal.SIGTERM, self._previous)

    def _handle(self, signum: int, frame: object) -> None:
        del frame
        self.signalled = signum

    def hook(self) -> Any:
        """The SessionRunHook requesting a stop after the run the signal came in."""
        return _PreemptionHook(self)

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


class _FinalStepHook(_SessionRunHook):
    """Records the global step the session ended at in `waiter.step`."""

    def __init__(self, waiter: ChiefCheckpointWait) -> None:
        self._waiter = waiter

    def begin(self) -> None:
        self._global_step = tf.compat.v1.train.get_global_step()

    def end(self, session: Any) -> None:
        self._waiter.step = int(session.run(self._global_step))


class _PreemptionHook(_SessionRunHook):
    """Requests a stop once the watcher saw a signal."""

    def __init__(self, watcher: PreemptionWatcher) -> None:
        self._watcher = watcher

    def after_run(self, run_context: RunContext, run_values: object) -> None:
        if self._watcher.signalled is not None:
            run_context.request_stop()
