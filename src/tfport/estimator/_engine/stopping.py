"""Legacy `early_stopping`'s private helpers, over tfport's early-stopping hooks.

Libraries with their own stopping rules call `_stop_if_threshold_crossed_hook`,
`_stop_if_no_metric_improvement_hook` (what the public `stop_if_*` hooks are made of),
`_get_or_create_stop_var` and `_summaries(eval_dir)` (`tfport._legacy_tree` places them).

Example:
    >>> hook = _stop_if_threshold_crossed_hook(est, "loss", 0.1, False, None, 0, 60, None)
    ... # doctest: +SKIP
"""

from __future__ import annotations

import operator
import os
from collections.abc import Iterator
from typing import Any

from tfport._common.tfenv import import_tf
from tfport.estimator._engine.hooks import _metric_hook, _stop_var


def _stop_if_threshold_crossed_hook(
    estimator: Any,
    metric_name: str,
    threshold: float,
    higher_is_better: bool,
    eval_dir: Any,
    min_steps: int,
    run_every_secs: Any,
    run_every_steps: Any,
) -> Any:
    """A hook stopping once eval `metric_name` is above (`higher_is_better`) or below
    `threshold`."""
    compare = operator.gt if higher_is_better else operator.lt
    return _metric_hook(
        estimator,
        metric_name,
        threshold,
        compare,
        None,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def _stop_if_no_metric_improvement_hook(
    estimator: Any,
    metric_name: str,
    max_steps_without_improvement: int,
    higher_is_better: bool,
    eval_dir: Any,
    min_steps: int,
    run_every_secs: Any,
    run_every_steps: Any,
) -> Any:
    """A hook stopping once eval `metric_name` has not improved for
    `max_steps_without_improvement` steps."""
    compare = operator.gt if higher_is_better else operator.lt
    return _metric_hook(
        estimator,
        metric_name,
        None,
        compare,
        max_steps_without_improvement,
        eval_dir,
        min_steps,
        run_every_secs,
        run_every_steps,
    )


def _get_or_create_stop_var() -> Any:
    """The graph's boolean `signal_early_stopping/STOP` variable (created when missing)."""
    return _stop_var(import_tf())


def _summaries(eval_dir: str) -> Iterator[Any]:
    """Yields the `Event` protos of every event file in `eval_dir` (none when missing)."""
    tf = import_tf()
    if not tf.io.gfile.exists(eval_dir):
        return
    for path in tf.io.gfile.glob(os.path.join(eval_dir, "events.out.tfevents.*")):
        yield from tf.compat.v1.train.summary_iterator(path)
