"""One model_fn on N replicas gives one device's numbers (tfport run --strategy mirrored:2).

Each script kind trains on one device first; mirrored:2 then trains from a copy of its
step-0 checkpoint, so both start from the same variables. Jobs are batched: one
`tfport run` process per strategy.
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

SCRIPT = pathlib.Path(__file__).parent / "scripts" / "replicas.py"
MATCHING = [
    "linear_ftrl",
    "dnn_embedding",
    "keras_bn",
    "bn_offset",
    "keras_loss",
    "bert_cross",
    "bert_plain",  # its own apply_gradients on tf.gradients, no CrossShardOptimizer (issue 28)
    "adam",
    "tpu",  # TPUEstimator(use_tpu=False), CrossShardOptimizer, iterations_per_loop=4
    "tae_export",  # train_and_evaluate with a LatestExporter
]
# 103 examples batched by 10, one epoch: the last global batch (3) splits 2 + 1
PARTIAL = ["partial", "partial_v1", "partial_keras", "partial_m2e", "partial_k3"]
# a one-device checkpoint's per-partition slots (weights/part_0/Adagrad) restore on 2
PARTITIONED = ["linear_part"]


def _tfport_run(strategy: str, *jobs: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tfport", "run", "--strategy", strategy, str(SCRIPT), *jobs]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=900)


def _step0_copy(src: pathlib.Path, dest: pathlib.Path) -> None:
    dest.mkdir(parents=True)
    for f in src.glob("model.ckpt-0.*"):
        shutil.copy(f, dest)
    if (src / "keras").is_dir():
        shutil.copytree(src / "keras", dest / "keras")
    (dest / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-0"\nall_model_checkpoint_paths: "model.ckpt-0"\n'
    )


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    root = tmp_path_factory.mktemp("replicas")
    kinds = [*MATCHING, *PARTIAL, *PARTITIONED, "bert_computed"]
    proc = _tfport_run("default", *(f"{k},{root / k}_1,{root / k}_1.json" for k in kinds))
    assert proc.returncode == 0, proc.stderr[-3000:]
    for kind in kinds:
        _step0_copy(root / f"{kind}_1", root / f"{kind}_2")
    two = [*MATCHING, *PARTIAL, *PARTITIONED]
    proc = _tfport_run("mirrored:2", *(f"{k},{root / k}_2,{root / k}_2.json" for k in two))
    assert proc.returncode == 0, proc.stderr[-3000:]
    plain = _tfport_run(
        "mirrored:2", f"bert_computed,{root}/bert_computed_2,{root}/bert_computed_2.json"
    )
    return root, plain


def _out(root: pathlib.Path, name: str) -> dict:
    return json.loads((root / f"{name}.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("kind", [*MATCHING, *PARTIAL, *PARTITIONED])
def test_mirrored_2_trains_and_evaluates_like_one_device(runs, kind):
    root, _ = runs
    one, two = _out(root, f"{kind}_1"), _out(root, f"{kind}_2")
    assert sorted(one["variables"]) == sorted(two["variables"])
    for name, value in one["variables"].items():
        np.testing.assert_allclose(two["variables"][name], value, atol=1e-4, err_msg=name)
    assert one["metrics"]["global_step"] == two["metrics"]["global_step"] > 0
    for key, value in one["metrics"].items():
        assert abs(two["metrics"][key] - value) < 1e-4, key


@pytest.mark.slow
@pytest.mark.parametrize("kind", PARTIAL)
def test_mirrored_2_logs_one_devices_training_loss_on_uneven_batches(runs, kind):
    root, _ = runs
    one, two = _out(root, f"{kind}_1")["train_losses"], _out(root, f"{kind}_2")["train_losses"]
    assert sorted(one, key=int) == sorted(two, key=int) == [str(s) for s in range(1, 12)]
    for step, value in one.items():
        assert abs(two[step] - value) < 1e-4, step  # step 11: the batch of 3 split 2 + 1


@pytest.mark.slow
def test_train_and_evaluate_exports_one_devices_model(runs):
    root, _ = runs
    one, two = _out(root, "tae_export_1")["exported"], _out(root, "tae_export_2")["exported"]
    assert np.asarray(one).shape == (16, 2)
    np.testing.assert_allclose(two, one, atol=1e-4)


@pytest.mark.slow
def test_bypassing_optimizer_is_refused_at_the_first_step_in_one_line(runs):
    root, plain = runs
    assert plain.returncode != 0
    line = plain.stderr.strip().splitlines()[-1]
    assert line.startswith("tfport: error: The replicas' copies of")
    # the cause found: BertAdam applied gradients that were not all-reduced
    assert "BertAdam applies gradients itself" in line and "not all-reduced" in line
    assert "tf.gradients" in line and "CrossShardOptimizer" in line
    assert not (root / "bert_computed_2.json").exists()
    assert not list((root / "bert_computed_2").glob("model.ckpt-1.*"))
