"""Issue 37: the scan reads the artifact as TensorFlow runs it (same bytes, same rules).

Every artifact is crafted here; every test checks that nothing was written outside the
output.
"""

from __future__ import annotations

from unittest import mock

import pytest
from hostile import (
    computed_size_graph,
    disguised_write_graph,
    snapshot,
    tf1_implementation_selector,
    tf2_saved_model_restore_trick,
)

from tfport import graph
from tfport._common import protos
from tfport._common.errors import TfportInputError
from tfport._common.tfenv import import_tf
from tfport.cli._main import main


def _one_line(err: str, *needles: str) -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("tfport: error:")]
    assert len(lines) == 1, err
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def test_a_node_writing_its_op_twice_is_refused_everywhere(tmp_path, capsys):
    target = tmp_path / "outside" / "pwned.txt"
    target.parent.mkdir()
    pb = disguised_write_graph(tmp_path / "g.pb", target)
    # protobuf (and so TensorFlow) reads the disguised node as a WriteFile
    parsed = protos.graph_def_class().FromString(pb.read_bytes())
    assert [n.op for n in parsed.node if n.name == "w"] == ["WriteFile"]
    before = snapshot(tmp_path)
    with pytest.raises(TfportInputError, match="WriteFile") as err:
        graph.load_frozen(str(pb))
    assert "'w'" in str(err.value) and "op 2 times" in str(err.value)
    for argv in (
        ["graph", "inspect", pb],
        ["verify", pb, pb, "--graph-outputs", "y:0"],
        ["graph", "convert", pb, tmp_path / "out", "--verify"],
    ):
        code = main([str(a) for a in argv])
        out, err_text = capsys.readouterr()
        assert code == 2, (argv, out, err_text)
        _one_line(err_text, "WriteFile", "'w'")
    assert snapshot(tmp_path) == before
    assert not target.exists()


def test_a_node_without_op_is_refused(tmp_path, capsys):
    graph_def = protos.graph_def_class()()
    graph_def.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    graph_def.node.add(name="pad")
    pb = tmp_path / "pad.pb"
    pb.write_bytes(graph_def.SerializeToString())
    assert main(["graph", "inspect", str(pb)]) == 2
    _one_line(capsys.readouterr().err, "without name or op")


def test_graph_index_reads_as_protobuf_when_bytes_are_canonical(tmp_path):
    from tfport.graph import _index

    graph_def = protos.graph_def_class()()
    for i, op in enumerate(["Placeholder", "Neg", "Identity"]):
        graph_def.node.add(name=f"n{i}", op=op)
    index = _index.GraphIndex(graph_def, graph_def.SerializeToString())
    assert index.ops == [n.op for n in graph_def.node]


SAVER_OPS = {
    "save_v2": "SaveV2",
    "save_v1": "Save",
    "merge": "MergeV2Checkpoints",
    "restore": "RestoreV2",
    "gs": "SaveV2",
}


@pytest.mark.slow
@pytest.mark.parametrize("action", sorted(SAVER_OPS))
def test_tf2_functions_take_their_role_from_the_object_graph(tmp_path, capsys, action):
    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside / "ckpt"
    if action in ("merge", "restore"):  # a checkpoint to move, delete or read
        tf = import_tf()
        tf.raw_ops.SaveV2(
            prefix=str(target), tensor_names=["v"], shape_and_slices=[""], tensors=[[7.0, 7.0]]
        )
    sm = tf2_saved_model_restore_trick(tmp_path / "sm", action, target)
    op = SAVER_OPS[action]
    code = main(["graph", "inspect", str(sm), "--json"])
    out, err = capsys.readouterr()
    assert code == 2, err  # refused: the disguised op blocks
    line = _one_line(err, op, "function:")
    assert "signature_wrapper" in line or "serve" in line
    before = snapshot(tmp_path)
    with mock.patch("subprocess.Popen", side_effect=AssertionError("a child started")):
        code = main(["verify", str(sm), str(sm)])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert _one_line(err, op, "function:").endswith(err.strip().splitlines()[-1])
    assert snapshot(tmp_path) == before


@pytest.mark.slow
def test_a_tf1_implementation_grappler_may_swap_in_is_scanned(tmp_path, capsys):
    target = tmp_path / "outside" / "ckpt"
    target.parent.mkdir()
    sm = tf1_implementation_selector(tmp_path / "sm", target)
    before = snapshot(tmp_path)
    for argv in (
        ["graph", "inspect", sm],
        ["verify", sm, sm],
        ["graph", "convert", sm, tmp_path / "out", "--verify"],
    ):
        code = main([str(a) for a in argv])
        out, err = capsys.readouterr()
        assert code == 2, (argv, err)
        line = _one_line(err, "SaveV2", "function:")
        assert "scale_cpu" in line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    ("kind", "op"), [("fill", "Fill"), ("parse", "ParseTensor"), ("as_string", "AsString")]
)
def test_inspect_names_ops_of_unbounded_output_size(tmp_path, capsys, kind, op):
    pb = computed_size_graph(tmp_path / f"{kind}.pb", kind)
    report = graph.inspect_graph(str(pb))
    assert report["graphs"][0]["unbounded"].get(op) == 1
    assert not report["blocking"]  # safe ops: only --max-memory holds them when run
    assert main(["graph", "inspect", str(pb)]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("unbounded"))
    assert f"{op} 1" in line and "--max-memory" in line
    harmless = computed_size_graph(tmp_path / "none.pb", "none")
    assert graph.inspect_graph(str(harmless))["graphs"][0]["unbounded"] == {}
