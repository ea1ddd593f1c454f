"""TensorBoard out of the box: the project requires it (TF 2.21 no longer installs it, and
`tf.summary.scalar` raises TBNotInstalledError without it), so a model_fn calling the TF2
summary API trains as on TF <= 2.15, and its v1 summaries are written.

Measured on TF 2.15 + tensorflow-estimator 2.15 (this script): the TF2 summary calls in a
model_fn return without writing (the Estimator sets no default TF2 writer), the events hold
`loss` and the v1 summaries at every step; tfport does the same.
"""

from __future__ import annotations

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
                tags.setdefault(value.tag, []).append(event.step)
    print(json.dumps(tags))
    """
)


def test_the_project_requires_tensorboard_without_an_extra():
    required = [r for r in md.requires("tfport") or [] if "extra ==" not in r]
    names = {re.split(r"[<>=\\[ ;(]", r)[0].lower() for r in required}
    assert "tensorboard" in names
    md.version("tensorboard")  # installed with the project


@pytest.mark.slow
def test_a_model_fn_with_tf2_summaries_writes_its_events(tmp_path):
    (tmp_path / "train.py").write_text(SCRIPT)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", "train.py", str(tmp_path / "model")]
    proc = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    tags = json.loads(proc.stdout.strip().splitlines()[-1])
    assert sorted(tags["loss"]) == sorted(tags["v1_loss"]) == [1, 2, 3], tags
