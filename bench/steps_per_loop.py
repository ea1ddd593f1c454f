"""Where steps per loop pays: per-step overhead on a small model and on the MLP.

    python bench/steps_per_loop.py [--model small|mlp] [--steps N] [--rounds R] [--paired]

Variants, each training the same model in one run (interleaved rounds, per-round medians):
tfport with the default RunConfig (legacy logging on) at `iterations_per_loop` 1 and 20,
tfport 1 with `experimental_jit`, a bare `tf.compat.v1` MonitoredTrainingSession loop (one
step per `session.run`), a bare 20-step `tf.while_loop` per `session.run`, and Keras 3 `fit`
(`steps_per_execution=20`). The last line is one JSON object with steps/s and the ratios
(targets, small model: loop1_vs_bare_loop >= 0.9, loop20_vs_bare_while_20 >= 0.95).

With `--paired`, one JSON line each for loop 1 and loop 20: tfport and the bare loop
(or bare 20-step `while_loop`) train in one process, alternating every 100 steps, so
both see the same load on a shared machine (the sequential variants above do not).
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

SHAPES = {"small": (32, 32, 10, 32), "mlp": (784, 512, 10, 128)}  # in, hidden, out, batch


def _data(model: str):
    import tensorflow as tf

    n_in, _, n_out, batch = SHAPES[model]
    rng = np.random.RandomState(0)
    x = rng.normal(size=(batch * 8, n_in)).astype("float32")
    y = rng.randint(0, n_out, size=(batch * 8,)).astype("int64")
    return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(batch, drop_remainder=True)


def _network(model: str, features):
    import tensorflow as tf

    v1 = tf.compat.v1
    _, hidden, n_out, _ = SHAPES[model]
    h = v1.layers.dense(features, hidden, activation=tf.nn.relu)
    if model == "mlp":
        h = v1.layers.dense(h, hidden, activation=tf.nn.relu)
    return v1.layers.dense(h, n_out)


def _train_op(model: str, features, labels):
    import tensorflow as tf

    v1 = tf.compat.v1
    loss = v1.losses.sparse_softmax_cross_entropy(labels, _network(model, features))
    opt = v1.train.AdamOptimizer(1e-3)
    return loss, opt.minimize(loss, global_step=v1.train.get_global_step())


def tfport_run(model: str, steps: int, warmup: int, loop: int, jit: bool = False) -> float:
    import tensorflow as tf

    import tfport.estimator as tfe

    def model_fn(features, labels, mode):
        loss, train_op = _train_op(model, features, labels)
        return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op)

    record: dict = {}

    class Timer(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.runs = 0

        def after_run(self, run_context, run_values):
            self.runs += 1
            if self.runs == warmup:
                record["start"], record["at"] = time.perf_counter(), self.runs

        def end(self, session):
            record["end"], record["runs"] = time.perf_counter(), self.runs

    with tempfile.TemporaryDirectory() as tmp:
        config = tfe.RunConfig(
            model_dir=tmp, iterations_per_loop=loop, experimental_jit=jit,
            save_checkpoints_steps=10**9,
        )  # fmt: skip
        est = tfe.Estimator(model_fn, config=config)
        est.train(lambda: _data(model), max_steps=steps, hooks=[Timer()])
    return (record["runs"] - record["at"]) * loop / (record["end"] - record["start"])


def bare_run(model: str, steps: int, warmup: int, loop: int) -> float:
    import tensorflow as tf

    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.train.create_global_step()
        iterator = v1.data.make_one_shot_iterator(_data(model))
        if loop == 1:
            features, labels = iterator.get_next()
            _, op = _train_op(model, features, labels)
        else:

            def body(i):
                features, labels = iterator.get_next()
                _, train_op = _train_op(model, features, labels)
                with tf.control_dependencies([train_op]):
                    return i + 1

            op = v1.while_loop(lambda i: i < loop, body, [tf.constant(0)], parallel_iterations=1)
        with v1.train.MonitoredTrainingSession() as session:
            for _ in range(warmup):
                session.run(op)
            runs = (steps - warmup * loop) // loop
            start = time.perf_counter()
            for _ in range(runs):
                session.run(op)
            return runs * loop / (time.perf_counter() - start)


def _bare_session(model: str, loop: int):
    """A bare MonitoredTrainingSession (its own graph) and the op one run of it runs."""
    import tensorflow as tf

    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        v1.train.create_global_step()
        iterator = v1.data.make_one_shot_iterator(_data(model))
        if loop == 1:
            features, labels = iterator.get_next()
            _, op = _train_op(model, features, labels)
        else:

            def body(i):
                features, labels = iterator.get_next()
                _, train_op = _train_op(model, features, labels)
                with tf.control_dependencies([train_op]):
                    return i + 1

            op = v1.while_loop(lambda i: i < loop, body, [tf.constant(0)], parallel_iterations=1)
        session = v1.train.MonitoredTrainingSession()
    return session, op


def paired_run(model: str, steps: int, warmup: int, loop: int, chunk: int = 100) -> dict:
    """tfport and the bare loop in one process, alternating every `chunk` steps.

    A hook inside tfport's training runs `chunk` bare steps every `chunk` tfport steps,
    so both see the same machine load; each side's time counts whole session-run cycles
    (for tfport: its hooks, session.run and the loop around it).
    """
    import tensorflow as tf

    import tfport.estimator as tfe

    bare, bare_op = _bare_session(model, loop)
    for _ in range(warmup):
        bare.run(bare_op)
    spent = {"tfport": 0.0, "bare": 0.0}
    done = {"tfport": 0, "bare": 0}
    runs_per_chunk = max(1, chunk // loop)

    class Pair(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.runs, self.mark = 0, None

        def after_run(self, run_context, run_values):
            now = time.perf_counter()
            self.runs += 1
            if self.runs <= warmup:
                self.mark = now
                return
            spent["tfport"] += now - self.mark
            done["tfport"] += loop
            if self.runs % runs_per_chunk == 0:
                start = time.perf_counter()
                for _ in range(runs_per_chunk):
                    bare.run(bare_op)
                spent["bare"] += time.perf_counter() - start
                done["bare"] += runs_per_chunk * loop
            self.mark = time.perf_counter()

    def model_fn(features, labels, mode):
        loss, train_op = _train_op(model, features, labels)
        return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op)

    with tempfile.TemporaryDirectory() as tmp:
        config = tfe.RunConfig(
            model_dir=tmp, iterations_per_loop=loop, save_checkpoints_steps=10**9
        )
        est = tfe.Estimator(model_fn, config=config)
        est.train(lambda: _data(model), max_steps=steps + warmup * loop, hooks=[Pair()])
    bare.close()
    rates = {k: done[k] / spent[k] for k in spent}
    return {
        "benchmark": f"{model}_loop{loop}_paired",
        "steps": done["tfport"],
        "tfport_steps_per_s": round(rates["tfport"], 1),
        "bare_steps_per_s": round(rates["bare"], 1),
        "ratio": round(rates["tfport"] / rates["bare"], 3),
    }


def keras_run(model: str, steps: int, warmup: int) -> float:
    import keras

    n_in, hidden, n_out, _ = SHAPES[model]
    layers = [keras.Input((n_in,)), keras.layers.Dense(hidden, activation="relu")]
    if model == "mlp":
        layers.append(keras.layers.Dense(hidden, activation="relu"))
    net = keras.Sequential(layers + [keras.layers.Dense(n_out)])
    net.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        steps_per_execution=20,
    )
    data = _data(model)
    net.fit(data, steps_per_epoch=max(20, warmup), epochs=1, verbose=0)
    start = time.perf_counter()
    net.fit(data, steps_per_epoch=steps, epochs=1, verbose=0)
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=sorted(SHAPES), default="small")
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--paired", action="store_true", help="tfport loop 1 / 20 vs bare, alternating in-process"
    )
    args = parser.parse_args()
    if args.paired:
        for loop in (1, 20):
            print(json.dumps(paired_run(args.model, args.steps, max(1, args.warmup // loop), loop)))
        return
    m, n, w = args.model, args.steps, args.warmup
    variants = {
        "tfport_loop1": lambda: tfport_run(m, n, w, 1),
        "tfport_loop20": lambda: tfport_run(m, n, max(1, w // 20), 20),
        "tfport_loop1_jit": lambda: tfport_run(m, n, w, 1, jit=True),
        "bare_loop": lambda: bare_run(m, n, w, 1),
        "bare_while_20": lambda: bare_run(m, n, max(1, w // 20), 20),
        "keras3_fit_spe20": lambda: keras_run(m, n, w),
    }
    results: dict[str, list[float]] = {k: [] for k in variants}
    for _ in range(args.rounds):
        for name, run in variants.items():
            results[name].append(run())

    def ratio(a: str, b: str) -> float:
        return round(statistics.median(x / y for x, y in zip(results[a], results[b])), 3)

    out: dict = {"model": m, "steps": n, "rounds": args.rounds}
    out.update({f"{k}_steps_per_s": round(statistics.median(v), 1) for k, v in results.items()})
    out["loop1_vs_bare_loop"] = ratio("tfport_loop1", "bare_loop")
    out["loop20_vs_bare_while_20"] = ratio("tfport_loop20", "bare_while_20")
    out["loop20_vs_loop1"] = ratio("tfport_loop20", "tfport_loop1")
    out["jit_vs_no_jit"] = ratio("tfport_loop1_jit", "tfport_loop1")
    out["best_tfport_vs_keras3_fit"] = round(
        statistics.median(
            max(a, b) / k
            for a, b, k in zip(
                results["tfport_loop1"], results["tfport_loop20"], results["keras3_fit_spe20"]
            )
        ),
        3,
    )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
