"""Property test (hypothesis, issue 37): whatever bytes a GraphDef's NodeDefs hold (names
and ops written twice, or not at all), the op list the scan reads is protobuf's (and so
TensorFlow's), or the graph is refused."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tfport._common import protos
from tfport._common.errors import TfportInputError
from tfport.graph import _index

OPS = st.sampled_from(["Identity", "WriteFile", "Const", "ReadFile", "Neg", ""])
NAMES = st.text("abc/_", min_size=0, max_size=4)
NODE = st.tuples(st.lists(NAMES, max_size=3), st.lists(OPS, max_size=3), st.booleans())
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _field(number: int, value: bytes) -> bytes:
    assert len(value) < 128
    return bytes([number << 3 | 2, len(value)]) + value


def _node(names: list[str], ops: list[str], ops_first: bool) -> bytes:
    name_fields = b"".join(_field(1, n.encode()) for n in names)
    op_fields = b"".join(_field(2, o.encode()) for o in ops)
    return op_fields + name_fields if ops_first else name_fields + op_fields


@SETTINGS
@given(st.lists(NODE, min_size=1, max_size=8))
def test_the_scan_reads_every_node_as_protobuf(nodes):
    data = b"".join(_field(1, _node(*node)) for node in nodes)
    parsed = protos.graph_def_class().FromString(data)
    try:
        index = _index.GraphIndex(parsed, data)
    except TfportInputError as err:
        # refused: some node really writes its name or op other than once
        assert any(len(names) != 1 or len(ops) != 1 for names, ops, _ in nodes), err
        return
    assert index.ops == [n.op for n in parsed.node]
    assert index.names == [n.name for n in parsed.node]
    # a field written twice is always refused, even when both values agree
    assert all(len(names) <= 1 and len(ops) <= 1 for names, ops, _ in nodes)
