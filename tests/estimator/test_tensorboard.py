"""TensorBoard out of the box: the project requires it (TF 2.21 no longer installs it, and
`tf.summary.scalar` raises TBNotInstalledError without it), and a model_fn calling the TF2
summary API writes its events (also in the range jobs' fresh venvs, made from the project
without extras: the Makefile's RANGE_TESTS holds this file).

Measured on TF 2.15 + tensorflow-estimator 2.15 (this SCRIPT): the TF2 summary calls in a
model_fn wrote nothing there (the Estimator set no default TF2 writer); the events held
`loss` and the v1 summaries at steps 1, 2, 3. tfport keeps those and, beyond legacy, writes
the TF2 ones (`tfport.estimator._engine.building.model_summaries`).
"""

from __future__ import annotations

import contextlib
import importlib.metadata as md
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1])
        pred = tf.matmul(features["x"], w)
        loss = tf.reduce_mean(tf.square(pred - labels))
        tf.summary.scalar("my_loss", loss)
        tf.summary.histogram("my_weights", w)
        tf.summary.image("my_image", tf.reshape(features["x"][:1], [1, 1, 2, 1]))
        tf.compat.v1.summary.scalar("v1_loss", loss)
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    x = np.random.RandomState(0).rand(8, 2).astype("float32")
    y = x.sum(1, keepdims=True)
    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": x}, y)).repeat()
    config = tf.estimator.RunConfig(save_summary_steps=1)
    est = tf.estimator.Estimator(model_fn, model_dir=sys.argv[1], config=config)
    est.train(input_fn, steps=3)
    tags = {}
    for path in tf.io.gfile.glob(sys.argv[1] + "/events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                v = value.simple_value
                if value.metadata.plugin_data.plugin_name == "scalars":
                    v = float(tf.make_ndarray(value.tensor))
                tags.setdefault(value.tag, []).append([event.step, v])
    print(json.dumps(tags))
    """
)


def test_the_project_requires_tensorboard_without_an_extra():
    required = [r for r in md.requires("tfport") or [] if "extra ==" not in r]
    names = {re.split(r"[<>=\\[ ;(]", r)[0].lower() for r in required}
    assert "tensorboard" in names
    md.version("tensorboard")  # installed with the project


def _events(proc):
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _run(tmp_path, script, *flags):
    (tmp_path / "train.py").write_text(script)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", *flags, "train.py", str(tmp_path / "model")]
    return subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)


@pytest.mark.slow
def test_a_model_fn_with_tf2_summaries_writes_its_events(tmp_path):
    proc = _run(tmp_path, SCRIPT)
    events = _events(proc)
    assert "Object was never used" not in proc.stderr  # tf.summary.image's checks are run
    steps = {tag: sorted(s for s, _ in values) for tag, values in events.items()}
    assert steps["loss"] == steps["v1_loss"] == [1, 2, 3], steps  # as legacy wrote them
    # the TF2 summaries, each run's at the step before its update
    assert steps["my_loss"] == steps["my_weights"] == steps["my_image"] == [0, 1, 2], steps
    # my_loss of the run from step k is the Estimator's `loss` of that run (tagged k + 1)
    loss = dict(events["loss"])
    for step, value in events["my_loss"]:
        assert value == pytest.approx(loss[step + 1], rel=1e-6)


MIRRORED = textwrap.dedent(
    """
    import json, sys
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        tf.compat.v1.cond(loss > 0, lambda: tf.summary.scalar("in_cond", loss), lambda: False)
        step = tf.compat.v1.train.get_or_create_global_step()
        tf.summary.scalar("explicit_step", loss, step=step)
        tf.summary.scalar("implicit_step", loss)
        with tf.summary.create_file_writer(sys.argv[1] + "/own").as_default():
            tf.summary.scalar("own_writer", loss, step=step)  # the model_fn's: not ours
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    x = np.random.RandomState(0).rand(8, 2).astype("float32")
    def input_fn():
        return tf.data.Dataset.from_tensors(({"x": x}, x.sum(1, keepdims=True))).repeat()
    config = tf.estimator.RunConfig(save_summary_steps=2)
    est = tf.estimator.Estimator(model_fn, model_dir=sys.argv[1], config=config)
    est.train(input_fn, steps=5)
    tags = {}
    for path in tf.io.gfile.glob(sys.argv[1] + "/events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                tags.setdefault(value.tag, []).append(event.step)
    print(json.dumps(tags))
    """
)


@pytest.mark.slow
def test_tf2_summaries_on_mirrored_2_every_save_summary_steps(tmp_path):
    proc = _run(tmp_path, MIRRORED, "--strategy", "mirrored:2")
    events = _events(proc)
    steps = {tag: sorted(values) for tag, values in events.items()}
    # one replica writes (not two), at the steps the summary saver also saved
    assert steps["implicit_step"] == steps["explicit_step"] == [0, 2, 4], steps
    assert steps["loss"] == [1, 3, 5], steps
    assert "in_cond" not in steps and "own_writer" not in steps
    assert "tf.summary call 'in_cond' inside tf.cond/tf.while_loop" in proc.stderr


def _graph_ops(record):
    """Ops of a seeded graph where a TF2 summary call precedes a random op."""
    import tensorflow as tf

    from tfport.estimator._engine.building.model_summaries import Recorder

    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.set_random_seed(7)
        loss = tf.constant(2.0)
        recorder = Recorder(graph)
        with recorder.recording() if record else contextlib.nullcontext():
            tf.summary.scalar("loss_2", loss)
            tf.summary.histogram("h", tf.ones([3]))
        tf.random.uniform([2], name="draw")
    ops = [(op.name, op.type) for op in graph.get_operations()]
    seeds = graph.get_operation_by_name("draw/RandomUniform").get_attr("seed2")
    return ops, seeds, recorder.calls


def test_recording_leaves_the_graph_and_op_seeds_as_tf_makes_them_without_a_writer():
    plain_ops, plain_seed, _ = _graph_ops(record=False)
    ops, seed, calls = _graph_ops(record=True)
    assert ops == plain_ops and seed == plain_seed
    assert [c.tag for c in calls] == ["loss_2", "h"]
