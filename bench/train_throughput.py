"""Training throughput: tfport.estimator vs a bare tf.compat.v1 loop vs Keras 3 fit.

    python bench/train_throughput.py [--steps N]

All three train the MLP of DESIGN.md in one run, one after the other, and the last
line printed is one JSON object with the steps/s and the ratios (targets:
ratio_vs_bare_loop >= 0.9, ratio_vs_keras_fit >= 1.0). Timings skip a warm-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time

import _mlp


def bare_loop_steps_per_s(steps: int, warmup: int) -> float:
    import tensorflow as tf

    v1 = tf.compat.v1
    with tf.Graph().as_default():
        v1.train.create_global_step()
        features, labels = v1.data.make_one_shot_iterator(_mlp.dataset()).get_next()
        spec = _mlp.model_fn(features, labels, "train")
        with v1.train.MonitoredTrainingSession() as session:
            for _ in range(warmup):
                session.run(spec.train_op)
            start = time.perf_counter()
            for _ in range(steps - warmup):
                session.run(spec.train_op)
            return (steps - warmup) / (time.perf_counter() - start)


def keras_fit_steps_per_s(steps: int, warmup: int) -> float:
    import keras

    model = keras.Sequential(
        [
            keras.Input((784,)),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(512, activation="relu"),
            keras.layers.Dense(10),
        ]
    )
    model.compile(
        optimizer=keras.optimizers.Adam(1e-3),
        steps_per_execution=20,
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    )
    data = _mlp.dataset()
    model.fit(data, steps_per_epoch=warmup, epochs=1, verbose=0)
    start = time.perf_counter()
    model.fit(data, steps_per_epoch=steps - warmup, epochs=1, verbose=0)
    return (steps - warmup) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds; figures are per-round medians"
    )
    args = parser.parse_args()
    rounds: dict[str, list[float]] = {"tfport": [], "bare": [], "keras": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):  # interleaved, so machine noise hits all three alike
            steps = args.steps * (r + 1)  # the same model_dir: each round trains further
            rounds["tfport"].append(_mlp.tfport_steps_per_s(tmp, steps, args.warmup))
            rounds["bare"].append(bare_loop_steps_per_s(args.steps, args.warmup))
            rounds["keras"].append(keras_fit_steps_per_s(args.steps, args.warmup))
    med = {k: statistics.median(v) for k, v in rounds.items()}
    vs_bare = statistics.median(t / b for t, b in zip(rounds["tfport"], rounds["bare"]))
    vs_keras = statistics.median(t / k for t, k in zip(rounds["tfport"], rounds["keras"]))
    print(
        json.dumps(
            {
                "steps": args.steps,
                "rounds": args.rounds,
                "tfport_steps_per_s": round(med["tfport"], 1),
                "bare_loop_steps_per_s": round(med["bare"], 1),
                "keras_fit_steps_per_s": round(med["keras"], 1),
                "ratio_vs_bare_loop": round(vs_bare, 3),
                "ratio_vs_keras_fit": round(vs_keras, 3),
            }
        )
    )


if __name__ == "__main__":
    main()
