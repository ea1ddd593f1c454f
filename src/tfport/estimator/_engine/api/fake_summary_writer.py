"""Legacy `hooks/fake_summary_writer.py`: a summary writer recording in memory, for hook tests.

`FakeSummaryWriter.install()` makes it the `FileWriter` that `FileWriterCache` (hence
`SummaryWriterCache`, the v1 hooks `SummarySaverHook`, `StepCounterHook`,
`CheckpointSaverHook`, and tfport's Estimator training and evaluation summaries) constructs,
so a test reads what was written with `FileWriterCache.get(logdir).assert_summaries(...)`;
`uninstall()` restores the real writer. Both also empty the writer cache (closing what it
held), so every log folder gets a writer of the installed kind: legacy left writers cached
before `install()` in place, and a folder used before the test silently bypassed the fake.

Example:
    >>> FakeSummaryWriter.install()  # doctest: +SKIP
    >>> estimator.train(input_fn, steps=10)  # doctest: +SKIP
    >>> FileWriterCache.get(estimator.model_dir).summaries[10]  # doctest: +SKIP
    >>> FakeSummaryWriter.uninstall()  # doctest: +SKIP
"""

from __future__ import annotations

import unittest
from collections.abc import Mapping, Sequence
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf

_UNTIMED_TAG = "global_step/sec"  # written from wall time: not comparable between runs


def _clear_writer_cache() -> None:
    import_tf().compat.v1.summary.FileWriterCache.clear()


class FakeSummaryWriter:
    """Records summaries, graphs, meta graphs, session logs and run metadata in memory.

    Example:
        >>> writer = FakeSummaryWriter("logdir")
        >>> writer.add_summary(b"", 3)
        >>> sorted(writer.summaries)
        [3]
    """

    _replaced_summary_writer: Any = None

    @classmethod
    def install(cls) -> None:
        """Makes the v1 summary writer cache construct FakeSummaryWriters."""
        if cls._replaced_summary_writer:
            raise ValueError("FakeSummaryWriter already installed.")
        _clear_writer_cache()
        cls._replaced_summary_writer = tf_internals.replace_summary_file_writer(FakeSummaryWriter)

    @classmethod
    def uninstall(cls) -> None:
        """Restores the real `FileWriter`."""
        if not cls._replaced_summary_writer:
            raise ValueError("FakeSummaryWriter not installed.")
        tf_internals.replace_summary_file_writer(cls._replaced_summary_writer)
        cls._replaced_summary_writer = None
        _clear_writer_cache()

    def __init__(self, logdir: str, graph: object = None) -> None:
        self._logdir = logdir
        self._graph = graph
        self._summaries: dict = {}
        self._added_graphs: list = []
        self._added_meta_graphs: list = []
        self._added_session_logs: list = []
        self._added_run_metadata: dict = {}

    @property
    def summaries(self) -> dict:
        """Step -> the `Summary` protos added at that step, in order."""
        return self._summaries

    def assert_summaries(
        self,
        test_case: unittest.TestCase,
        expected_logdir: str | None = None,
        expected_graph: object = None,
        expected_summaries: Mapping[int, object] | None = None,
        expected_added_graphs: Sequence[object] | None = None,
        expected_added_meta_graphs: Sequence[object] | None = None,
        expected_session_logs: Sequence[object] | None = None,
    ) -> None:
        """Asserts (with `test_case`'s assertions) what was added; None skips a check.

        `expected_summaries` maps a step to `{tag: simple_value}` of every value added at
        that step (`global_step/sec` ignored: its value is wall-time based).
        """
        if expected_logdir is not None:
            test_case.assertEqual(expected_logdir, self._logdir)
        if expected_graph is not None:
            test_case.assertTrue(expected_graph is self._graph)
        for step, expected in (expected_summaries or {}).items():
            test_case.assertTrue(
                step in self._summaries, msg=f"Missing step {step} from {self._summaries.keys()}."
            )
            test_case.assertEqual(expected, self.simple_values(step))
        if expected_added_graphs is not None:
            test_case.assertEqual(expected_added_graphs, self._added_graphs)
        if expected_added_meta_graphs is not None:
            test_case.assertEqual(len(expected_added_meta_graphs), len(self._added_meta_graphs))
            for expected, actual in zip(expected_added_meta_graphs, self._added_meta_graphs):
                _assert_meta_graphs_equal(test_case, expected, actual)
        if expected_session_logs is not None:
            test_case.assertEqual(expected_session_logs, self._added_session_logs)

    def simple_values(self, step: int) -> dict:
        """`{tag: simple_value}` of the summaries added at `step` (`global_step/sec` left out).

        Example:
            >>> FakeSummaryWriter("logdir").simple_values(0)
            {}
        """
        return {
            value.tag: value.simple_value
            for summary in self._summaries.get(step, [])
            for value in summary.value
            if value.tag != _UNTIMED_TAG
        }

    def add_summary(self, summ: object, current_global_step: int) -> None:
        """Records a `Summary` (or its serialized bytes) at `current_global_step`."""
        if isinstance(summ, bytes):
            from tensorflow.core.framework import summary_pb2

            summ = summary_pb2.Summary.FromString(summ)
        self._summaries.setdefault(current_global_step, []).append(summ)

    def add_graph(
        self, graph: object, global_step: int | None = None, graph_def: object = None
    ) -> None:
        """Records a graph (a `graph_def` is refused, as legacy did)."""
        _check_step(global_step)
        if graph_def is not None:
            raise ValueError(f"Unexpected graph_def {graph_def}.")
        self._added_graphs.append(graph)

    def add_meta_graph(self, meta_graph_def: object, global_step: int | None = None) -> None:
        """Records a `MetaGraphDef`."""
        _check_step(global_step)
        self._added_meta_graphs.append(meta_graph_def)

    def add_session_log(self, session_log: object, global_step: int | None = None) -> None:
        """Records a `SessionLog` (the step is not kept: legacy ignored it too)."""
        del global_step
        self._added_session_logs.append(session_log)

    def add_run_metadata(
        self, run_metadata: object, tag: str, global_step: int | None = None
    ) -> None:
        """Records `RunMetadata` under `tag`."""
        _check_step(global_step)
        self._added_run_metadata[tag] = run_metadata

    def flush(self) -> None:
        """Nothing to flush."""

    def reopen(self) -> None:
        """Nothing to reopen."""

    def close(self) -> None:
        """Nothing to close."""


def _check_step(global_step: int | None) -> None:
    if global_step is not None and global_step < 0:
        raise ValueError(f"Invalid global_step {global_step}.")


def _assert_meta_graphs_equal(test_case: unittest.TestCase, expected: Any, actual: Any) -> None:
    """Meta graphs equal up to the order of the graph's nodes and of the collections."""
    test_case.assertEqual(expected.meta_info_def, actual.meta_info_def)
    test_case.assertEqual(dict(expected.collection_def), dict(actual.collection_def))
    test_case.assertEqual(
        {n.name: n for n in expected.graph_def.node}, {n.name: n for n in actual.graph_def.node}
    )
    test_case.assertEqual(expected.saver_def, actual.saver_def)
    test_case.assertEqual(dict(expected.signature_def), dict(actual.signature_def))
