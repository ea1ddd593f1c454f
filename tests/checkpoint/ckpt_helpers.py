"""Helpers for the checkpoint tests: run the CLI, craft checkpoints, write small ones."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np

from tfport._common import protos
from tfport.checkpoint import CheckpointWriter
from tfport.checkpoint._table import build_table, read_table


def run_cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Runs `python -m tfport ...` and returns the finished process."""
    here = os.path.dirname(os.path.abspath(__file__))  # for `ckpt_models:FACTORY`
    path = os.pathsep.join(p for p in (here, os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONPATH=path)
    return subprocess.run(
        [sys.executable, "-m", "tfport", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def craft_index(src: str, dst: str, name: str, mutate) -> str:
    """Copies checkpoint `src` to `dst` with `mutate(entry)` applied to `name`'s index entry."""
    for suffix in (".data-00000-of-00001",):
        shutil.copyfile(src + suffix, dst + suffix)
    with open(src + ".index", "rb") as f:
        items = read_table(f.read(), src)
    out = []
    for key, value in items:
        if key == name.encode():
            entry = protos.message_class("tensorflow.BundleEntryProto").FromString(value)
            mutate(entry)
            value = entry.SerializeToString()
        out.append((key, value))
    with open(dst + ".index", "wb") as f:
        f.write(build_table(out))
    return dst


def write_adam_ckpt(prefix: str, seed: int = 1, scale: int = 1) -> str:
    """A name-based TF1 Adam checkpoint written by tfport (`scale` multiplies sizes)."""
    rng = np.random.default_rng(seed)
    with CheckpointWriter(prefix) as w:
        w.add("global_step", np.int64(3))
        w.add("beta1_power", np.float32(0.9) ** 4)
        w.add("beta2_power", np.float32(0.999) ** 4)
        for var, shape in (("dense/kernel", (4 * scale, 5)), ("dense/bias", (5,))):
            w.add(var, rng.standard_normal(shape).astype(np.float32))
            w.add(var + "/Adam", rng.standard_normal(shape).astype(np.float32))
            w.add(var + "/Adam_1", rng.random(shape).astype(np.float32))
    return prefix
