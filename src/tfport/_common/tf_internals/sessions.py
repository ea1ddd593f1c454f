"""TensorFlow internals of sessions and their hooks.

Sessions and monitored sessions, the `Scaffold`'s Saver, the state of the standard hooks
(checkpoint saver, step counter, summary saver, logging), v1 evaluation's step counting
and stop hook, and the eager context.

Example:
    >>> from tfport._common.tf_internals import sessions
    >>> ("training.evaluation", "_StopAfterNEvalsHook") in sessions.SYMBOLS
    True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("training.training_util", "GLOBAL_STEP_READ_KEY"),
    ("training.evaluation", "_get_or_create_eval_step"),
    ("training.evaluation", "_StopAfterNEvalsHook"),
    ("eager.context", "context"),
    ("eager.context", "eager_mode"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("training.evaluation", "_StopAfterNEvalsHook", "_set_evals_completed_tensor"),
    ("training.basic_session_run_hooks", "CheckpointSaverHook", "_listeners"),
    ("training.basic_session_run_hooks", "CheckpointSaverHook", "_checkpoint_dir"),
    ("training.basic_session_run_hooks", "CheckpointSaverHook", "_steps_per_run"),
    ("training.basic_session_run_hooks", "StepCounterHook", "_summary_writer"),
    ("training.basic_session_run_hooks", "StepCounterHook", "_steps_per_run"),
    ("training.basic_session_run_hooks", "SummarySaverHook", "_next_step"),
    ("training.basic_session_run_hooks", "LoggingTensorHook", "_iter_count"),
    ("training.monitored_session", "Scaffold", "_saver"),
    ("training.monitored_session", "MonitoredSession", "_tf_sess"),
    ("client.session", "BaseSession", "_closed"),
    ("client.session", "BaseSession", "_do_call"),
)

# --- sessions and the eager context ---------------------------------------------------


def raw_session(monitored: Any) -> Any:
    """The `tf.compat.v1.Session` under a MonitoredSession (`_tf_sess()`), else None."""
    get = getattr(monitored, "_tf_sess", None)
    return get() if get is not None else None


def session_closed(session: Any) -> bool:
    """`Session._closed` (TF >= 1.x)."""
    return bool(session._closed)


def call_callable(session: Any, callable_fn: Any, options: Any, run_metadata: Any) -> Any:
    """Runs a `make_callable` result with options (`BaseSession._do_call`, TF >= 1.x)."""
    return session._do_call(callable_fn, options, run_metadata)


def eager_mode() -> Any:
    """`context.eager_mode()`: a block run eagerly even inside a v1 graph (TF >= 2.0)."""
    return tf_symbol("eager.context", "eager_mode")()


def eager_context_config() -> Any:
    """The eager context's merged `ConfigProto` (`context.context().config`, TF >= 2.0)."""
    return tf_symbol("eager.context", "context")().config


# --- hooks and the scaffold -----------------------------------------------------------


def global_step_read_key() -> str:
    """`training_util.GLOBAL_STEP_READ_KEY`: the collection of global-step reads."""
    return tf_symbol("training.training_util", "GLOBAL_STEP_READ_KEY")


def set_hook_run_length(hook: Any, steps: int, end: int) -> None:
    """Tells a hook that one `session.run` now makes `steps` steps, ending at step `end`.

    Sets `_steps_per_run` where a hook has it (StepCounterHook, CheckpointSaverHook and
    tfport's logging hooks; TF >= 1.13) and moves a `SummarySaverHook`'s `_next_step`
    (which assumes one step per run) to `end`.
    """
    import tensorflow as tf

    if hasattr(hook, "_steps_per_run"):
        hook._steps_per_run = steps
    if isinstance(hook, tf.compat.v1.train.SummarySaverHook) and hook._next_step is not None:
        hook._next_step = end


def count_more_iterations(hook: Any, count: int) -> None:
    """Adds `count` runs to a `LoggingTensorHook`'s run counter (`_iter_count`, TF >= 1.x)."""
    hook._iter_count += count


def scaffold_saver(scaffold: Any) -> Any:
    """A `Scaffold`'s Saver as set so far (`_saver`, None until made; TF >= 1.x)."""
    return scaffold._saver


def set_scaffold_saver(scaffold: Any, saver: Any) -> None:
    """Sets a `Scaffold`'s Saver (`_saver`), as its `finalize` would."""
    scaffold._saver = saver


def saver_hook_listeners(hook: Any) -> list:
    """A `CheckpointSaverHook`'s listener list (`_listeners`, TF >= 1.x), to extend."""
    return hook._listeners


def saver_hook_directory(hook: Any) -> str:
    """A `CheckpointSaverHook`'s checkpoint directory (`_checkpoint_dir`, TF >= 1.x)."""
    return hook._checkpoint_dir


def hook_summary_writer(hook: Any) -> Any:
    """A `StepCounterHook`'s summary writer (`_summary_writer`, None without one)."""
    return hook._summary_writer


# --- v1 evaluation ---------------------------------------------------------------------


def get_or_create_eval_step() -> Any:
    """`evaluation._get_or_create_eval_step()` (TF >= 1.x): the graph's `eval_step` local
    variable that v1 evaluation counts its batches in."""
    return tf_symbol("training.evaluation", "_get_or_create_eval_step")()


def stop_after_n_evals_hook(steps: int | None) -> Any:
    """`evaluation._StopAfterNEvalsHook(steps, log_progress=True)` (TF >= 1.x): the hook of
    legacy's `Estimator._convert_eval_steps_to_hooks`."""
    return tf_symbol("training.evaluation", "_StopAfterNEvalsHook")(steps, log_progress=True)


def eval_step_and_stop_hooks(hooks: list) -> tuple[Any, list, Callable[[Any], None]]:
    """`(eval_step, added_hooks, set_increment)` as `tf.compat.v1` evaluation uses them.

    `set_increment(tensor)` tells every `_StopAfterNEvalsHook` of `hooks` (and the one
    `added_hooks` holds when there is none: it counts without a limit) the completed-evals
    tensor (`evaluation._get_or_create_eval_step`, `_StopAfterNEvalsHook`,
    `_set_evals_completed_tensor`, TF >= 1.x).
    """
    cls = tf_symbol("training.evaluation", "_StopAfterNEvalsHook")
    eval_step = get_or_create_eval_step()
    stops = [h for h in hooks if isinstance(h, cls)]
    added = [] if stops else [stop_after_n_evals_hook(None)]

    def set_increment(tensor: Any) -> None:
        for hook in stops + added:
            hook._set_evals_completed_tensor(tensor)

    return eval_step, added, set_increment
