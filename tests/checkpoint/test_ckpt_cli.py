"""`tfport ckpt inspect` and `diff`: content checked against TensorFlow, no TF import."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
from ckpt_helpers import run_cli

from tfport._common.tfenv import import_tf
from tfport.checkpoint import CheckpointWriter


def test_inspect_imports_no_tensorflow(goldens):
    path = goldens / "canned_linear" / "model_dir"
    code = (
        "import sys; from tfport.cli import main; "
        f"rc = main(['ckpt', 'inspect', {str(path)!r}, '--json']); "
        "assert rc == 0; assert 'tensorflow' not in sys.modules, 'tensorflow imported'"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["groups"]["optimizer_slots"]["count"] == 6


def test_inspect_matches_tensorflow_and_groups(goldens):
    tf = import_tf()
    for case, optimizer, naming in [
        ("custom_v1_adam", "Adam", "tf1"),
        ("canned_dnn", "Adagrad", "tf1"),
        ("canned_dnn_v2", "Adam", "keras"),
        ("keras_model_to_estimator", "SGD", "object"),
    ]:
        model_dir = goldens / case / "model_dir"
        proc = run_cli("ckpt", "inspect", model_dir, "--json")
        assert proc.returncode == 0, proc.stderr
        report = json.loads(proc.stdout)
        reader = tf.train.load_checkpoint(str(model_dir))
        shapes, dtypes = reader.get_variable_to_shape_map(), reader.get_variable_to_dtype_map()
        rows = {v["name"]: v for v in report["variables"]}
        assert set(rows) == set(shapes)
        for name, row in rows.items():
            assert row["shape"] == list(shapes[name]) and row["dtype"] == dtypes[name].name
        slots = {n for n, r in rows.items() if r["group"] == "optimizer_slots"}
        assert slots and all(rows[n]["optimizer"] == optimizer for n in slots), case
        assert {rows[n]["naming"] for n in slots} == {naming}
        for name in slots:  # every slot belongs to a model weight of the checkpoint
            assert rows[rows[name]["variable"]]["group"] == "model_weights"
        if naming == "object":  # paths from the object graph: the key minus its attribute
            for name, row in rows.items():
                if row["group"] == "model_weights":
                    assert row["object_path"] == name.split("/.ATTRIBUTES/")[0]


def test_inspect_bookkeeping_and_partitions(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with CheckpointWriter(prefix) as w:
        w.add("global_step", np.int64(1))
        w.add("beta1_power", np.float32(0.81))
        w.add("emb/part_0", np.zeros((4, 2), np.float32))
        w.add("emb/part_1", np.zeros((3, 2), np.float32))
        w.add("sliced", np.zeros(1, np.float32))
        w.add_slices(
            "whole", [4], [([(0, 2)], np.ones(2, np.float32)), ([(2, 2)], np.ones(2, np.float32))]
        )
    proc = run_cli("ckpt", "inspect", prefix, "--json")
    rows = {v["name"]: v for v in json.loads(proc.stdout)["variables"]}
    assert rows["emb"]["shape"] == [7, 2] and rows["emb"]["partitions"] == 2
    assert rows["whole"]["shape"] == [4] and rows["whole"]["partitions"] == 2
    assert rows["global_step"]["group"] == rows["beta1_power"]["group"] == "bookkeeping"
    table = run_cli("ckpt", "inspect", prefix)
    assert table.returncode == 0 and "emb" in table.stdout


def test_diff(goldens, tmp_path):
    model_dir = goldens / "custom_v1_adam" / "model_dir"
    same = run_cli("ckpt", "diff", model_dir / "model.ckpt-40", model_dir, "--json")
    assert same.returncode == 0 and json.loads(same.stdout)["equal"]
    proc = run_cli(
        "ckpt", "diff", model_dir / "model.ckpt-0", model_dir / "model.ckpt-40", "--json"
    )
    assert proc.returncode == 1
    result = json.loads(proc.stdout)
    tf = import_tf()
    a, b = (tf.train.load_checkpoint(str(model_dir / f"model.ckpt-{s}")) for s in (0, 40))
    for t in result["tensors"]:
        want = np.max(np.abs(a.get_tensor(t["name"]) - b.get_tensor(t["name"])))
        assert np.isclose(t["max_abs_diff"], want)
    other = goldens / "canned_dnn" / "model_dir"
    proc = run_cli("ckpt", "diff", model_dir, other, "--json")
    result = json.loads(proc.stdout)
    assert proc.returncode == 1 and "hidden/kernel" in result["only_in_a"]
    assert "dnn/logits/bias" in result["only_in_b"]
    loose = run_cli("ckpt", "diff", model_dir / "model.ckpt-20", model_dir, "--atol", "1e9")
    assert loose.returncode == 0


def test_diff_shape_mismatch(tmp_path):
    for name, shape in (("a", (2, 3)), ("b", (3, 2))):
        with CheckpointWriter(str(tmp_path / name)) as w:
            w.add("v", np.zeros(shape, np.float32))
    proc = run_cli("ckpt", "diff", tmp_path / "a", tmp_path / "b", "--json")
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["mismatches"][0]["name"] == "v"
