"""Legacy `estimator.py`'s module-level helpers that libraries call, with legacy's behaviour.

`_assert_members_are_not_overridden(cls, obj)`, `_check_hooks_type`,
`_check_listeners_type`, `_dict_to_str`, `_write_dict_to_summary`,
`_write_checkpoint_path_to_summary`, `_load_global_step_from_checkpoint_dir`,
`_check_checkpoint_available`.

Example:
    >>> _dict_to_str({"loss": 0.5, "global_step": 3})
    'global_step = 3, loss = 0.5'
"""

from __future__ import annotations

from typing import Any

from tfport._common.tfenv import import_tf
from tfport.estimator._engine import evaluation
from tfport.estimator._engine.internals import _assert_members_are_not_overridden

__all__ = [
    "_assert_members_are_not_overridden",
    "_check_checkpoint_available",
    "_check_hooks_type",
    "_check_listeners_type",
    "_dict_to_str",
    "_load_global_step_from_checkpoint_dir",
    "_write_checkpoint_path_to_summary",
    "_write_dict_to_summary",
]


def _dict_to_str(dictionary: dict) -> str:
    """`"k = v, ..."` sorted by key, bytes values left out (legacy's log format)."""
    return ", ".join(
        f"{k} = {v}" for k, v in sorted(dictionary.items()) if not isinstance(v, bytes)
    )


def _check_hooks_type(hooks: Any) -> list:
    """`hooks` as a list; TypeError for one that is not a `SessionRunHook`."""
    hooks = list(hooks or [])
    for hook in hooks:
        if not isinstance(hook, import_tf().compat.v1.train.SessionRunHook):
            raise TypeError(f"Hooks must be a SessionRunHook, given: {hook}")
    return hooks


def _check_listeners_type(saving_listeners: Any) -> list:
    """`saving_listeners` as a list; TypeError for one that is not a listener."""
    listeners = list(saving_listeners or [])
    for listener in listeners:
        if not isinstance(listener, import_tf().compat.v1.train.CheckpointSaverListener):
            raise TypeError(
                f"saving_listeners must be a list of CheckpointSaverListener, given: {listener}"
            )
    return listeners


def _write_dict_to_summary(output_dir: str, dictionary: dict, current_global_step: int) -> None:
    """Writes `dictionary`'s numbers (and serialized Summaries) as evaluation did."""
    values = {k: v for k, v in dictionary.items() if k != evaluation.GLOBAL_STEP_KEY}
    values[evaluation.GLOBAL_STEP_KEY] = current_global_step
    evaluation._write_summaries(import_tf(), output_dir, values, None)


def _write_checkpoint_path_to_summary(
    output_dir: str, checkpoint_path: str, current_global_step: int
) -> None:
    """Writes the `checkpoint_path` text summary to `output_dir`'s event file."""
    tf = import_tf()
    with tf.Graph().as_default():
        writer = tf.compat.v1.summary.FileWriterCache.get(output_dir)
    evaluation.write_checkpoint_path(tf, writer, checkpoint_path, current_global_step)
    writer.flush()


def _load_global_step_from_checkpoint_dir(checkpoint_dir: str) -> Any:
    """The newest checkpoint's global step in `checkpoint_dir`, or 0 without one."""
    tf = import_tf()
    latest = tf.train.latest_checkpoint(checkpoint_dir)
    if not latest:
        return 0
    try:
        return tf.train.load_variable(latest, tf.compat.v1.GraphKeys.GLOBAL_STEP)
    except (ValueError, KeyError, tf.errors.OpError):
        return 0


def _check_checkpoint_available(model_dir: str) -> None:
    """ValueError unless `model_dir` holds a checkpoint."""
    if not import_tf().train.latest_checkpoint(model_dir):
        raise ValueError(f"Could not find trained model in model_dir: {model_dir}.")
