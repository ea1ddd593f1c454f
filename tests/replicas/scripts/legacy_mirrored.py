"""The legacy stack's own behaviour on the replicas scripts (a tool, not run by CI).

    LEGACY_PYTHON=/work/legacy-venv/bin/python python legacy_mirrored.py OUT_DIR [KIND ...]

For each KIND of `replicas.py` it trains on one device with the legacy stack (TF 2.15 +
tensorflow-estimator), then trains again from a copy of that step-0 checkpoint with
`RunConfig(train_distribute=tf.distribute.MirroredStrategy(...))` over 2 logical CPU
devices, each run in its own process under a timeout, and prints one line per kind:
the error line, a hang, or the largest difference from one device.

    legacy_mirrored.py --mirrored KIND,MODEL_DIR,OUT_JSON

is the inside of one mirrored run (the legacy process).
"""

from __future__ import annotations

import json
import os
import pathlib
import runpy
import shutil
import subprocess
import sys

SCRIPT = pathlib.Path(__file__).with_name("replicas.py")
KINDS = [
    "linear_ftrl",
    "dnn_embedding",
    "keras_bn",
    "keras_loss",
    "bert_plain",
    "partial",
    "bert_cross",
    "adam",
]
TIMEOUT = 240


def mirrored(jobs: list[str]) -> None:
    """Runs replicas.py with every RunConfig distributing training over 2 CPU devices."""
    import tensorflow as tf

    cpu = tf.config.list_physical_devices("CPU")[0]
    tf.config.set_logical_device_configuration(
        cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
    )
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    original = tf.estimator.RunConfig.__init__

    def init(self, *args, **kwargs):
        kwargs.setdefault("train_distribute", strategy)
        original(self, *args, **kwargs)

    tf.estimator.RunConfig.__init__ = init
    sys.argv = [str(SCRIPT), *jobs]
    runpy.run_path(str(SCRIPT), run_name="__main__")


def _run(args: list[str], log: pathlib.Path) -> str | None:
    """None on success, else 'hangs' or the last error line."""
    python = os.environ.get("LEGACY_PYTHON", "/work/legacy-venv/bin/python")
    with open(log, "w") as out:
        try:
            proc = subprocess.run(
                [python, *args], stdout=out, stderr=subprocess.STDOUT, timeout=TIMEOUT
            )
        except subprocess.TimeoutExpired:
            return f"hangs (no result in {TIMEOUT} s)"
    if proc.returncode == 0:
        return None
    lines = log.read_text().splitlines()
    errors = [i for i, x in enumerate(lines) if "Error" in x or "error" in x]
    if not errors:
        return f"exit {proc.returncode}"
    line = lines[errors[-1]].strip()
    if line.endswith("Graph execution error:"):  # the op and TF's message follow
        detail = [x.strip() for x in lines[errors[-1] + 1 :] if x.strip()]
        node = next((x for x in detail if x.startswith("Detected at node")), "")
        message = next((x for x in reversed(detail) if not x.startswith(("File", "["))), "")
        line = f"{line} {node} {message}"
    return line


def _max_difference(one: dict, two: dict) -> tuple[float, str]:
    import numpy as np

    worst, where = 0.0, ""
    for name, value in one["variables"].items():
        if name not in two["variables"]:
            return float("inf"), f"{name} missing"
        diff = float(np.max(np.abs(np.subtract(value, two["variables"][name]))))
        if diff > worst:
            worst, where = diff, name
    for key, value in one["metrics"].items():
        diff = abs(value - two["metrics"].get(key, float("nan")))
        if diff > worst:
            worst, where = diff, f"metric {key}"
    return worst, where


def table(out_dir: pathlib.Path, kinds: list[str]) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    for kind in kinds:
        one, two = out_dir / f"{kind}_1", out_dir / f"{kind}_2"
        shutil.rmtree(one, ignore_errors=True)
        shutil.rmtree(two, ignore_errors=True)
        error = _run([str(SCRIPT), f"{kind},{one},{one}.json"], out_dir / f"{kind}_1.log")
        if error:
            print(f"{kind}: one device fails: {error}", flush=True)
            continue
        two.mkdir()
        for f in one.glob("model.ckpt-0.*"):
            shutil.copy(f, two)
        if (one / "keras").is_dir():
            shutil.copytree(one / "keras", two / "keras")
        (two / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')
        job = f"{kind},{two},{two}.json"
        error = _run([__file__, "--mirrored", job], out_dir / f"{kind}_2.log")
        if error and "not found in checkpoint" in (out_dir / f"{kind}_2.log").read_text():
            missing = [x for x in (out_dir / f"{kind}_2.log").read_text().splitlines()]
            missing = next(x for x in missing if x.startswith("Key ") and "not found" in x)
            print(f"{kind}: the one-device step-0 checkpoint does not restore: {missing}")
            shutil.rmtree(two)
            error = _run([__file__, "--mirrored", job], out_dir / f"{kind}_2.log")
            kind = f"{kind} (from scratch, not from step 0)"
        if error:
            print(f"{kind}: {error}", flush=True)
            continue
        a = json.loads(pathlib.Path(f"{one}.json").read_text())
        b = json.loads(pathlib.Path(f"{two}.json").read_text())
        worst, where = _max_difference(a, b)
        print(f"{kind}: trains; max |mirrored - one device| = {worst:.3g} ({where})", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "--mirrored":
        mirrored(sys.argv[2:])
    else:
        table(pathlib.Path(sys.argv[1]), sys.argv[2:] or KINDS)
