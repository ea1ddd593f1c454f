"""Predict and evaluate throughput: tfport against the legacy TF 2.15 Estimator, same model.

    python bench/predict_evaluate.py [--examples 100000] [--repeats 3]
        one JSON line per benchmark (predict, evaluate) for the stack this Python runs:
        tfport (`tfport.install()`) where tfport is importable, else `tf.estimator`.
    python bench/predict_evaluate.py --compare /work/legacy-venv/bin/python [--rounds 2]
        runs this script under this Python and the legacy one, alternately, in fresh
        processes; one JSON line per benchmark with both examples/s and the ratio
        tfport / legacy (target >= 1.0).

The model: a 32-64-10 MLP (`tf.compat.v1.layers`), Adam, trained 20 steps into a fresh
model_dir; then `evaluate` (loss, accuracy) and `predict` (class ids and probabilities,
every example yielded singly) over `--examples` examples in batches of 500, best of
`--repeats`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def _estimator_module():
    """(tf, tf.estimator, stack name): tfport's when importable, else the legacy package."""
    try:
        import tfport
    except ImportError:
        import tensorflow as tf

        return tf, tf.estimator, "legacy"
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")  # as steps_per_loop.py
    tfport.install()
    import tensorflow as tf

    return tf, tf.estimator, "tfport"


def _model_fn(features, labels, mode):
    tf, estimator, _ = _estimator_module()
    v1 = tf.compat.v1
    hidden = v1.layers.dense(features["x"], 64, activation=tf.nn.relu)
    logits = v1.layers.dense(hidden, 10)
    classes = tf.argmax(logits, axis=1)
    if mode == estimator.ModeKeys.PREDICT:
        predictions = {"class_ids": classes, "probabilities": tf.nn.softmax(logits)}
        return estimator.EstimatorSpec(mode, predictions=predictions)
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == estimator.ModeKeys.EVAL:
        metrics = {"accuracy": v1.metrics.accuracy(labels, classes)}
        return estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    train_op = v1.train.AdamOptimizer(1e-3).minimize(loss, global_step=v1.train.get_global_step())
    return estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def _input_fn(examples: int, repeat: bool, labels: bool = True):
    def input_fn():
        import numpy as np
        import tensorflow as tf

        rng = np.random.RandomState(0)
        x = rng.normal(size=(examples, 32)).astype("float32")
        y = rng.randint(0, 10, size=(examples,)).astype("int64")
        data = tf.data.Dataset.from_tensor_slices(({"x": x}, y) if labels else {"x": x})
        return (data.repeat() if repeat else data).batch(500)

    return input_fn


def run(examples: int, repeats: int) -> list[dict]:
    """Trains 20 steps, then times evaluate and predict; best of `repeats` each."""
    tf, estimator, stack = _estimator_module()
    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)
    best = {"predict": float("inf"), "evaluate": float("inf")}
    with tempfile.TemporaryDirectory() as model_dir:
        est = estimator.Estimator(_model_fn, model_dir=model_dir)
        est.train(_input_fn(examples, repeat=True), steps=20)
        for _ in range(repeats):
            start = time.perf_counter()
            est.evaluate(_input_fn(examples, repeat=False))
            best["evaluate"] = min(best["evaluate"], time.perf_counter() - start)
            start = time.perf_counter()
            count = sum(1 for _ in est.predict(_input_fn(examples, False, labels=False)))
            best["predict"] = min(best["predict"], time.perf_counter() - start)
            assert count == examples, count
    return [
        {
            "benchmark": name,
            "stack": stack,
            "tf": tf.__version__,
            "examples": examples,
            "seconds": round(seconds, 3),
            "examples_per_s": round(examples / seconds, 1),
        }
        for name, seconds in best.items()
    ]


def compare(legacy_python: str, examples: int, repeats: int, rounds: int) -> list[dict]:
    """Runs both stacks alternately in fresh processes; best examples/s and the ratio."""
    rates: dict[tuple[str, str], float] = {}
    me = os.path.abspath(__file__)
    for _ in range(rounds):
        for python, extra in ((legacy_python, ["-I"]), (sys.executable, [])):
            cmd = [python, *extra, me, "--examples", str(examples), "--repeats", str(repeats)]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            for line in out.strip().splitlines():
                r = json.loads(line)
                key = (r["benchmark"], r["stack"])
                rates[key] = max(rates.get(key, 0.0), r["examples_per_s"])
    results = []
    for name in ("predict", "evaluate"):
        ours, legacy = rates[(name, "tfport")], rates[(name, "legacy")]
        results.append(
            {
                "benchmark": f"{name}_vs_legacy",
                "examples": examples,
                "tfport_examples_per_s": ours,
                "legacy_examples_per_s": legacy,
                "ratio": round(ours / legacy, 3),
            }
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare", metavar="LEGACY_PYTHON", help="the legacy venv's python")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.compare:
        results = compare(args.compare, args.examples, args.repeats, args.rounds)
    else:
        results = run(args.examples, args.repeats)
    for result in results:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
