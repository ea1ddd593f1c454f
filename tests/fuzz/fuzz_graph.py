"""Graph fuzz cases: mutations of real GraphDefs/SavedModels and crafted unsafe graphs.

`run_case` classifies one case: ``refused`` (one-line TfportError), ``equal`` (the
inspect report and the conversion plan match the unmutated input's), ``changed``
(accepted, and the report shows the difference); failures: ``traceback``,
``multiline``, ``missed_unsafe`` (a crafted unsafe graph passes the safety scan).
"""

from __future__ import annotations

import os
import random
import shutil

from tfport._common import protos
from tfport._common.errors import TfportError
from tfport.graph import _parse, _plan, inspect_graph

FAILURES = ("traceback", "multiline", "missed_unsafe", "hang", "signal", "memory")


def _function(graph, name: str, op: str, **attrs: str):
    function = graph.library.function.add()
    function.signature.name = name
    node = function.node_def.add(name="n", op=op)
    for key, value in attrs.items():
        node.attr[key].func.name = value
    return function


def crafted(kind: str, rng: random.Random):
    """A GraphDef that must be refused or flagged: returns (graph, must_block)."""
    graph = protos.graph_def_class()()
    graph.node.add(name="x", op="Placeholder").attr["dtype"].type = 1
    if kind == "partitioned_call_primitive":
        call = graph.node.add(
            name="call", op=rng.choice(["PartitionedCall", "StatefulPartitionedCall"])
        )
        call.attr["f"].func.name = rng.choice(
            ["WriteFile", "ReadFile", "PyFunc", "ShardedFilename"]
        )
        call.input.append("x")
    elif kind == "function_node_without_op":
        _function(graph, "f", "")
        graph.node.add(name="call", op="f", input=["x"])
    elif kind == "deep_chain":
        depth = rng.choice([1001, 1500])
        for i in range(depth):
            _function(graph, f"f{i}", f"f{i + 1}" if i + 1 < depth else "Identity")
        graph.node.add(name="call", op="f0", input=["x"])
    elif kind == "recursion":
        _function(graph, "f", "PartitionedCall", f="g")
        _function(graph, "g", "PartitionedCall", f="f")
        graph.node.add(name="call", op="f", input=["x"])
    elif kind == "nested_attr":
        node = graph.node.add(name="call", op="PartitionedCall", input=["x"])
        func = node.attr["f"].func
        for _ in range(1100):
            func.name = "Identity"
            func = func.attr["inner"].func
    else:  # unsafe op hidden in a while body
        _function(graph, "body", rng.choice(["WriteFile", "ReadFile", "PyFunc"]))
        node = graph.node.add(name="loop", op="While", input=["x"])
        node.attr["body"].func.name = "body"
    return graph


CRAFTED = (
    "partitioned_call_primitive",
    "function_node_without_op",
    "deep_chain",
    "recursion",
    "nested_attr",
    "while_body_unsafe",
)


def _report(path: str) -> tuple:
    report = inspect_graph(path)
    art = _parse.read(path)
    if art.kind == "graph_def":
        plan = _plan.plan_frozen(art, None, None, (), False)
    else:
        plan = _plan.plan_saved_model(art, None, (), False)
    report.pop("path")
    return repr(report), sorted(plan.signatures)


def mutate_bytes(data: bytes, rng: random.Random) -> tuple[str, bytes]:
    """Byte flips, truncation, insertion or deletion of a run of bytes."""
    buf = bytearray(data)
    kind = rng.choice(["flip", "flip", "trunc", "insert", "delete", "varint"])
    pos = rng.randrange(len(buf))
    if kind == "flip":
        buf[pos] ^= 1 << rng.randrange(8)
    elif kind == "trunc":
        del buf[pos:]
    elif kind == "insert":
        buf[pos:pos] = bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 8)))
    elif kind == "delete":
        del buf[pos : pos + rng.randint(1, 8)]
    else:
        buf[pos] = rng.choice([0x80, 0xFF, 0x7F, 0x00])
    return kind, bytes(buf)


def run_case(workdir: str, bases: dict[str, str], expected: dict[str, tuple], seed: int):
    """One graph case; returns (mutation, class)."""
    rng = random.Random(seed)
    case = os.path.join(workdir, f"g{seed}")
    shutil.rmtree(case, ignore_errors=True)
    os.makedirs(case)
    must_block = False
    try:
        if rng.random() < 0.15:
            kind = rng.choice(CRAFTED)
            path = os.path.join(case, "crafted.pb")
            with open(path, "wb") as f:
                f.write(crafted(kind, rng).SerializeToString())
            base, must_block = None, True
        else:
            base = rng.choice(sorted(bases))
            src = bases[base]
            if os.path.isdir(src):
                path = os.path.join(case, "sm")
                shutil.copytree(src, path)
                target = os.path.join(path, "saved_model.pb")
            else:
                path = target = os.path.join(case, os.path.basename(src))
                shutil.copyfile(src, path)
            with open(target, "rb") as f:
                kind, data = mutate_bytes(f.read(), rng)
            with open(target, "wb") as f:
                f.write(data)
        try:
            got = _report(path)
        except TfportError as err:
            return kind, "multiline" if "\n" in str(err) else "refused"
        if must_block:
            return kind, "missed_unsafe"
        return kind, "equal" if got == expected[base] else "changed"
    except Exception as err:  # noqa: BLE001 - the point of a fuzzer
        return kind, f"traceback:{type(err).__name__}:{str(err)[:120]}"
    finally:
        shutil.rmtree(case, ignore_errors=True)


def expected_reports(bases: dict[str, str]) -> dict[str, tuple]:
    """The reports of the unmutated bases."""
    return {name: _report(path) for name, path in bases.items()}
