"""Issue 32: `ckpt convert` never merges silently (mixed dtypes, missing parts, slots that
do not match their variable), converts the slots of partitioned weights, refuses odd
bookkeeping values in one line; `ckpt inspect` reads state files as TensorFlow does and
stays linear on long object-graph chains. Checkpoints are written by tfport's writer."""

from __future__ import annotations

import os

import numpy as np
import pytest

from tfport.checkpoint import CheckpointError, CheckpointReader, CheckpointWriter, convert


def _write(prefix, tensors: dict) -> str:
    with CheckpointWriter(str(prefix)) as w:
        for name, value in tensors.items():
            w.add(name, value)
    return str(prefix)


def _adam_parts(rows=(2, 3), bump=None) -> dict:
    """`w` stored as part_N pieces with Adam slots per piece; `bump` edits one tensor."""
    rng = np.random.default_rng(0)
    out = {
        "global_step": np.int64(3),
        "beta1_power": np.float32(0.9) ** 4,
        "beta2_power": np.float32(0.999) ** 4,
    }
    for i, n in enumerate(rows):
        out[f"w/part_{i}"] = rng.standard_normal((n, 4)).astype(np.float32)
        out[f"w/part_{i}/Adam"] = rng.standard_normal((n, 4)).astype(np.float32)
        out[f"w/part_{i}/Adam_1"] = rng.random((n, 4)).astype(np.float32)
    if bump:
        bump(out)
    return out


def _snapshot(root) -> dict:
    return {
        os.path.join(d, f): os.stat(os.path.join(d, f)).st_mtime_ns
        for d, _, files in os.walk(root)
        for f in files
    }


def test_partitioned_weights_have_their_slots_converted(tmp_path):
    tensors = _adam_parts()
    src = _write(tmp_path / "src" / "model.ckpt", tensors)
    report = convert(src, str(tmp_path / "out"), slots="v1-to-keras")
    with CheckpointReader(str(tmp_path / "out")) as out:
        names = set(out.names())
        want_w = np.concatenate([tensors["w/part_0"], tensors["w/part_1"]])
        np.testing.assert_array_equal(out.read("w"), want_w)
        for tf1, keras in (("Adam", "m"), ("Adam_1", "v")):
            expected = np.concatenate([tensors[f"w/part_0/{tf1}"], tensors[f"w/part_1/{tf1}"]])
            np.testing.assert_array_equal(out.read(f"training/Adam/w/{keras}"), expected)
    assert not [n for n in names if n.endswith(("/Adam", "/Adam_1"))], names
    assert not report["warnings"] or "no TF1 optimizer slots" not in report["warnings"][0]


def _mixed(t):
    t["w/part_1"] = t["w/part_1"].astype(np.int32)


def _missing(t):
    for name in ("w/part_1", "w/part_1/Adam", "w/part_1/Adam_1"):
        t[name.replace("part_1", "part_2")] = t.pop(name)


def _slot_rows(t):
    t["w/part_1/Adam"] = np.zeros((2, 4), np.float32)  # w/part_1 has 3 rows


def _slot_dtype(t):
    t["w/part_1/Adam"] = t["w/part_1/Adam"].astype(np.float16)


def _step_shape(t):
    t["global_step"] = np.zeros([0], np.int64)


def _step_float(t):
    t["global_step"] = np.float32(12.7)


def _step_bytes(t):
    t["global_step"] = np.array(b"12", dtype=object)


def _beta_nan(t):
    t["beta1_power"] = np.float32("nan")


def _beta_shape(t):
    t["beta1_power"] = np.array([0.9, 0.9], np.float32)


@pytest.mark.parametrize(
    "bump,needle",
    [
        (_mixed, "different dtypes"),
        (_missing, "missing"),
        (_slot_rows, "do not tile"),
        (_slot_dtype, "different dtypes"),
        (_step_shape, "global_step"),
        (_step_float, "global_step"),
        (_step_bytes, "global_step"),
        (_beta_nan, "beta1_power"),
        (_beta_shape, "beta1_power"),
    ],
)
def test_bad_pieces_and_bookkeeping_are_refused_in_one_line(tmp_path, bump, needle):
    src = _write(tmp_path / "src" / "model.ckpt", _adam_parts(bump=bump))
    before = _snapshot(tmp_path)
    with pytest.raises(CheckpointError, match=needle) as info:
        convert(src, str(tmp_path / "out"), slots="v1-to-keras")
    text = str(info.value)
    assert len(text.splitlines()) == 1 and text.rpartition("Received: ")[2].strip()
    assert _snapshot(tmp_path) == before  # nothing written, input untouched


@pytest.mark.parametrize("name", ["training/Adam/beta_1"])
@pytest.mark.parametrize("shape", [[2], [0]])
def test_keras_beta_of_odd_shape_is_refused(tmp_path, name, shape):
    tensors = {
        "global_step": np.int64(3),
        "w": np.ones((2, 2), np.float32),
        "training/Adam/w/m": np.ones((2, 2), np.float32),
        name: np.full(shape, 0.9, np.float32),
    }
    src = _write(tmp_path / "src" / "model.ckpt", tensors)
    with pytest.raises(CheckpointError, match="beta_1"):
        convert(src, str(tmp_path / "out"), slots="keras-to-v1")
    assert not (tmp_path / "out").exists()


def test_inspect_of_a_long_object_chain_is_linear(tmp_path):
    from tfport._common import protos
    from tfport.checkpoint import inspect_checkpoint
    from tfport.checkpoint._objgraph import MAX_PATH_PARTS, describe
    from tfport.checkpoint._reader import OBJECT_GRAPH_KEY

    n = 20_000
    graph = protos.message_class("tensorflow.TrackableObjectGraph")()
    tensors = {}
    for i in range(n):
        node = graph.nodes.add()
        if i + 1 < n:
            child = node.children.add()
            child.node_id, child.local_name = i + 1, f"layer{i}"
        if i % 1000 == 999:
            attr = node.attributes.add()
            attr.name = "VARIABLE_VALUE"
            attr.checkpoint_key = f"v{i}/.ATTRIBUTES/VARIABLE_VALUE"
            tensors[attr.checkpoint_key] = np.float32(i)
    tensors[OBJECT_GRAPH_KEY] = np.array(graph.SerializeToString(), dtype=object)
    paths, _ = describe(graph)
    assert len(paths) == n // 1000
    assert all(p.count("/") <= MAX_PATH_PARTS + 2 for p in paths.values())
    assert paths["v999/.ATTRIBUTES/VARIABLE_VALUE"].endswith("/layer997/layer998")
    prefix = _write(tmp_path / "ckpt", tensors)
    report = inspect_checkpoint(prefix)
    assert len(report["variables"]) >= n // 1000
