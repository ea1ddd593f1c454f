"""host_call's cost per training step: a TPUEstimator program with and without it.

    python bench/host_call.py [--steps N] [--rounds R] [--iterations 1,100]

One process trains the same small TPUEstimator program (a 32-32-10 MLP, batch 32) with a
`host_call` writing the loss and the learning rate every step through the TF2 summary
API (the reference models' training curves), and without it, alternating rounds so both
see the same load. Per-step time excludes each `train()` call's graph and session set-up.
Prints one JSON line: steps/s of each (median over rounds) per `iterations_per_loop`, and
`ratio` = time per step with host_call / without.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

import numpy as np  # noqa: E402


def _input_fn(params):
    import tensorflow as tf

    rng = np.random.RandomState(0)
    x = rng.normal(size=(256, 32)).astype("float32")
    y = rng.randint(0, 10, size=(256,)).astype("int32")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat()
    return ds.batch(params["batch_size"], drop_remainder=True)


def _model_fn(with_host_call: bool, model_dir: str):
    import tensorflow as tf

    v1 = tf.compat.v1

    def model_fn(features, labels, mode, params):
        hidden = v1.layers.dense(features, 32, activation=tf.nn.relu)
        logits = v1.layers.dense(hidden, 10)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        step = v1.train.get_global_step()
        lr = v1.train.exponential_decay(0.1, step, 100, 0.9)
        train_op = v1.train.GradientDescentOptimizer(lr).minimize(loss, step)
        host_call = None
        if with_host_call:

            def host_fn(gs, loss, lr):
                with tf.summary.create_file_writer(model_dir).as_default():
                    with tf.summary.record_if(True):
                        tf.summary.scalar("loss", loss[0], step=gs[0])
                        tf.summary.scalar("learning_rate", lr[0], step=gs[0])
                        return v1.summary.all_v2_summary_ops()

            tensors = [tf.reshape(step, [1]), tf.reshape(loss, [1]), tf.reshape(lr, [1])]
            host_call = (host_fn, tensors)
        return v1.estimator.tpu.TPUEstimatorSpec(
            mode, loss=loss, train_op=train_op, host_call=host_call
        )

    return model_fn


def train_seconds(with_host_call: bool, iterations: int, steps: int) -> float:
    """Seconds per step, without the per-call graph and session set-up: a `train()` call
    of `steps` steps and one of `2 * steps` (each building its graph and session) differ
    by `steps` steps' time (a fresh model_dir, after a warm-up call)."""
    import tensorflow as tf

    v1 = tf.compat.v1
    with tempfile.TemporaryDirectory() as model_dir:
        config = v1.estimator.tpu.RunConfig(
            model_dir=model_dir,
            save_checkpoints_steps=10**9,
            save_summary_steps=10**9,
            log_step_count_steps=None,
            tpu_config=v1.estimator.tpu.TPUConfig(iterations_per_loop=iterations),
        )
        est = v1.estimator.tpu.TPUEstimator(
            _model_fn(with_host_call, model_dir),
            config=config,
            use_tpu=False,
            train_batch_size=32,
        )
        est.train(_input_fn, steps=max(iterations, 20))
        seconds = []
        for n in (steps, 2 * steps):
            start = time.perf_counter()
            est.train(_input_fn, steps=n)
            seconds.append(time.perf_counter() - start)
        return max(seconds[1] - seconds[0], 1e-9) / steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", default="1,100")
    args = parser.parse_args()
    import tfport

    tfport.install()
    result: dict = {"bench": "host_call", "steps": args.steps, "rounds": args.rounds}
    for iterations in (int(x) for x in args.iterations.split(",")):
        times: dict = {True: [], False: []}
        for _ in range(args.rounds):
            for with_host_call in (False, True):
                times[with_host_call].append(train_seconds(with_host_call, iterations, args.steps))
        with_hc, without = statistics.median(times[True]), statistics.median(times[False])
        result[f"loop{iterations}"] = {
            "steps_per_s_with_host_call": round(1 / with_hc, 1),
            "steps_per_s_without": round(1 / without, 1),
            "ratio": round(with_hc / without, 3),
        }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
