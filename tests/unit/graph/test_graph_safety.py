"""Safety: unsafe ops anywhere (while bodies, unused functions), recursion and nesting bounds."""

from __future__ import annotations

import pathlib

import pytest

from tfport._common import protos
from tfport._common.errors import TfportInputError
from tfport.graph import _parse, _safety, inspect_graph


def _graph(nodes=(), functions=()):
    """A TF-free GraphDef: nodes are (name, op, inputs, {attr: function name}) tuples."""
    graph = protos.graph_def_class()()
    for name, op, inputs, funcs in nodes:
        _node(graph.node.add(), name, op, inputs, funcs)
    for fname, body in functions:
        fn = graph.library.function.add()
        fn.signature.name = fname
        for name, op, inputs, funcs in body:
            _node(fn.node_def.add(), name, op, inputs, funcs)
    return graph


def _node(node, name, op, inputs, funcs):
    node.name, node.op = name, op
    node.input.extend(inputs)
    for key, fname in funcs.items():
        node.attr[key].func.name = fname


def _write(tmp_path: pathlib.Path, graph) -> pathlib.Path:
    path = tmp_path / "g.pb"
    path.write_bytes(graph.SerializeToString())
    return path


def test_while_body_readfile_is_listed(while_readfile_pb):
    report = inspect_graph(str(while_readfile_pb))
    found = [u for u in report["graphs"][0]["unsafe"] if u["op"] == "ReadFile"]
    assert found, report["graphs"][0]["unsafe"]
    # TF2 builds the loop body as a library function: the ReadFile sits inside it.
    graph = _parse.read(str(while_readfile_pb)).graph_def
    bodies = [f.signature.name for f in graph.library.function if any(
        n.op == "ReadFile" for n in f.node_def)]  # fmt: skip
    assert found[0]["where"] == "function:" + bodies[0]
    assert found[0]["via"] and "body" in found[0]["via"]
    assert found[0]["blocking"] and report["blocking"]


def test_allow_ops_accepts(while_readfile_pb):
    report = inspect_graph(str(while_readfile_pb), allow_ops=["ReadFile"])
    assert report["blocking"] == []
    report = inspect_graph(str(while_readfile_pb), trust=True)
    assert report["blocking"] == [] and report["graphs"][0]["unsafe"]


@pytest.mark.parametrize("op", ["PyFunc", "EagerPyFunc", "WriteFile", "MatchingFiles"])
def test_unsafe_top_level_op(tmp_path, op):
    graph = _graph([("x", "Placeholder", [], {}), ("bad", op, ["x"], {})])
    report = inspect_graph(str(_write(tmp_path, graph)))
    assert [(u["node"], u["op"], u["where"]) for u in report["blocking"]] == [("bad", op, "graph")]


def test_unreferenced_function_is_scanned(tmp_path):
    graph = _graph([("x", "Placeholder", [], {})], [("unused", [("w", "WriteFile", [], {})])])
    (finding,) = inspect_graph(str(_write(tmp_path, graph)))["blocking"]
    assert finding["where"] == "function:unused" and finding["via"] is None


def test_function_reached_through_nested_attr(tmp_path):
    graph = _graph(
        [("call", "PartitionedCall", [], {"f": "outer"})],
        [
            ("outer", [("c", "If", [], {"then_branch": "leaf"})]),
            ("leaf", [("r", "ReadFile", [], {})]),
        ],
    )
    (finding,) = inspect_graph(str(_write(tmp_path, graph)))["blocking"]
    assert finding["where"] == "function:leaf"
    assert finding["via"] == "outer/c (If.then_branch)"


def test_function_called_as_op(tmp_path):
    graph = _graph([("call", "my_fn", [], {})], [("my_fn", [("p", "PyFunc", [], {})])])
    (finding,) = inspect_graph(str(_write(tmp_path, graph)))["blocking"]
    assert finding["via"] == "graph/call (op)"


def test_self_recursion_refused(tmp_path):
    graph = _graph([("call", "f", [], {})], [("f", [("again", "f", [], {})])])
    with pytest.raises(TfportInputError, match="recursive: f -> f"):
        inspect_graph(str(_write(tmp_path, graph)))


def test_absurd_call_depth_refused(tmp_path):
    depth = _safety.MAX_CALL_DEPTH + 5
    functions = [(f"f{i}", [("n", f"f{i + 1}", [], {})]) for i in range(depth)]
    functions.append((f"f{depth}", []))
    graph = _graph([("call", "f0", [], {})], functions)
    with pytest.raises(TfportInputError, match="levels deep"):
        inspect_graph(str(_write(tmp_path, graph)))


def test_long_but_legal_chain_is_fine(tmp_path):
    depth = _safety.MAX_CALL_DEPTH - 2
    functions = [(f"f{i}", [("n", f"f{i + 1}", [], {})]) for i in range(depth)]
    functions.append((f"f{depth}", [("r", "ReadFile", [], {})]))
    graph = _graph([("call", "f0", [], {})], functions)
    (finding,) = inspect_graph(str(_write(tmp_path, graph)))["blocking"]
    assert finding["where"] == f"function:f{depth}"


def test_deeply_nested_protobuf_refused(tmp_path):
    """Nested attributes beyond protobuf's recursion limit: a clean input error, no crash."""
    graph = protos.graph_def_class()()
    node = graph.node.add(name="n", op="PartitionedCall")
    attr = node.attr["f"].func
    for _ in range(200):
        attr.name = "g"
        attr = attr.attr["f"].func
    path = _write(tmp_path, graph)
    with pytest.raises(TfportInputError):
        inspect_graph(str(path))


def test_oversized_file_refused(tmp_path, frozen_dir):
    with pytest.raises(TfportInputError, match="over the limit"):
        _parse.read(str(frozen_dir / "frozen.pb"), max_bytes=100)


def test_function_named_graph_is_scanned(tmp_path):
    graph = _graph([("call", "graph", [], {})], [("graph", [("r", "ReadFile", [], {})])])
    (finding,) = inspect_graph(str(_write(tmp_path, graph)))["blocking"]
    assert finding["where"] == "function:graph" and finding["via"] == "graph/call (op)"
