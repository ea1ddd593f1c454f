"""The training loop: a graph per call, MonitoredTrainingSession, legacy hooks."""

from __future__ import annotations

import contextvars
import dataclasses
import weakref
from collections.abc import Iterable
from contextlib import nullcontext
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Hook, InputFn, TFModule
from tfport.estimator._engine.api.spec import ModeKeys, check_hooks
from tfport.estimator._engine.building import builder, graphs, loops
from tfport.estimator._engine.building.aligned_names import aligned_var_list
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.running import console, lock, sessions

if TYPE_CHECKING:
    from tfport.estimator._engine.api.spec import EstimatorSpec
    from tfport.estimator._engine.building.builder import Built

# the graph `train_model_default` built, while its spec trains: (ctx, Built, input_fn)
_CURRENT: contextvars.ContextVar[tuple | None] = contextvars.ContextVar("training", default=None)
# StopAtStepHook -> (steps, max_steps) of the hooks `convert_train_steps_to_hooks` made
_BOUNDS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def train(
    self: Any,
    input_fn: InputFn,
    hooks: Iterable[Hook] | None,
    steps: int | None,
    max_steps: int | None,
    saving_listeners: Iterable[object] | None,
) -> None:
    """`Estimator.train` in legacy's order: checks, stop hooks, then `self._train_model`.

    A subclass or library overriding `_train_model`, `_train_model_default` or
    `_train_with_estimator_spec` (patched on the class or defined in a subclass) is called
    as legacy called it.

    Example:
        >>> train(est, input_fn, None, None, 40, None)  # doctest: +SKIP
    """
    tf = import_tf()
    _check_steps(steps, max_steps)
    hooks = list(check_hooks(tf, hooks, "train(hooks)"))
    if max_steps is not None:
        start = graphs.global_step_in_dir(self.model_dir)
        if max_steps <= start:
            console.info("Skipping training since max_steps has already saved.")
            return
    hooks.extend(self._convert_train_steps_to_hooks(steps, max_steps))
    loss = self._train_model(input_fn, hooks, list(saving_listeners or ()))
    console.final_loss(loss)


def convert_train_steps_to_hooks(self: Any, steps: int | None, max_steps: int | None) -> list:
    """`Estimator._convert_train_steps_to_hooks`: a `StopAtStepHook`, or none.

    The hook remembers its bounds for the steps-per-loop hook and the progress line.

    Example:
        >>> convert_train_steps_to_hooks(None, None, None)
        []
    """
    del self
    if steps is None and max_steps is None:
        return []
    hook = import_tf().compat.v1.train.StopAtStepHook(num_steps=steps, last_step=max_steps)
    _BOUNDS[hook] = (steps, max_steps)
    return [hook]


def _bounds(hooks: list) -> tuple[int | None, int | None]:
    """`(steps, max_steps)` of the last stop hook `convert_train_steps_to_hooks` made, else
    `(None, None)`."""
    for hook in reversed(hooks):
        if hook in _BOUNDS:
            return _BOUNDS[hook]
    return None, None


def train_model(self: Any, input_fn: InputFn, hooks: list, saving_listeners: list) -> Any:
    """`Estimator._train_model`: legacy's dispatch on `train_distribute`; returns the loss."""
    if self._train_distribution is not None:
        return self._train_model_distributed(input_fn, hooks, saving_listeners)
    return self._train_model_default(input_fn, hooks, saving_listeners)


def train_model_default(self: Any, input_fn: InputFn, hooks: list, saving_listeners: list) -> Any:
    """`Estimator._train_model_default`: builds the graph (on the context's strategy, if any)
    and hands its spec to `self._train_with_estimator_spec`; returns the last loss."""
    ctx = self._context(ModeKeys.TRAIN)
    graphs.ensure_writable_dir(ctx.model_dir)
    built = builder.build(ctx, input_fn)
    held = lock.training_lock(ctx.model_dir) if ctx.config.is_chief else nullcontext()
    token = _CURRENT.set((ctx, built, input_fn))
    try:
        with held, built.graph.as_default():
            return self._train_with_estimator_spec(
                built.spec, list(built.input_hooks), hooks, built.global_step, saving_listeners
            )
    finally:
        _CURRENT.reset(token)


def train_model_distributed(
    self: Any, input_fn: InputFn, hooks: list, saving_listeners: list
) -> Any:
    """`Estimator._train_model_distributed`: `self._actual_train_model_distributed` on the
    RunConfig's `train_distribute`, as legacy called it."""
    return self._actual_train_model_distributed(
        self._train_distribution, input_fn, hooks, saving_listeners
    )


def actual_train_model_distributed(
    self: Any, strategy: object, input_fn: InputFn, hooks: list, saving_listeners: list
) -> Any:
    """`Estimator._actual_train_model_distributed`: the engine's `_train_model_default` (the
    graph is replicated on the Estimator's TRAIN context, whose strategy `strategy` is)."""
    if strategy is not self._train_distribution:
        raise ValueError(
            "_actual_train_model_distributed(strategy, ...) trains on the RunConfig's "
            "train_distribute in tfport; set RunConfig(train_distribute=strategy) instead. "
            f"Received: strategy={type(strategy).__name__}"
        )
    return train_model_default(self, input_fn, hooks, saving_listeners)


def train_with_estimator_spec_distributed(
    self: Any,
    estimator_spec: EstimatorSpec,
    worker_hooks: list,
    saving_listener: Iterable[object] | None,
) -> Any:
    """`Estimator._train_with_estimator_spec_distributed`: `_train_with_estimator_spec`
    with the graph's global step and no further hooks."""
    global_step = import_tf().compat.v1.train.get_global_step()
    return self._train_with_estimator_spec(
        estimator_spec, worker_hooks, [], global_step, saving_listener
    )


def train_with_estimator_spec(
    self: Any,
    estimator_spec: EstimatorSpec,
    worker_hooks: list,
    hooks: list,
    global_step_tensor: object,
    saving_listeners: Iterable[object] | None,
) -> Any:
    """`Estimator._train_with_estimator_spec`: runs the training session of the default
    graph; returns the last loss.

    The graph is the one `_train_model_default` built, or one a subclass built itself
    (with `_get_features_and_labels_from_input_fn` and `_call_model_fn`, as legacy's
    subclasses do): then it runs without steps-per-loop and under the training lock.
    """
    tf = import_tf()
    graph = tf.compat.v1.get_default_graph()
    current = _CURRENT.get()
    listeners = tuple(saving_listeners or ())
    if current is not None and current[1].graph is graph:
        ctx, built, input_fn = current
        built = dataclasses.replace(
            built,
            spec=estimator_spec,
            input_hooks=list(worker_hooks),
            global_step=global_step_tensor,
        )
        return _train_with_spec(ctx, built, list(hooks), listeners, input_fn, _bounds(hooks))
    ctx = self._context(ModeKeys.TRAIN)
    graphs.ensure_writable_dir(ctx.model_dir)
    built = builder.Built(graph, estimator_spec, list(worker_hooks), global_step_tensor)
    held = lock.training_lock(ctx.model_dir) if ctx.config.is_chief else nullcontext()
    with held:
        return _train_with_spec(ctx, built, list(hooks), listeners, None, _bounds(hooks))


def _check_steps(steps: object, max_steps: object) -> None:
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


def _train_with_spec(
    ctx: ModeContext,
    built: Built,
    hooks: list,
    listeners: tuple,
    input_fn: InputFn | None,
    bounds: tuple[int | None, int | None],
) -> Any:
    tf = import_tf()
    v1 = tf.compat.v1
    spec, config = built.spec, ctx.config
    if ctx.warm_start is not None and not tf.train.latest_checkpoint(ctx.model_dir):
        console.warm_starting(ctx.warm_start)
    graphs.maybe_warm_start(ctx.warm_start)
    if not any(x.op.name == "loss" for x in v1.get_collection(v1.GraphKeys.SUMMARIES)):
        v1.summary.scalar("loss", spec.loss)
    worker_hooks = list(built.input_hooks) + hooks
    worker_hooks.append(v1.train.NanTensorHook(spec.loss))
    if config.log_step_count_steps:
        logged = {"loss": spec.loss, "step": built.global_step}
        worker_hooks.append(loops.logging_hook(logged, config.log_step_count_steps))
    worker_hooks.extend(spec.training_hooks)
    if built.summary_hook is not None:
        worker_hooks.append(built.summary_hook)
    progress = console.progress_hook(spec.loss, *bounds)
    if progress is not None:
        worker_hooks.append(progress)
    _add_saver(tf, ctx, built, input_fn)
    chief = config.is_chief
    chief_hooks: list = []
    if chief:
        chief_hooks = sessions.chief_hooks(ctx, spec, worker_hooks, listeners)
    if built.loop is not None:
        worker_hooks.insert(0, built.loop.hook(*bounds, worker_hooks + chief_hooks))
    preemption = sessions.PreemptionWatcher()
    worker_hooks.append(preemption.hook())
    master, session_config, every_worker_inits = sessions.session_target(ctx.strategy, config)
    waiter = None
    if every_worker_inits and not chief:  # multi-worker: the chief alone saves
        waiter = sessions.ChiefCheckpointWait(ctx.model_dir, config.session_creation_timeout_secs)
        worker_hooks.append(waiter.hook())
    with (
        preemption.installed(),
        v1.train.MonitoredTrainingSession(
            master=master,
            is_chief=chief or every_worker_inits,
            checkpoint_dir=ctx.model_dir,
            scaffold=spec.scaffold,
            hooks=worker_hooks,
            chief_only_hooks=chief_hooks,
            save_checkpoint_secs=0,
            save_summaries_steps=None,
            save_summaries_secs=None,
            config=session_config,
            max_wait_secs=config.session_creation_timeout_secs,
            log_step_count_steps=None,
            save_graph_def=config.checkpoint_save_graph_def and chief,
        ) as session,
    ):
        sessions.cache_runs(session)
        loss = None
        while not session.should_stop():
            loss = session.run([spec.train_op, spec.loss])[1]
    preemption.exit_if_signalled(ctx.model_dir)
    if waiter is not None:
        waiter.wait()
    return loss


def _add_saver(tf: TFModule, ctx: ModeContext, built: Built, input_fn: Any) -> None:
    """The Saver of the graph (single-device names under a strategy), unless model_fn set one."""
    v1 = tf.compat.v1
    if built.spec.scaffold.saver or v1.get_collection(v1.GraphKeys.SAVERS):
        return
    config = ctx.config
    latest = tf.train.latest_checkpoint(ctx.model_dir)
    var_list = None
    if latest and built.distributed:
        var_list = aligned_var_list(ctx, input_fn, latest)
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
