"""Scaling: 1 replica vs mirrored:2 logical CPU replicas, iterations_per_loop 1 vs 20.

    python bench/scaling.py [--steps N]

Trains the MLP of DESIGN.md through tfport.estimator four ways in one run; the last
line is one JSON object with steps/s and the ratios (target on CPU:
loop20_vs_loop1 >= 1.05). Mirrored on logical CPU devices shares the same cores, so
its ratio shows overhead, not speed-up.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile

import _mlp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=500)
    parser.add_argument("--warmup", type=int, default=100)
    parser.add_argument(
        "--rounds", type=int, default=3, help="interleaved rounds; figures are per-round medians"
    )
    args = parser.parse_args()
    from tfport.distribute import resolve

    mirrored = resolve("mirrored:2")  # splits the CPU before the runtime starts
    variants = (
        ("one_replica", {}),
        ("mirrored_2", {"strategy": mirrored}),
        ("loop_1", {"iterations": 1}),
        ("loop_20", {"iterations": 20}),
    )
    results: dict[str, list[float]] = {name: [] for name, _ in variants}
    for _ in range(args.rounds):  # interleaved, so machine noise hits every variant alike
        for name, kwargs in variants:
            warmup = max(1, args.warmup // kwargs.get("iterations", 1))
            with tempfile.TemporaryDirectory() as tmp:
                results[name].append(_mlp.tfport_steps_per_s(tmp, args.steps, warmup, **kwargs))

    def ratio(a: str, b: str) -> float:
        return round(statistics.median(x / y for x, y in zip(results[a], results[b])), 3)

    out = {f"{k}_steps_per_s": round(statistics.median(v), 1) for k, v in results.items()}
    out["mirrored_2_vs_one_replica"] = ratio("mirrored_2", "one_replica")
    out["loop20_vs_loop1"] = ratio("loop_20", "loop_1")
    out["rounds"] = args.rounds
    print(json.dumps(out))


if __name__ == "__main__":
    main()
