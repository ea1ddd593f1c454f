"""Safety from the command line: `graph inspect` / `convert` refuse an unsafe or recursive
graph with exit 2 and one line. The graphs are those of the in-process checks
(tests/unit/graph/test_graph_safety.py)."""

from __future__ import annotations

import json

import pytest
from graph_helpers import error_lines, run_cli
from tests.unit.graph.test_graph_safety import _graph, _write

from tfport._common.errors import TfportInputError
from tfport.graph import inspect_graph


def test_while_body_readfile_refused_by_cli(while_readfile_pb, tmp_path):
    proc = run_cli("graph", "inspect", while_readfile_pb, "--json")
    assert proc.returncode == 2
    assert any(u["op"] == "ReadFile" for u in json.loads(proc.stdout)["blocking"])
    (line,) = error_lines(proc.stderr)
    assert "ReadFile" in line and "--allow-ops" in line
    out = tmp_path / "out"
    proc = run_cli("graph", "convert", while_readfile_pb, out)
    assert proc.returncode == 2, proc.stderr
    assert "ReadFile" in error_lines(proc.stderr)[0]
    assert not out.exists()


def test_mutual_recursion_through_while_refused(tmp_path):
    graph = _graph(
        [("loop", "While", [], {"body": "a", "cond": "c"})],
        [
            ("a", [("n", "StatelessIf", [], {"then_branch": "b"})]),
            ("b", [("m", "While", [], {"body": "a"})]),
            ("c", []),
        ],
    )
    path = _write(tmp_path, graph)
    with pytest.raises(TfportInputError, match="recursive"):
        inspect_graph(str(path))
    proc = run_cli("graph", "inspect", path)
    assert proc.returncode == 2 and "recursive" in error_lines(proc.stderr)[0]
