"""Cached session runs (`sessions.cache_runs`) change nothing a user sees.

Training (one step per run: with steps per loop the runs feed the loop length and are
never cached), evaluation and prediction run once with the raw session's `run` wrapped
and once without: the INFO lines, the loss a hook sees at each step, the checkpoints,
the summary tags, the metrics and the predictions must be the same. Times, rates and
the global step a hook fetches in the training run itself are left out: that read races
the step's own increment in TensorFlow, cached or not (`global_step/sec` lines, the
`step = N` of the logging hook, the steps summaries are written at can move by one, and
two equal reads make StepCounterHook warn that the global step did not increase).
"""

from __future__ import annotations

import logging
import os
import re

import numpy as np
import pytest

from tfport._common import tfenv
from tfport.estimator._engine.running import sessions

_VOLATILE = re.compile(
    r"\d+\.\d+ ?sec|\d+\.\d+s\b|global_step/sec: [\d.]+|\d{4}-\d\d-\d\dT?[-\d:]+|/\S+|0x[0-9a-f]+"
    r"|step = \d+"
)


def _run(tmp_path, name):
    tf = tfenv.import_tf()
    import tfport.estimator as tfe

    v1 = tf.compat.v1
    seen = []

    class Record(v1.train.SessionRunHook):
        def before_run(self, run_context):
            return v1.train.SessionRunArgs({"loss": v1.get_collection(v1.GraphKeys.LOSSES)[0]})

        def after_run(self, run_context, run_values):
            seen.append(float(run_values.results["loss"]))

    def model_fn(features, labels, mode):
        logits = v1.layers.dense(features["x"], 3, name="logits")
        if mode == tfe.ModeKeys.PREDICT:
            return tfe.EstimatorSpec(mode, predictions={"logits": logits})
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        opt = v1.train.GradientDescentOptimizer(0.1)
        train_op = opt.minimize(loss, global_step=v1.train.get_global_step())
        metrics = {"accuracy": v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
        return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    rng = np.random.RandomState(0)
    x = rng.normal(size=(40, 4)).astype("float32")
    y = rng.randint(0, 3, size=(40,)).astype("int64")

    def input_fn(repeat=True):
        data = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return (data.repeat() if repeat else data).batch(8)

    model_dir = str(tmp_path / name)
    config = tfe.RunConfig(
        model_dir=model_dir,
        save_checkpoints_steps=10,
        save_summary_steps=5,
        log_step_count_steps=5,
        tf_random_seed=1,
    )
    est = tfe.Estimator(model_fn, config=config)
    est.train(input_fn, max_steps=20, hooks=[Record()])
    metrics = est.evaluate(lambda: input_fn(False))
    predictions = [p["logits"].tolist() for p in est.predict(lambda: input_fn(False))]
    files = sorted(f for f in os.listdir(model_dir) if f.startswith("model.ckpt"))
    events = []
    for path in tf.io.gfile.glob(os.path.join(model_dir, "events.*")):
        for event in v1.train.summary_iterator(path):
            events.extend(v.tag for v in event.summary.value)
    return seen, {k: float(v) for k, v in metrics.items()}, predictions, files, sorted(set(events))


def test_cached_runs_match_plain_runs(tmp_path, monkeypatch, caplog):
    tf = tfenv.import_tf()
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    outputs, lines = [], []
    try:
        for name, cache in (("plain", lambda session: None), ("cached", sessions.cache_runs)):
            monkeypatch.setattr(sessions, "cache_runs", cache)
            caplog.clear()
            with caplog.at_level(logging.INFO, logger="tensorflow"):
                outputs.append(_run(tmp_path, name))
            messages = [r.getMessage() for r in caplog.records]
            # TF's deprecation notices show once per process, whichever run comes first;
            # "global step has not been increased" follows two equal racy reads.
            racy = ("deprecated", "has not been increased")
            lines.append([_VOLATILE.sub("#", m) for m in messages if not any(r in m for r in racy)])
    finally:
        tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    assert outputs[0] == outputs[1]
    assert lines[0] == lines[1]
    assert any("loss = " in line for line in lines[1])


def test_only_plain_fetches_are_cached():
    tf = tfenv.import_tf()
    v1 = tf.compat.v1
    with tf.Graph().as_default() as graph:
        a = tf.constant(2.0)
        b = v1.placeholder_with_default(3.0, [])
        total = a + b
        check = tf.debugging.assert_equal(b, 0.0, message="bad")
        graph.finalize()
        with v1.Session() as session:
            cache = sessions._RunCache(session)
            assert cache.run({"t": [total, "Const:0"]}) == {"t": [5.0, 2.0]}
            assert cache.run({"t": [total, "Const:0"]}) == {"t": [5.0, 2.0]}
            assert len(cache._plans) == 1
            assert cache.run(total, feed_dict={b: 1.0}) == 3.0  # feeds: Session.run
            assert len(cache._plans) == 1
            with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
                cache.run(check)
