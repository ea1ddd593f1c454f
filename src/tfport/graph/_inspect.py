"""`inspect`: what a GraphDef or SavedModel holds, read without TensorFlow."""

from __future__ import annotations

import collections
import os
from collections.abc import Iterable, Mapping
from typing import Any

from tfport._common import protos
from tfport._common.messages import FunctionDef, GraphDef, MetaGraphDef, NodeDef
from tfport.graph import _index, _ops, _parse, _safety, _savedmodel, _stream
from tfport.graph._reports import GraphReport, InspectReport, UnsafeNode
from tfport.graph._textstream import Limits


def inspect_graph(
    path: str, allow_ops: Iterable[str] = (), trust: bool = False, limits: Limits | None = None
) -> InspectReport:
    """Describes a frozen GraphDef (.pb/.pbtxt) or a SavedModel folder, never executing it.

    Args:
        path: a GraphDef file or a SavedModel folder.
        allow_ops: op types to accept besides the safe list.
        trust: accept every op (unsafe ops are still listed, none blocks).
        limits: node count, call depth and size limits (default :class:`Limits`).

    Returns:
        A JSON-ready dict: format, bytes, graphs (inputs, outputs, op histogram, functions,
        unsafe ops...), and for SavedModels the tags, signatures, variables and init ops.
        ``report["blocking"]`` lists the unsafe nodes that would stop a conversion.

    Raises:
        TfportInputError: unreadable input, recursive or absurdly nested graphs.

    Examples:
        >>> report = inspect_graph("frozen.pb")  # doctest: +SKIP
        >>> report["graphs"][0]["inputs"]  # doctest: +SKIP
        [{'name': 'input:0', 'dtype': 'float32', 'shape': [None, 4]}]
    """
    limits = limits or Limits()
    if _parse.is_binary_graph_def(path):
        summary = _stream.summarize(path, limits)
        if summary is not None:
            return _summary_report(path, summary, tuple(allow_ops), trust, limits)
    art = _parse.read(path, limits=limits)
    return describe(art, allow_ops, trust)


def _summary_report(
    path: str, summary: _stream.Summary, allow: tuple[str, ...], trust: bool, limits: Limits
) -> InspectReport:
    """The report of a binary GraphDef streamed by :func:`_stream.summarize`."""
    sparse = summary.sparse
    result = _safety.scan(sparse, allow, None, trust, limits.max_depth, limits.max_nodes)
    graph: GraphReport = {
        "nodes": summary.nodes,
        "bytes": summary.nbytes,
        "producer": sparse.versions.producer,
        "inputs": [_placeholder(n) for n in sparse.node if n.op == "Placeholder"],
        "outputs": [name + ":0" for name in summary.sinks],
        "op_histogram": dict(summary.histogram.most_common()),
        "functions": [],
        "unsafe": _unsafe(result),
        "unbounded": _unbounded(summary.histogram, sparse),
    }
    return {
        "path": path,
        "format": "graph_def",
        "bytes": summary.nbytes,
        "graphs": [graph],
        "blocking": [u for u in graph["unsafe"] if u["blocking"]],
    }


def describe(
    art: _parse.Artifact, allow_ops: Iterable[str] = (), trust: bool = False
) -> InspectReport:
    """Like :func:`inspect_graph` for an already parsed artifact."""
    allow = tuple(allow_ops)
    report: InspectReport = {
        "path": art.path,
        "format": ("saved_model" if art.kind == "saved_model" else "graph_def")
        + ("_text" if art.text else ""),
        "bytes": art.size,
    }
    if art.kind == "graph_def":
        report["graphs"] = [_graph_report(art.graph_def, allow, trust, art.limits)]
    else:
        report["saved_model_version"] = art.saved_model.saved_model_schema_version
        metas = art.saved_model.meta_graphs
        report["graphs"] = [_meta_report(m, allow, trust, art.limits) for m in metas]
        report["assets"] = _assets(art.path)
    report["blocking"] = [u for g in report["graphs"] for u in g["unsafe"] if u["blocking"]]
    return report


def _graph_report(
    graph_def: GraphDef,
    allow: tuple[str, ...],
    trust: bool,
    limits: Limits,
    roles: dict[str, str] | None = None,
    loaded: list[str] | None = None,
) -> GraphReport:
    result = _safety.scan(
        graph_def, allow, roles, trust, limits.max_depth, limits.max_nodes, loaded=loaded or ()
    )
    index = _index.index(graph_def)
    histogram = collections.Counter(index.ops)
    return {
        "nodes": len(index.ops),
        "bytes": index.nbytes,
        "producer": graph_def.versions.producer,
        "inputs": [_placeholder(n) for n in index.placeholders()],
        "outputs": [name + ":0" for name in index.sinks(_ops.NO_OUTPUT_OPS)],
        "op_histogram": dict(histogram.most_common()),
        "functions": [_function(f, result.via) for f in graph_def.library.function],
        "unsafe": _unsafe(result),
        "unbounded": _unbounded(histogram, graph_def),
    }


def _unbounded(histogram: Mapping[str, int], graph_def: GraphDef) -> dict[str, int]:
    """Op -> how many nodes (main graph and functions) have an output size no scan bounds."""
    found = collections.Counter({op: n for op, n in histogram.items() if op in _ops.UNBOUNDED_OPS})
    for function in graph_def.library.function:
        found.update(n.op for n in function.node_def if n.op in _ops.UNBOUNDED_OPS)
    return dict(sorted(found.items()))


def _unsafe(result: _safety.Scan) -> list[UnsafeNode]:
    return [
        {
            "node": f.node,
            "op": f.op,
            "where": f.where,
            "via": f.via,
            "role": f.role,
            "blocking": f.blocking,
        }
        for f in result.findings
    ]


def _meta_report(
    meta: MetaGraphDef, allow: tuple[str, ...], trust: bool, limits: Limits
) -> GraphReport:
    report: GraphReport = {
        "tags": list(meta.meta_info_def.tags),
        "tf2_object_graph": _savedmodel.is_tf2(meta),
        "signatures": {
            key: _savedmodel.describe_signature(sig)
            for key, sig in sorted(_savedmodel.signatures(meta).items())
        },
        "variables": _savedmodel.variables(meta.graph_def),
        "init_ops": _savedmodel.init_ops(meta),
        "saver": {
            "restore_op": meta.saver_def.restore_op_name or None,
            "save_tensor": meta.saver_def.save_tensor_name or None,
        },
    }
    graph = _graph_report(
        meta.graph_def,
        allow,
        trust,
        limits,
        _savedmodel.roles(meta),
        _savedmodel.loaded_functions(meta),
    )
    graph["outputs"] = sorted(
        {t["name"] for sig in report["signatures"].values() for t in sig["outputs"].values()}
    )
    report.update(graph)
    return report


def _placeholder(node: NodeDef) -> dict[str, Any]:
    shape = node.attr["shape"].shape if "shape" in node.attr else None
    return {
        "name": node.name + ":0",
        "dtype": protos.dtype_name(node.attr["dtype"].type),
        "shape": _index.shape_of(shape) if shape is not None else None,
    }


def _function(function: FunctionDef, via: dict[str, str]) -> dict[str, Any]:
    return {
        "name": function.signature.name,
        "nodes": len(function.node_def),
        "inputs": [a.name for a in function.signature.input_arg],
        "outputs": [a.name for a in function.signature.output_arg],
        "used_by": via.get(function.signature.name),
    }


def _assets(path: str) -> list[str]:
    folder = os.path.join(path, "assets")
    if not os.path.isdir(folder):
        return []
    return sorted(
        os.path.relpath(os.path.join(root, name), folder)
        for root, _, names in os.walk(folder)
        for name in names
    )
