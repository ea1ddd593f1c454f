"""`inspect` of binary GraphDefs streams them in blocks: same report as the full parse."""

from __future__ import annotations

import pathlib

import pytest

from tfport._common import protos
from tfport._common.errors import TfportInputError
from tfport.graph import _inspect, _parse, _stream, inspect_graph
from tfport.graph._textstream import Limits


def _full(path: pathlib.Path) -> dict:
    return _inspect.describe(_parse.read(str(path)))


def _outcome(call, path: pathlib.Path):
    try:
        return call(str(path))
    except TfportInputError as err:
        return ("error", str(err))


def _graph(*nodes: tuple, producer: int = 27):
    graph = protos.graph_def_class()()
    graph.versions.producer = producer
    for name, op, inputs, *attrs in nodes:
        node = graph.node.add(name=name, op=op, input=list(inputs))
        for key, dtype in attrs:
            node.attr[key].type = dtype
    return graph


def _write(tmp_path: pathlib.Path, graph, name: str = "g.pb", tail: bytes = b"") -> pathlib.Path:
    path = tmp_path / name
    path.write_bytes(graph.SerializeToString() + tail)
    return path


def _chain(n: int, pad: int = 0):
    nodes = [("input", "Placeholder", [], ("dtype", 1))]
    for i in range(1, n):
        name = f"scope_{i // 7}/op_{i}" + "x" * (pad if i % 5 == 0 else 0)
        nodes.append((name, ("Relu", "Tanh", "Identity", "Neg")[i % 4], [nodes[-1][0]]))
    return nodes


GRAPHS = {
    "chain": _chain(300),
    "long_names": _chain(300, pad=200),  # nodes over 128 bytes: two-byte lengths
    "forward_reference": [
        ("b", "Relu", ["a:0", "^c"]),
        ("a", "Placeholder", [], ("dtype", 1)),
        ("c", "NoOp", []),
        ("out", "Identity", ["b"]),
    ],
    "identity_taps": [
        ("x", "Placeholder", [], ("dtype", 1)),
        ("p", "Placeholder", [], ("dtype", 10)),
        ("sw", "Switch", ["x", "p"]),
        ("tap", "Identity", ["sw:1"]),
        ("scope/y", "Relu", ["x"]),
        ("scope/y/read", "Identity", ["scope/y"]),
        ("z", "IdentityN", ["x", "x"]),
        ("const", "Const", []),
    ],
    "unsafe": [
        ("x", "Placeholder", [], ("dtype", 1)),
        ("f", "ReadFile", ["x"]),
        ("w", "WriteFile", ["x", "f"]),
        ("call", "PartitionedCall", ["x"]),
        ("y", "Relu", ["x"]),
    ],
    "duplicates": [
        ("x", "Placeholder", [], ("dtype", 1)),
        ("y", "Relu", ["x"]),
        ("y", "Tanh", ["x"]),
    ],
    "dangling": [("x", "Placeholder", [], ("dtype", 1)), ("y", "Relu", ["gone:0"])],
    "nameless": [("x", "Placeholder", [], ("dtype", 1)), ("", "Relu", ["x"])],
    "opless": [("x", "Placeholder", [], ("dtype", 1)), ("y", "", ["x"])],
}


@pytest.mark.parametrize("block", [1 << 20, 64])
@pytest.mark.parametrize("case", sorted(GRAPHS))
def test_streamed_report_is_the_full_parse_report(tmp_path, monkeypatch, case, block):
    monkeypatch.setattr(_stream, "BLOCK", block)
    path = _write(tmp_path, _graph(*GRAPHS[case]))
    assert _outcome(inspect_graph, path) == _outcome(_full, path)


def test_plain_graphs_are_streamed(tmp_path, monkeypatch):
    monkeypatch.setattr(_stream, "BLOCK", 256)
    path = _write(tmp_path, _graph(*GRAPHS["long_names"]))
    summary = _stream.summarize(str(path), Limits())
    assert summary is not None and summary.nodes == 300
    assert summary.sinks == ["scope_42/op_299"]


@pytest.mark.parametrize("case", ["dangling", "nameless", "opless", "duplicates"])
def test_odd_graphs_fall_back_to_the_full_parse(tmp_path, case):
    path = _write(tmp_path, _graph(*GRAPHS[case]))
    assert _stream.summarize(str(path), Limits()) is None


@pytest.mark.parametrize(
    "tail",
    [b"\x0a\x20abc", b"\x0a", b"\xa2\x06\x01x", b"\x12\x05\x0a\x03\x0a\x01f"],
    ids=["truncated_node", "truncated_length", "unknown_field", "library"],
)
def test_odd_streams_fall_back_to_the_full_parse(tmp_path, tail):
    path = _write(tmp_path, _graph(*GRAPHS["chain"]), tail=tail)
    assert _stream.summarize(str(path), Limits()) is None
    assert _outcome(inspect_graph, path) == _outcome(_full, path)


def test_corrupt_node_is_still_refused(tmp_path):
    graph = _graph(*GRAPHS["chain"])
    data = bytearray(graph.SerializeToString())
    attr = data.index(b"dtype")
    data[attr - 3] = 0xFF  # breaks the attr map entry inside the first node
    path = tmp_path / "corrupt.pb"
    path.write_bytes(bytes(data))
    assert _outcome(inspect_graph, path) == _outcome(_full, path)


def test_node_limit(tmp_path):
    path = _write(tmp_path, _graph(*GRAPHS["chain"]))
    limits = Limits(max_nodes=100)
    assert _stream.summarize(str(path), limits) is None
    with pytest.raises(TfportInputError, match="over the limit of 100"):
        inspect_graph(str(path), limits=limits)
