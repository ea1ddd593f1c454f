"""`tfport graph inspect` and TF-free parsing: goldens, bad inputs, no TensorFlow import."""

from __future__ import annotations

import json
import os
import pathlib

import pytest

from tfport._common.errors import TfportInputError
from tfport.graph import _parse, inspect_graph


@pytest.fixture(scope="module")
def expected(frozen_dir: pathlib.Path) -> dict:
    return json.loads((frozen_dir / "expected.json").read_text())


@pytest.mark.parametrize("name", ["frozen.pb", "frozen.pbtxt"])
def test_inspect_golden_frozen(frozen_dir, expected, name):
    report = inspect_graph(str(frozen_dir / name))
    (graph,) = report["graphs"]
    assert [t["name"] for t in graph["inputs"]] == expected["inputs"]
    assert graph["inputs"][0]["dtype"] == "float32"
    assert graph["inputs"][0]["shape"] == [None, 4]
    assert graph["outputs"] == expected["outputs"]
    assert graph["op_histogram"]["Softmax"] == 1
    assert graph["nodes"] == sum(graph["op_histogram"].values())
    assert graph["unsafe"] == [] and report["blocking"] == []


def test_text_and_binary_parse_to_the_same_graph(frozen_dir):
    binary = _parse.read(str(frozen_dir / "frozen.pb")).graph_def
    text = _parse.read(str(frozen_dir / "frozen.pbtxt")).graph_def
    assert binary.SerializeToString(deterministic=True) == text.SerializeToString(
        deterministic=True
    )


def test_inspect_golden_saved_model(frozen_dir, expected):
    report = inspect_graph(str(frozen_dir / "saved_model_v1"))
    (meta,) = report["graphs"]
    assert meta["tags"] == expected["saved_model_tags"]
    assert sorted(meta["signatures"]) == expected["saved_model_signatures"]
    sig = meta["signatures"]["serving_default"]
    assert [t["name"] for t in sig["inputs"].values()] == expected["inputs"]
    assert [t["name"] for t in sig["outputs"].values()] == expected["outputs"]
    assert {v["name"] for v in meta["variables"]} == {
        "hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"
    }  # fmt: skip
    saver_ops = {u["op"] for u in meta["unsafe"] if u["role"] == "saver"}
    assert {"SaveV2", "RestoreV2"} <= saver_ops
    assert report["blocking"] == []


def _bad_inputs(root: pathlib.Path, frozen_dir: pathlib.Path) -> dict[str, pathlib.Path]:
    rng = __import__("random").Random(7)
    random_pb = root / "random.pb"
    random_pb.write_bytes(bytes(rng.randrange(256) for _ in range(4096)))
    data = (frozen_dir / "frozen.pb").read_bytes()
    truncated = root / "truncated.pb"
    truncated.write_bytes(data[: len(data) // 2])
    text = (frozen_dir / "frozen.pbtxt").read_text()
    bad_text = root / "bad.pbtxt"
    bad_text.write_text(text.replace("node {", "node {{", 3))
    empty_dir = root / "not_a_saved_model"
    empty_dir.mkdir()
    (empty_dir / "variables").mkdir()
    return {
        "random": random_pb,
        "truncated": truncated,
        "bad_pbtxt": bad_text,
        "folder": empty_dir,
        "missing": root / "missing.pb",
    }


BAD = ["random", "truncated", "bad_pbtxt", "folder", "missing"]


@pytest.mark.parametrize("kind", BAD)
def test_bad_input_raises_input_error(tmp_path, frozen_dir, kind):
    path = _bad_inputs(tmp_path, frozen_dir)[kind]
    with pytest.raises(TfportInputError, match=str(path.name)):
        inspect_graph(str(path))


def test_bad_pbtxt_names_the_line(tmp_path, frozen_dir):
    path = _bad_inputs(tmp_path, frozen_dir)["bad_pbtxt"]
    with pytest.raises(TfportInputError, match=r"text-format GraphDef: \d+:\d+"):
        inspect_graph(str(path))


def test_boundary_truncation_is_caught(tmp_path, frozen_dir):
    """A file cut between two nodes still parses; the dangling input gives it away."""
    graph = _parse.read(str(frozen_dir / "frozen.pb")).graph_def
    del graph.node[-3:-1]
    path = tmp_path / "cut.pb"
    path.write_bytes(graph.SerializeToString())
    with pytest.raises(TfportInputError, match="incomplete"):
        inspect_graph(str(path))


def test_input_is_not_modified(tmp_path, frozen_dir):
    before = {p: os.stat(p).st_mtime_ns for p in frozen_dir.rglob("*")}
    inspect_graph(str(frozen_dir / "saved_model_v1"))
    assert {p: os.stat(p).st_mtime_ns for p in frozen_dir.rglob("*")} == before


def test_bulk_node_scan_matches_per_node_walk(frozen_dir):
    from tfport._common import protos
    from tfport.graph import _index

    art = _parse.read(str(frozen_dir / "saved_model_v1"))
    graph = art.saved_model.meta_graphs[0].graph_def
    names, ops, inputs = protos.scan_nodes(graph.SerializeToString(), len(graph.node))
    assert names == [n.name for n in graph.node]
    assert ops == [n.op for n in graph.node]
    assert inputs == [i for n in graph.node for i in n.input]
    assert _index.GraphIndex(graph).consumed == {
        _index.input_node(i) for n in graph.node for i in n.input
    }


def test_node_without_name_is_refused(tmp_path, frozen_dir):
    graph = _parse.read(str(frozen_dir / "frozen.pb")).graph_def
    graph.node.add(op="NoOp")
    path = tmp_path / "noname.pb"
    path.write_bytes(graph.SerializeToString())
    with pytest.raises(TfportInputError, match="without name or op"):
        inspect_graph(str(path))


def test_output_overlapping_the_input_refused(tmp_path, frozen_dir):
    from tfport.graph import convert

    with pytest.raises(TfportInputError, match="overlaps the input"):
        convert(
            str(frozen_dir / "saved_model_v1"), str(frozen_dir / "saved_model_v1"), overwrite=True
        )
    with pytest.raises(TfportInputError, match="overlaps the input"):
        convert(str(frozen_dir / "frozen.pb"), str(frozen_dir), overwrite=True)
