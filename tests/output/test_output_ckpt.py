"""`tfport ckpt inspect/diff` output for people: whole names, sizes, a summary, pipes."""

from __future__ import annotations

import json
import subprocess

import numpy as np
from output_helpers import TFPORT, on_terminal, piped, user_env

from tfport.checkpoint import CheckpointWriter


def test_inspect_piped_keeps_every_full_name_and_reads_sizes(goldens):
    model_dir = goldens / "keras_model_to_estimator" / "model_dir"  # names over 80 columns
    report = json.loads(piped("ckpt", "inspect", model_dir, "--json").stdout)
    proc = piped("ckpt", "inspect", model_dir)
    assert proc.returncode == 0, proc.stderr
    first_cells = {line.split("  ")[0] for line in proc.stdout.splitlines()}
    names = [v["name"] for v in report["variables"]]
    assert max(map(len, names)) > 80
    assert all(name in first_cells for name in names)  # grep finds every one
    assert "…" not in proc.stdout
    assert all(isinstance(v["bytes"], int) for v in report["variables"])  # exact in --json
    slot = next(v for v in report["variables"] if v["group"] == "optimizer_slots")
    line = next(line for line in proc.stdout.splitlines() if line.startswith(slot["name"] + " "))
    assert f"  {slot['bytes']} B  " in line  # small tensors in bytes
    assert "KiB" in proc.stdout and "2 shards" in proc.stdout
    assert "1 tensor (" in proc.stdout or "tensors (" in proc.stdout


def test_inspect_on_a_terminal_wraps_names_instead_of_cutting_them(goldens):
    model_dir = goldens / "keras_model_to_estimator" / "model_dir"
    code, screen = on_terminal("ckpt", "inspect", model_dir, columns=80)
    assert code == 0, screen
    assert "…" not in screen and "OPTIMIZER_SLOT" in screen
    assert "VARIABLE" in screen and "┃" in screen  # a table, its long names folded


def _pair(tmp_path, count: int) -> tuple[str, str]:
    prefixes = []
    for side, offset in (("a", 0.0), ("b", 1.0)):
        prefix = str(tmp_path / side / "model.ckpt-1")
        with CheckpointWriter(prefix) as w:
            for i in range(count):
                w.add(f"layer_{i:04d}/kernel", np.full((2,), offset * (i % 2), np.float32))
            w.add(f"only_{side}", np.zeros((1,), np.float32))
        prefixes.append(prefix)
    return prefixes[0], prefixes[1]


def test_diff_prints_a_summary(tmp_path):
    a, b = _pair(tmp_path, 5)
    proc = piped("ckpt", "diff", a, b)
    assert proc.returncode == 1
    last = proc.stdout.strip().splitlines()[-1]
    assert last == "checkpoints differ: 3 equal, 2 differ, 1 only in A, 1 only in B"
    same = piped("ckpt", "diff", a, a)
    assert same.returncode == 0
    assert same.stdout.strip() == "checkpoints equal: 6 equal, 0 differ, 0 only in A, 0 only in B"


def test_diff_json_into_head_ends_quietly(tmp_path):
    a, b = _pair(tmp_path, 3000)  # far more JSON than a pipe buffer holds
    command = " ".join(TFPORT) + f" ckpt diff {a} {b} --json | head -c 10"
    proc = subprocess.run(
        ["bash", "-c", command], capture_output=True, text=True, timeout=300, env=user_env()
    )
    assert proc.stdout == '{\n  "a": "'
    assert "Traceback" not in proc.stderr and "BrokenPipe" not in proc.stderr, proc.stderr
    assert proc.stderr == ""
