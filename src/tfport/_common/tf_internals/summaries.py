"""TensorFlow internals of summaries.

The TF2 summary state (default writer, recording condition) and writer initializers, the
`FileWriter` v1 summaries are written with, and the `should_use_result` warnings lazy
summary tensors would log.

Example:
    >>> from tfport._common.tf_internals import summaries
    >>> ("ops.summary_ops_v2", "_summary_state") in summaries.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from tfport._common.tf_internals._access import set_tf_symbol, tf_symbol, tf_symbol_replaced
from tfport._common.types import Graph

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("ops.summary_ops_v2", "_summary_state"),
    ("ops.summary_ops_v2", "_SUMMARY_WRITER_INIT_COLLECTION_NAME"),
    ("util.tf_should_use", "_add_should_use_warning"),
    ("summary.writer.writer", "FileWriter"),
    ("summary.writer.writer_cache", "FileWriter"),
)
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = ()

# --- TF2 summaries of a model_fn: recorded while it builds, written after ---------------


@contextlib.contextmanager
def replaced_summary_write(write: Callable[..., Any]) -> Iterator[None]:
    """Within it, `tf.summary.write` (and `tf.compat.v2.summary.write`, which TensorBoard's
    `tf.summary.scalar`/`histogram`/`image` call) is `write`; restored on exit.

    Relies on the public API modules holding `write` as a plain module attribute that
    TensorBoard's summary functions look up at call time.
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    modules = [tf.summary, tf.compat.v2.summary]
    saved = [m.write for m in modules]
    for module in modules:
        module.write = write
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            module.write = original


@contextlib.contextmanager
def results_always_used() -> Iterator[None]:
    """Within it, results of TF functions marked `should_use_result` (`tf.debugging.assert_*`)
    come back unwrapped, so none logs "Object was never used" when it is dropped.

    TensorBoard's lazy summary tensors (`tf.summary.image`'s) make such asserts and drop
    them, as a `tf.function` may; in a v1 graph the caller collects and runs them instead.
    Relies on `tf_should_use.should_use_result` looking up the module-level
    `_add_should_use_warning` at each call.

    Example:
        >>> with results_always_used():
        ...     pass
    """
    with tf_symbol_replaced(
        "util.tf_should_use", "_add_should_use_warning", lambda x, *args, **kwargs: x
    ):
        yield


def default_summary_writer() -> Any:
    """The default TF2 summary writer of this thread (`writer.as_default()`), or None.

    Relies on `summary_ops_v2._summary_state.writer`; TF has no public getter (its public
    `should_record_summaries()` makes ops in a graph).

    Example:
        >>> default_summary_writer() is None
        True
    """
    return tf_symbol("ops.summary_ops_v2", "_summary_state").writer


def swap_summary_recording_condition(condition: Any) -> Any:
    """Sets TF2 summaries' per-replica recording condition (`summary_ops_v2._summary_state.
    is_recording_distribution_strategy`, TF >= 2.0) to `condition`; returns the previous one."""
    state = tf_symbol("ops.summary_ops_v2", "_summary_state")
    previous = state.is_recording_distribution_strategy
    state.is_recording_distribution_strategy = condition
    return previous


def summary_writer_init_ops(graph: Graph) -> list:
    """The initializer ops of the summary writers made in `graph` (TF2 and v2-in-graph).

    Relies on `summary_ops_v2._SUMMARY_WRITER_INIT_COLLECTION_NAME`, the collection
    where graph-mode `create_file_writer` registers its writer's init op (whose first
    input is the writer resource), as legacy TPUEstimator's host-call hook read it.
    """
    key = tf_symbol("ops.summary_ops_v2", "_SUMMARY_WRITER_INIT_COLLECTION_NAME")
    return list(graph.get_collection(key))


# --- v1 summaries ----------------------------------------------------------------------


def replace_summary_file_writer(writer_class: Callable[..., object]) -> Any:
    """Makes `writer_class` the `FileWriter` v1 summaries are written with; returns the old one.

    Relies on `summary.writer.writer.FileWriter` and the module global `FileWriter` of
    `summary.writer.writer_cache` (what `FileWriterCache.get`, hence `SummaryWriterCache`,
    the v1 hooks and tfport's evaluation summaries, construct); both hold on TF 2.0 - 2.21.
    """
    set_tf_symbol("summary.writer.writer", "FileWriter", writer_class)
    return set_tf_symbol("summary.writer.writer_cache", "FileWriter", writer_class)
