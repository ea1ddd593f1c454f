"""Legacy `hooks.fake_summary_writer.FakeSummaryWriter` against the golden
`private_fake_summary_writer` (`legacy/scripts/private_test_utils.py`).

A hook test written the legacy way: `FakeSummaryWriter.install()`, a MonitoredSession with
`SummarySaverHook` and `StepCounterHook`, an Estimator trained and evaluated (tfport's own
hooks and evaluation summaries), then `assert_summaries` with what the same script
recorded on TF 2.15: the summaries per step, graphs, meta graphs, session logs.
"""

from __future__ import annotations

import json
import unittest

import pytest
from tests.legacy import compare

CASE = "private_fake_summary_writer"


class _Case(unittest.TestCase):
    def runTest(self) -> None:  # noqa: N802 - unittest's name
        """Only its assertions are used."""


@pytest.fixture(scope="module")
def tf():
    import tfport

    tfport.install()
    import tensorflow

    return tensorflow


@pytest.fixture(scope="module")
def fake(tf):
    from tensorflow_estimator.python.estimator.hooks import fake_summary_writer

    return fake_summary_writer.FakeSummaryWriter


@pytest.fixture(scope="module")
def writers(goldens, fake, tmp_path_factory):
    """(the script's writers under tfport, the golden): install, run, uninstall."""
    script = compare.load_script(goldens.parent, CASE)
    work = tmp_path_factory.mktemp("fake")
    fake.install()
    try:
        got = {"session": script.monitored_session_writer(str(work / "session"))}
        got["train"], got["eval"] = script.estimator_writers(str(work / "estimator"))
    finally:
        fake.uninstall()
    return got, json.loads((goldens / CASE / "expected.json").read_text())


@pytest.mark.parametrize("name", ["session", "train", "eval"])
def test_hooks_and_estimator_write_the_legacy_summaries_into_the_fake(name, writers, fake):
    writer, want = writers[0][name], writers[1][name]
    assert isinstance(writer, fake)
    expected = {int(step): values for step, values in want["summaries"].items()}
    writer.assert_summaries(_Case(), expected_summaries=expected)
    assert sorted(writer.summaries) == sorted(expected)
    assert len(writer._added_graphs) == want["graphs"]
    assert len(writer._added_meta_graphs) == want["meta_graphs"]
    logs = [
        [int(log.status), log.checkpoint_path.rpartition("/")[2]]
        for log in writer._added_session_logs
    ]
    assert logs == want["session_logs"]


def test_assert_summaries_fails_on_other_values(writers):
    writer = writers[0]["session"]
    step = min(writer.summaries)
    wrong = {step: {**writer.simple_values(step), "my_summary": -1.0}}
    with pytest.raises(AssertionError):
        writer.assert_summaries(_Case(), expected_summaries=wrong)
    with pytest.raises(AssertionError, match="Missing step"):
        writer.assert_summaries(_Case(), expected_summaries={10**6: {}})


def test_uninstall_restores_the_real_writer(tf, fake, tmp_path):
    cache = tf.compat.v1.summary.FileWriterCache
    fake.install()
    with pytest.raises(ValueError, match="already installed"):
        fake.install()
    with tf.Graph().as_default():
        assert isinstance(cache.get(str(tmp_path / "a")), fake)
    fake.uninstall()
    with pytest.raises(ValueError, match="not installed"):
        fake.uninstall()
    with tf.Graph().as_default():
        real = cache.get(str(tmp_path / "a"))
    assert isinstance(real, tf.compat.v1.summary.FileWriter)
    cache.clear()


def test_recording_methods(fake, tf):
    writer = fake("logdir", graph="g")
    summary = tf.compat.v1.Summary(value=[tf.compat.v1.Summary.Value(tag="t", simple_value=2.5)])
    writer.add_summary(summary.SerializeToString(), 7)
    writer.add_session_log(tf.compat.v1.SessionLog(status=1), 7)
    writer.add_graph("graph")
    writer.add_meta_graph(tf.compat.v1.MetaGraphDef())
    writer.add_run_metadata(tf.compat.v1.RunMetadata(), "tag", 7)
    writer.assert_summaries(
        _Case(),
        expected_logdir="logdir",
        expected_graph="g",
        expected_summaries={7: {"t": 2.5}},
        expected_added_graphs=["graph"],
        expected_added_meta_graphs=[tf.compat.v1.MetaGraphDef()],
        expected_session_logs=[tf.compat.v1.SessionLog(status=1)],
    )
    with pytest.raises(ValueError, match="Invalid global_step"):
        writer.add_graph("graph", global_step=-1)
    with pytest.raises(ValueError, match="Unexpected graph_def"):
        writer.add_graph("graph", graph_def="x")
