"""The typed shapes of the graph reports (`inspect_graph`, `convert`).

Each is a plain dict at run time (JSON-able, `tfport graph ... --json` prints it as is);
the TypedDicts let the type checker verify every key the CLI and callers read.

Example:
    >>> node: UnsafeNode = {"node": "w", "op": "WriteFile", "where": "graph", "via": None,
    ...     "role": "signature", "blocking": True}
    >>> node["blocking"]
    True
"""

from __future__ import annotations

from typing import Any, TypedDict


class UnsafeNode(TypedDict):
    """A node whose op is not on the allow-list (the fields of `_safety.Finding`)."""

    node: str
    op: str
    where: str
    via: str | None
    role: str
    blocking: bool


class SignatureReport(TypedDict, total=False):
    """A signature's tensors by key: `{"name", "dtype", "shape"}` in `inspect_graph`, the
    tensor name in `convert`; `method_name` in `inspect_graph`."""

    method_name: str
    inputs: dict[str, Any]
    outputs: dict[str, Any]


class GraphReport(TypedDict, total=False):
    """One GraphDef (a frozen graph, or a SavedModel's MetaGraph: then also its tags,
    signatures, variables, init ops and saver)."""

    nodes: int
    bytes: int
    producer: int
    inputs: list[dict[str, Any]]
    outputs: list[str]
    op_histogram: dict[str, int]
    functions: list[dict[str, Any]]
    unsafe: list[UnsafeNode]
    unbounded: dict[str, int]  # op -> nodes (graph and functions) whose output size is unbounded
    tags: list[str]
    tf2_object_graph: bool
    signatures: dict[str, SignatureReport]
    variables: list[dict[str, Any]]
    init_ops: dict[str, list[str]]
    saver: dict[str, str | None]


class InspectReport(TypedDict, total=False):
    """`inspect_graph`: the artifact's format and size, one `GraphReport` per graph, and
    the unsafe nodes that block running it (`blocking`)."""

    path: str
    format: str
    bytes: int
    graphs: list[GraphReport]
    blocking: list[UnsafeNode]
    saved_model_version: int
    assets: list[str]


class VerifyResult(TypedDict):
    """`convert(..., verify=True)`: max absolute difference per signature and output."""

    atol: float
    max_abs_diff: dict[str, dict[str, float]]
    passed: bool


class ConvertReport(TypedDict, total=False):
    """`convert`: what was written, its signatures and, with `verify`, the comparison."""

    source: str
    output: str
    kind: str
    signatures: dict[str, SignatureReport]
    verify: VerifyResult
