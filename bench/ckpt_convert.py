"""Benchmark: convert the Adam slots of a synthetic >= 2 GB TF1 checkpoint.

Writes the checkpoint in a temporary folder (removed at the end), then measures,
in the same run: a plain copy of the data shard, `tfport ckpt convert --slots
v1-to-keras` in a subprocess (time and peak RSS), and `tfport ckpt inspect`.
The last line printed is JSON:

    throughput_vs_copy            conversion bytes/s / copy bytes/s (target >= 0.7)
    peak_rss_over_largest_tensor  convert's peak RSS / largest tensor (target <= 1.5 + 200 MB)
    inspect_seconds               wall time of `tfport ckpt inspect --json`

With `--scaling`, it measures instead how the cost grows with the tensor count: a
v1 Adam checkpoint of N tiny variables (3N tensors) and one of 10N, each through
`convert`, `inspect`, `diff` (in-process, best of 2), printing one JSON line with the
time ratios (target: <= 12 for 10x the tensors).

Usage: python bench/ckpt_convert.py [--gb 2.0] | --scaling [--tensors 3000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

from tfport.checkpoint import CheckpointWriter
from tfport.checkpoint._slots import beta_power

CHUNK = 16 << 20


def _random_chunks(nbytes: int, rng: np.random.Generator):
    left = nbytes
    while left:
        n = min(CHUNK, left)
        yield rng.standard_normal(n // 4, dtype=np.float32).tobytes()
        left -= n


def write_synthetic(prefix: str, total_gb: float) -> int:
    """Two Adam-trained layers (variable + 2 slots each); returns the largest tensor size."""
    rng = np.random.default_rng(0)
    per_tensor = int(total_gb * (1 << 30) / 6) // (4 * 1024) * (4 * 1024)
    rows = per_tensor // (4 * 1024)
    with CheckpointWriter(prefix) as w:
        w.add("global_step", np.int64(1000))
        w.add("beta1_power", beta_power(np.float32(0.9), 1000))
        w.add("beta2_power", beta_power(np.float32(0.999), 1000))
        for layer in ("dense", "dense_1"):
            for suffix in ("", "/Adam", "/Adam_1"):
                name = f"{layer}/kernel{suffix}"
                w.add_stream(name, "float32", (rows, 1024), _random_chunks(per_tensor, rng))
    return per_tensor


def _copy_seconds(src: str, dst: str) -> float:
    """A plain copy (read, write, fsync) of `src`, like `cp` followed by `sync`."""
    os.sync()
    start = time.perf_counter()
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        while chunk := fin.read(CHUNK):
            fout.write(chunk)
        fout.flush()
        os.fsync(fout.fileno())
    seconds = time.perf_counter() - start
    os.unlink(dst)
    os.sync()
    return seconds


def _timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def write_many(prefix: str, variables: int) -> None:
    """A v1 Adam checkpoint of `variables` small variables (3 tensors each)."""
    rng = np.random.default_rng(0)
    with CheckpointWriter(prefix) as w:
        w.add("global_step", np.int64(10))
        w.add("beta1_power", beta_power(np.float32(0.9), 10))
        w.add("beta2_power", beta_power(np.float32(0.999), 10))
        for i in range(variables):
            value = rng.standard_normal(4).astype(np.float32)
            for suffix in ("", "/Adam", "/Adam_1"):
                w.add(f"layer_{i}/kernel{suffix}", value)


def _best(fn, repeat: int = 2) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def scaling(tensors: int) -> dict:
    """Seconds of convert/inspect/diff at `tensors` and 10x `tensors`, and their ratios."""
    from tfport.checkpoint import convert, diff_checkpoints, inspect_checkpoint

    folder = tempfile.mkdtemp(prefix="tfport-bench-")
    result: dict = {"benchmark": "ckpt_scaling", "tensors": tensors}
    try:
        for label, count in (("1x", tensors), ("10x", tensors * 10)):
            src = os.path.join(folder, label, "model.ckpt-10")
            write_many(src, count // 3)
            out = os.path.join(folder, label + "-out")
            result[f"convert_{label}_s"] = round(
                _best(lambda s=src, o=out: convert(s, o, slots="v1-to-keras", overwrite=True)), 3
            )
            result[f"inspect_{label}_s"] = round(_best(lambda s=src: inspect_checkpoint(s)), 3)
            result[f"diff_{label}_s"] = round(_best(lambda s=src: diff_checkpoints(s, s)), 3)
        for op in ("convert", "inspect", "diff"):
            result[f"{op}_ratio"] = round(result[f"{op}_10x_s"] / result[f"{op}_1x_s"], 2)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--scaling", action="store_true", help="10x the tensors: time ratios")
    parser.add_argument("--tensors", type=int, default=3000)
    args = parser.parse_args()
    if args.scaling:
        print(json.dumps(scaling(args.tensors)))
        return
    folder = tempfile.mkdtemp(prefix="tfport-bench-")
    try:
        src = os.path.join(folder, "src", "model.ckpt-1000")
        largest = write_synthetic(src, args.gb)
        data = src + ".data-00000-of-00001"
        nbytes = os.path.getsize(data)
        copy_s = _copy_seconds(data, os.path.join(folder, "copy.data"))
        tfport = [sys.executable, "-m", "tfport", "ckpt"]
        out = os.path.join(folder, "out")
        convert_s = _timed(tfport + ["convert", src, out, "--slots", "v1-to-keras"])
        peak_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        inspect_s = _timed(tfport + ["inspect", src, "--json"])
        # The fastest of two copies (before and after): a conservative baseline.
        copy_s = min(copy_s, _copy_seconds(data, os.path.join(folder, "copy.data")))
        result = {
            "checkpoint_bytes": nbytes,
            "largest_tensor_bytes": largest,
            "copy_seconds": round(copy_s, 3),
            "convert_seconds": round(convert_s, 3),
            "throughput_vs_copy": round((nbytes / convert_s) / (nbytes / copy_s), 3),
            "peak_rss_bytes": peak_rss,
            "peak_rss_over_largest_tensor": round(peak_rss / largest, 3),
            "inspect_seconds": round(inspect_s, 3),
        }
        print(json.dumps(result))
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
