"""The graph builder composes: steps per loop under strategies, boundaries, TPU scaffold_fn."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).with_name("_loop_script.py")


def _tfport_run(strategy: str, *jobs: str) -> None:
    cmd = [sys.executable, "-m", "tfport", "run", "--strategy", strategy, str(SCRIPT), *jobs]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _step0_copy(src: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    dest.mkdir(parents=True)
    for f in src.glob("model.ckpt-0.*"):
        shutil.copy(f, dest)
    (dest / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-0"\nall_model_checkpoint_paths: "model.ckpt-0"\n'
    )
    return dest


def _max_diff(a: dict, b: dict) -> float:
    assert sorted(a) == sorted(b)
    return max(float(np.max(np.abs(np.asarray(a[k]) - np.asarray(b[k])))) for k in a)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """One device, then mirrored:2 from the one-device step-0 checkpoints (two processes)."""
    root = tmp_path_factory.mktemp("loops")
    one = {
        "custom": root / "custom_1",
        "tpu": root / "tpu_1",
        "every10": root / "every10_1",
    }
    jobs = [f"{kind},{path},{path}.json" for kind, path in one.items()]
    init = one["custom"] / "model.ckpt-40"
    for kind in ("bert_tpu", "bert_plain"):
        jobs.append(f"{kind},{root / kind}_1,{root / kind}_1.json,{init}")
    _tfport_run("default", *jobs)
    jobs = []
    for kind in ("custom", "tpu"):
        dest = _step0_copy(one[kind], root / f"{kind}_2")
        jobs.append(f"{kind},{dest},{dest}.json")
    for kind in ("bert_tpu", "bert_plain"):
        jobs.append(f"{kind},{root / kind}_2,{root / kind}_2.json,{init}")
    _tfport_run("mirrored:2", *jobs)
    return root


def _out(root: pathlib.Path, name: str) -> dict:
    return json.loads((root / f"{name}.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["custom", "tpu"])
def test_iterations_per_loop_holds_on_mirrored_2(runs, kind):
    one, two = _out(runs, f"{kind}_1"), _out(runs, f"{kind}_2")
    assert two["before_run"] == 4 and one["before_run"] == 4  # 40 steps, 10 per run
    assert two["steps"] == [0, 20, 40] and one["steps"] == [0, 20, 40]
    assert _max_diff(one["variables"], two["variables"]) < 1e-6


@pytest.mark.slow
def test_loops_end_at_checkpoint_boundaries(runs):
    out = _out(runs, "every10_1")  # iterations_per_loop=20, save_checkpoints_steps=10
    assert out["steps"] == [0, 10, 20]
    assert out["before_run"] == 2


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["bert_tpu", "bert_plain"])
@pytest.mark.parametrize("replicas", [1, 2])
def test_init_from_checkpoint_fine_tunes_with_a_long_loop(runs, kind, replicas):
    import tensorflow as tf

    out = _out(runs, f"{kind}_{replicas}")
    assert out["steps"] == [0, 20, 40] and out["before_run"] == 2
    start = tf.train.load_checkpoint(str(runs / f"{kind}_{replicas}" / "model.ckpt-0"))
    init = tf.train.load_checkpoint(str(runs / "custom_1" / "model.ckpt-40"))
    for name in ("hidden/kernel", "hidden/bias"):
        np.testing.assert_array_equal(start.get_tensor(name), init.get_tensor(name))
    fresh = tf.train.load_checkpoint(str(runs / "custom_1" / "model.ckpt-0"))
    assert not np.array_equal(start.get_tensor("logits/kernel"), init.get_tensor("logits/kernel"))
    assert not np.array_equal(start.get_tensor("hidden/kernel"), fresh.get_tensor("hidden/kernel"))
