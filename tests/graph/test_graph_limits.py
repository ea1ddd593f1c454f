"""Issue 18 on graphs: bounded work, unsafe calls of primitive ops, one-line errors, outputs."""

from __future__ import annotations

import shutil

import pytest
from graph_helpers import error_lines, run_cli

from tfport._common import protos
from tfport._common.errors import TfportInputError
from tfport.graph import Limits, convert, inspect_graph


def _graph():
    graph = protos.graph_def_class()()
    x = graph.node.add(name="x", op="Placeholder")
    x.attr["dtype"].type = 1
    x.attr["shape"].shape.dim.add(size=2)
    return graph


def _write(tmp_path, graph, name="g.pb"):
    path = tmp_path / name
    path.write_bytes(graph.SerializeToString())
    return path


def _one_line(proc, code: int, needle: str) -> None:
    assert proc.returncode == code, proc.stderr
    assert "Traceback" not in proc.stderr
    (line,) = error_lines(proc.stderr)
    assert needle in line, line


@pytest.mark.parametrize("call", ["PartitionedCall", "StatefulPartitionedCall"])
def test_call_of_a_primitive_unsafe_op_is_flagged(tmp_path, call):
    graph = _graph()
    node = graph.node.add(name="w", op=call, input=["x"])
    node.attr["f"].func.name = "WriteFile"
    report = inspect_graph(str(_write(tmp_path, graph)))
    assert [(u["node"], u["op"]) for u in report["blocking"]] == [("w", "WriteFile")]
    assert inspect_graph(str(_write(tmp_path, graph)), allow_ops=["WriteFile"])["blocking"] == []


def test_function_node_without_op_is_refused(tmp_path):
    graph = _graph()
    function = graph.library.function.add()
    function.signature.name = "f"
    function.node_def.add(name="empty")
    graph.node.add(name="call", op="f", input=["x"])
    with pytest.raises(TfportInputError, match="without name or op"):
        inspect_graph(str(_write(tmp_path, graph)))


def _chain(depth: int):
    graph = _graph()
    for i in range(depth):
        function = graph.library.function.add()
        function.signature.name = f"f{i}"
        function.node_def.add(name="c", op=f"f{i + 1}" if i + 1 < depth else "Identity")
    graph.node.add(name="call", op="f0", input=["x"])
    return graph


def test_deep_text_call_chain_refused_while_parsing(tmp_path):
    from google.protobuf import text_format

    path = tmp_path / "chain.pbtxt"
    path.write_text(text_format.MessageToString(_chain(20_000)))
    proc = run_cli("graph", "inspect", path)
    _one_line(proc, 2, "more than 1000 levels deep")
    assert "--max-depth" in proc.stderr
    shallow = tmp_path / "shallow.pbtxt"
    shallow.write_text(text_format.MessageToString(_chain(1200)))
    with pytest.raises(TfportInputError, match="1000 levels"):
        inspect_graph(str(shallow))
    assert inspect_graph(str(shallow), limits=Limits(max_depth=1300))["graphs"][0]["nodes"] == 2


def test_node_limit_is_a_flag(tmp_path):
    path = _write(tmp_path, _chain(3))
    _one_line(run_cli("graph", "inspect", path, "--max-nodes", "3"), 2, "--max-nodes")
    assert run_cli("graph", "inspect", path, "--max-nodes", "10").returncode == 0


def test_verify_refuses_a_huge_constant(tmp_path):
    graph = _graph()
    const = graph.node.add(name="big", op="Const")
    const.attr["dtype"].type = 1
    tensor = const.attr["value"].tensor
    tensor.dtype = 1
    tensor.tensor_shape.dim.add(size=2**40)
    tensor.float_val.append(1.0)
    graph.node.add(name="y", op="AddV2", input=["x", "big"]).attr["T"].type = 1
    path = _write(tmp_path, graph)
    with pytest.raises(TfportInputError, match="max-const-bytes") as err:
        convert(str(path), str(tmp_path / "out"), verify=True)
    assert "'big'" in str(err.value)
    assert not (tmp_path / "out").exists()


def test_saved_model_with_a_flipped_string_byte(tmp_path, frozen_dir):
    sm = tmp_path / "sm"
    shutil.copytree(frozen_dir / "saved_model_v1", sm)
    data = bytearray((sm / "saved_model.pb").read_bytes())
    pos = data.index(b"serving_default")
    data[pos + 3] |= 0x80  # no longer UTF-8
    (sm / "saved_model.pb").write_bytes(bytes(data))
    _one_line(run_cli("graph", "inspect", sm), 2, "not a valid binary SavedModel")
    _one_line(run_cli("graph", "convert", sm, tmp_path / "out"), 2, "SavedModel")
    assert not (tmp_path / "out").exists()


def test_outputs_under_a_file_or_over_other_folders(tmp_path, frozen_dir):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    _one_line(
        run_cli("graph", "convert", frozen_dir / "frozen.pb", blocker / "out"), 2, "is a file"
    )
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("keep")
    proc = run_cli("graph", "convert", frozen_dir / "frozen.pb", other, "--overwrite")
    _one_line(proc, 2, "is not a SavedModel")
    assert (other / "keep.txt").read_text() == "keep"


def test_usage_error_is_one_line():
    proc = run_cli("graph", "inspect")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "tfport graph inspect --help" in proc.stderr
