"""The fuzz campaign: workers in subprocesses, so signals, hangs and memory blow-ups count.

Usage (the CI run is tests/fuzz/test_fuzz.py; this is the long local mode):

    python tests/fuzz/campaign.py --ckpt 20000 --graph 5000 --goldens legacy/goldens
    python tests/fuzz/campaign.py --ckpt 0 --graph 0 --shards 5000 --verify 500  # issue 32
    python tests/fuzz/campaign.py --ckpt 2000 --tf-anchor     # TensorFlow's reader too

Each worker runs cases in order and prints one JSON line per case; a worker that
dies (a signal) or stops printing (a hang) is recorded against its current case
and a new worker continues after it. The last line printed is the JSON summary.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CASE_SECONDS = 30
OK_CLASSES = ("refused", "equal", "changed")
MEMORY_BYTES = 6 << 30


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang()


def worker(kind: str, start: int, stop: int, goldens: str, workdir: str) -> None:
    """Runs cases [start, stop) of `kind`, printing {"i", "mutation", "class"} per case."""
    if kind != "verify":  # TensorFlow reserves more address space than it uses
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    signal.signal(signal.SIGALRM, _alarm)
    sys.path.insert(0, HERE)
    if kind in ("shards", "verify"):
        import fuzz_run as mod

        if kind == "shards":
            base = os.path.join(workdir, "bases", "shards", "model.ckpt-7")
            os.makedirs(os.path.dirname(base), exist_ok=True)
            mod.write_sharded(base, mod.shards_truth())

            def one(i: int):
                return mod.shards_case(workdir, base, i)
        else:
            folder = os.path.join(workdir, "bases", "verify")
            os.makedirs(folder, exist_ok=True)
            saved = mod.build_saved_models(folder)

            def one(i: int):
                return mod.verify_case(workdir, saved, i)
    elif kind == "ckpt":
        import fuzz_ckpt as mod

        bases = {}
        for base in mod.BASES:
            prefix = os.path.join(workdir, "bases", base, "model.ckpt-1")
            mod.write_base(base, prefix)
            bases[base] = prefix

        def one(i: int):
            base = mod.BASES[i % len(mod.BASES)]
            return mod.run_case(workdir, bases[base], base, i)
    else:
        import fuzz_graph as mod

        folder = os.path.join(goldens, "frozen_graph")
        bases = {
            "frozen.pb": os.path.join(folder, "frozen.pb"),
            "frozen.pbtxt": os.path.join(folder, "frozen.pbtxt"),
            "saved_model_v1": os.path.join(folder, "saved_model_v1"),
        }
        expected = mod.expected_reports(bases)

        def one(i: int):
            return mod.run_case(workdir, bases, expected, i)

    for i in range(start, stop):
        print(json.dumps({"start": i}), flush=True)
        signal.alarm(CASE_SECONDS)
        try:
            mutation, cls = one(i)
        except _Hang:
            mutation, cls = "?", "hang"
        except MemoryError:
            mutation, cls = "?", "memory"
        finally:
            signal.alarm(0)
        print(json.dumps({"i": i, "mutation": mutation, "class": cls}), flush=True)


def campaign(kind: str, count: int, goldens: str, seed: int = 0) -> dict:
    """Runs `count` cases of `kind` ("ckpt", "graph", "shards" or "verify") from `seed`;
    returns the summary."""
    classes: collections.Counter = collections.Counter()
    failures: list[dict] = []
    i, stop = seed, seed + count
    with tempfile.TemporaryDirectory(prefix="tfport-fuzz-") as workdir:
        while i < stop:
            cmd = [sys.executable, __file__, "worker", kind, str(i), str(stop), goldens, workdir]
            env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
            current = i
            for line in proc.stdout:
                record = json.loads(line)
                if "start" in record:
                    current = record["start"]
                    continue
                cls = record["class"].split(":")[0]
                classes[cls] += 1
                if cls not in OK_CLASSES:
                    failures.append(record)
                i = record["i"] + 1
            code = proc.wait(timeout=CASE_SECONDS * 2)
            if i <= current and i < stop:  # died inside case `current`
                cls = "signal" if code < 0 else "memory" if code else "signal"
                classes[cls] += 1
                failures.append({"i": current, "class": f"{cls}:{code}"})
                i = current + 1
    return {"kind": kind, "cases": count, "classes": dict(classes), "failures": failures[:20]}


def tf_anchor(count: int, seed: int = 0) -> dict:
    """TensorFlow's own reader on the same checkpoint cases (local only: it may abort)."""
    classes: collections.Counter = collections.Counter()
    i, stop = seed, seed + count
    with tempfile.TemporaryDirectory(prefix="tfport-anchor-") as workdir:
        while i < stop:
            cmd = [sys.executable, __file__, "tf-worker", str(i), str(stop), workdir]
            proc = subprocess.Popen(
                cmd, stdout=subprocess.PIPE, text=True,
                env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), stderr=subprocess.DEVNULL,
            )  # fmt: skip
            current = i
            for line in proc.stdout:
                record = json.loads(line)
                if "start" in record:
                    current = record["start"]
                    continue
                classes[record["class"]] += 1
                i = record["i"] + 1
            code = proc.wait()
            if i <= current and i < stop:
                classes[f"abort (signal {-code})" if code < 0 else f"died ({code})"] += 1
                i = current + 1
    return {"kind": "ckpt-tensorflow-reader", "cases": count, "classes": dict(classes)}


def tf_worker(start: int, stop: int, workdir: str) -> None:
    """Same mutants as `worker ckpt`, read by tf.train.load_checkpoint + get_tensor."""
    import random
    import shutil

    import numpy as np

    sys.path.insert(0, HERE)
    import fuzz_ckpt as mod
    import tensorflow as tf

    bases = {}
    for base in mod.BASES:
        bases[base] = os.path.join(workdir, "bases", base, "model.ckpt-1")
        mod.write_base(base, bases[base])
    for i in range(start, stop):
        print(json.dumps({"start": i}), flush=True)
        base = mod.BASES[i % len(mod.BASES)]
        case = os.path.join(workdir, f"case{i}")
        os.makedirs(case, exist_ok=True)
        prefix = os.path.join(case, "model.ckpt-1")
        for suffix in (".index", ".data-00000-of-00001"):
            shutil.copyfile(bases[base] + suffix, prefix + suffix)
        mod.mutate(prefix, random.Random(i))
        try:
            reader = tf.train.load_checkpoint(prefix)
            got = {n: reader.get_tensor(n) for n in reader.get_variable_to_shape_map()}
            want = {n: np.asarray(v) for n, v in mod.truth(base).items()}
            cls = "equal" if mod._same(got, want) else "changed"
        except Exception:  # noqa: BLE001
            cls = "refused"
        shutil.rmtree(case, ignore_errors=True)
        print(json.dumps({"i": i, "class": cls}), flush=True)


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "worker":
        kind, start, stop, goldens, workdir = sys.argv[2:7]
        worker(kind, int(start), int(stop), goldens, workdir)
        return
    if len(sys.argv) > 1 and sys.argv[1] == "tf-worker":
        tf_worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ckpt", type=int, default=20000)
    parser.add_argument("--graph", type=int, default=5000)
    parser.add_argument("--shards", type=int, default=5000)
    parser.add_argument("--verify", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--goldens", default=os.path.join(HERE, "..", "..", "legacy", "goldens"))
    parser.add_argument("--tf-anchor", action="store_true")
    args = parser.parse_args()
    results = []
    kinds = (("ckpt", args.ckpt), ("graph", args.graph), ("shards", args.shards),
             ("verify", args.verify))  # fmt: skip
    for kind, count in kinds:
        if count:
            t = time.time()
            results.append(campaign(kind, count, args.goldens, args.seed))
            results[-1]["seconds"] = round(time.time() - t, 1)
            print(json.dumps(results[-1]), flush=True)
    if args.tf_anchor:
        results.append(tf_anchor(args.ckpt, args.seed))
        print(json.dumps(results[-1]), flush=True)
    print(json.dumps({"results": results}))


if __name__ == "__main__":
    main()
