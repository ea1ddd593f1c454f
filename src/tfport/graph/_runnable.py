"""The one safety policy of everything that runs an artifact (TensorFlow-free).

`tfport verify`, `graph convert --verify` and `graph.load_frozen` call
:func:`check_runnable` before TensorFlow sees the artifact: the whole artifact is
scanned (the main graph, every function of the library, the init/main ops and what they
reach; the saver's own ops are accepted only because tfport never runs them: variables
are read from the checkpoint bundle by :func:`variable_values`, with tfport's reader; a
TF2 SavedModel's functions are scanned as its object graph names them, which is what
`tf.saved_model.load` runs, with no saver exemption),
its constants are held to a size limit, and anything outside the safe list is refused in
one line unless the user trusts the artifact.

Example:
    >>> art = check_runnable("model.pb")  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from tfport._common import protos
from tfport._common.errors import TfportInputError, message
from tfport._common.messages import GraphDef, NodeDef
from tfport.graph import _parse, _plan, _safety, _savedmodel
from tfport.graph._textstream import Limits

_ITEMSIZE = {"string": 8, "resource": 8, "variant": 8, "bool": 1}
_VARIABLE_SIZE = frozenset({"string", "resource", "variant"})


def check_runnable(
    path: str,
    *,
    trust: bool = False,
    allow_ops: Iterable[str] = (),
    limits: Limits | None = None,
) -> _parse.Artifact:
    """Parses `path` and refuses it if running it could touch files, the network or Python.

    Args:
        path: a frozen `.pb`/`.pbtxt` GraphDef or a SavedModel folder (TF1 or TF2).
        trust: accept every op (constants are still held to `limits.max_const_bytes`).
        allow_ops: more op types to accept.
        limits: parsing, scanning and constant-size limits.

    Returns:
        The parsed artifact.

    Raises:
        TfportInputError: an unsafe op (its type and where it is), a constant over the
            limit or with short `tensor_content`, an unreadable artifact.

    Example:
        >>> check_runnable("saved_model_dir", trust=False)  # doctest: +SKIP
    """
    limits = limits or Limits()
    art = _parse.read(path, limits=limits)
    allow = tuple(allow_ops)
    if art.kind == "graph_def":
        graphs: list[tuple[Any, Any, list[str]]] = [(art.graph_def, None, [])]
    else:
        graphs = [
            (m.graph_def, _savedmodel.roles(m, True), _savedmodel.loaded_functions(m))
            for m in art.saved_model.meta_graphs
        ]
    for graph_def, roles, loaded in graphs:
        scan = _safety.scan(
            graph_def,
            allow,
            roles,
            trust,
            limits.max_depth,
            limits.max_nodes,
            init_runs=True,
            loaded=loaded,
        )
        _plan.refuse_unsafe(scan, path)
        check_constants(graph_def, limits.max_const_bytes, path)
    return art


def is_tf2_saved_model(path: str, limits: Limits | None = None) -> bool:
    """Whether the SavedModel folder `path` was written by TF2 (it has an object graph).

    Example:
        >>> is_tf2_saved_model("exported")  # doctest: +SKIP
        True
    """
    art = _parse.read(path, limits=limits or Limits())
    return art.kind == "saved_model" and any(
        _savedmodel.is_tf2(m) for m in art.saved_model.meta_graphs
    )


def nbytes(dims: list[int], dtype: int) -> int:
    """Bytes of a dense tensor of these dims (unknown dims count as 1) and DataType enum.

    Example:
        >>> nbytes([2, 3], 1)  # float32
        24
    """
    name = protos.dtype_name(dtype)
    try:
        size = _ITEMSIZE.get(name) or np.dtype(name if name != "bfloat16" else "float16").itemsize
    except TypeError:
        size = 8
    return math.prod(max(d, 1) for d in dims) * size


def _nodes(graph_def: GraphDef) -> Iterator[tuple[str, NodeDef]]:
    for node in graph_def.node:
        yield "graph", node
    for function in graph_def.library.function:
        for node in function.node_def:
            yield "function:" + function.signature.name, node


def check_constants(graph_def: GraphDef, limit: int, path: str) -> None:
    """Refuses a `Const` (main graph or function) over `limit` bytes or with a short
    `tensor_content`, before anything materialises it.

    Example:
        >>> check_constants(graph_def, 1 << 30, "model.pb")  # doctest: +SKIP
    """
    for where, node in _nodes(graph_def):
        if node.op != "Const" or "value" not in node.attr:
            continue
        tensor = node.attr["value"].tensor
        dims = [d.size for d in tensor.tensor_shape.dim]
        size = nbytes(dims, tensor.dtype)
        if size > limit:
            raise TfportInputError(
                message(
                    f"{path}: Const {where}/{node.name} would take {size} bytes once built, "
                    f"over the limit of {limit}",
                    "Raise the limit with --max-const-bytes if the graph is real",
                    node=node.name,
                    nbytes=size,
                )
            )
        content = len(tensor.tensor_content)
        fixed = protos.dtype_name(tensor.dtype) not in _VARIABLE_SIZE
        if content and fixed and content != size and min(dims, default=1) >= 0:
            raise TfportInputError(
                message(
                    f"{path}: Const {where}/{node.name} holds {content} bytes of "
                    f"tensor_content where its shape {dims} needs {size}",
                    "The graph is damaged: re-export it",
                    node=node.name,
                    tensor_content_bytes=content,
                )
            )


def variable_values(plan: _plan.Plan) -> dict[str, np.ndarray]:
    """The values of the plan's variables, read from its checkpoint bundle by tfport's
    TF-free reader (the SavedModel's own restore/save ops never run).

    A partition (`w/part_0`) is sliced out of the full variable stored under `w`.

    Raises:
        TfportInputError: a variable missing from the bundle, or an unreadable bundle
            (a `CheckpointError`).

    Example:
        >>> variable_values(plan)["dense/kernel"].shape  # doctest: +SKIP
        (4, 2)
    """
    if not plan.variables:
        return {}
    from tfport.checkpoint import CheckpointReader

    defs = {n: plan.variable_defs.get(n, {"key": n}) for n in plan.variables}
    with CheckpointReader(plan.checkpoint or "") as reader:
        missing = sorted(n for n, d in defs.items() if d["key"] not in reader)
        if missing:
            raise TfportInputError(
                message(
                    f"Variables {missing[:5]} of {plan.source} are not in its variables/ "
                    "checkpoint",
                    "Pass a complete SavedModel (or --trust to let TensorFlow's loader "
                    "restore them)",
                    missing=len(missing),
                )
            )
        return {name: _value(reader.read(d["key"]), d) for name, d in defs.items()}


def _value(value: np.ndarray, spec: dict[str, Any]) -> np.ndarray:
    if spec.get("offset") is None:
        return value
    offset, shape = spec["offset"], spec["shape"]
    if len(offset) != value.ndim or len(shape) != value.ndim:
        raise TfportInputError(
            message(
                "A partitioned variable's slice does not match the stored variable",
                "The SavedModel is damaged: re-export it",
                key=spec["key"],
                offset=offset,
                stored_shape=list(value.shape),
            )
        )
    index = tuple(slice(o, o + s) for o, s in zip(offset, shape, strict=True))
    part = value[index]
    if list(part.shape) != list(shape):
        raise TfportInputError(
            message(
                "A partitioned variable's slice reaches past the stored variable",
                "The SavedModel is damaged: re-export it",
                key=spec["key"],
                offset=offset,
                stored_shape=list(value.shape),
            )
        )
    return part
