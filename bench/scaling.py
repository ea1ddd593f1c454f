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
import tempfile

import _mlp


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=100)
    args = parser.parse_args()
    from tfport._src.engine.strategies import resolve

    mirrored = resolve("mirrored:2")  # splits the CPU before the runtime starts
    results = {}
    for name, kwargs in (("one_replica", {}), ("mirrored_2", {"strategy": mirrored}),
                         ("loop_1", {"iterations": 1}), ("loop_20", {"iterations": 20})):
        iterations = kwargs.get("iterations", 1)
        warmup = max(1, args.warmup // iterations)
        with tempfile.TemporaryDirectory() as tmp:
            results[name] = _mlp.tfport_steps_per_s(tmp, args.steps, warmup, **kwargs)
    out = {f"{k}_steps_per_s": round(v, 1) for k, v in results.items()}
    out["mirrored_2_vs_one_replica"] = round(results["mirrored_2"] / results["one_replica"], 3)
    out["loop20_vs_loop1"] = round(results["loop_20"] / results["loop_1"], 3)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
