"""The benchmark model of DESIGN.md: MLP 784-512-512-10, batch 128, Adam, synthetic data."""

from __future__ import annotations

import os
import time

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402

BATCH = 128
RNG = np.random.RandomState(0)
X = RNG.normal(size=(BATCH * 8, 784)).astype("float32")
Y = RNG.randint(0, 10, size=(BATCH * 8,)).astype("int64")


def dataset():
    import tensorflow as tf

    return tf.data.Dataset.from_tensor_slices((X, Y)).repeat().batch(BATCH, drop_remainder=True)


def model_fn(features, labels, mode):
    import tensorflow as tf

    import tfport.estimator as tfe

    v1 = tf.compat.v1
    h = v1.layers.dense(features, 512, activation=tf.nn.relu)
    h = v1.layers.dense(h, 512, activation=tf.nn.relu)
    logits = v1.layers.dense(h, 10)
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = v1.train.AdamOptimizer(1e-3).minimize(loss, global_step=v1.train.get_global_step())
    return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op)


def timing_hook(warmup: int, record: dict):
    """A hook recording wall time between step `warmup` and the last step."""
    import tensorflow as tf

    class _Timer(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.runs = 0

        def after_run(self, run_context, run_values):
            self.runs += 1
            if self.runs == warmup:
                record["start"] = time.perf_counter()
                record["start_runs"] = self.runs

        def end(self, session):
            record["end"] = time.perf_counter()
            record["runs"] = self.runs - record["start_runs"]

    return _Timer()


def tfport_steps_per_s(
    model_dir: str, steps: int, warmup: int, iterations: int = 1, strategy=None
) -> float:
    """Steps/s of `Estimator.train` up to global step `steps`, after `warmup` session runs."""
    import tfport.estimator as tfe

    record: dict = {}
    config = tfe.RunConfig(
        model_dir=model_dir,
        save_checkpoints_steps=10**9,
        iterations_per_loop=iterations,
        train_distribute=strategy,
    )
    est = tfe.Estimator(model_fn, config=config)
    est.train(dataset, max_steps=steps, hooks=[timing_hook(warmup, record)])
    return record["runs"] * iterations / (record["end"] - record["start"])
