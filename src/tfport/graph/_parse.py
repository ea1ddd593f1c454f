"""Reads frozen GraphDefs (.pb/.pbtxt) and SavedModels with protobuf alone (no TensorFlow).

Every failure is a one-line :class:`TfportInputError`: a missing path, a file too
large, bytes that are no GraphDef, a truncated file, a text-format syntax error,
a folder that is no SavedModel.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from google.protobuf.unknown_fields import UnknownFieldSet

from tfport._common import protos
from tfport._common.errors import TfportInputError, message, os_error
from tfport._common.messages import GraphDef
from tfport.graph import _index, _textstream
from tfport.graph._textstream import Limits

TEXT_SUFFIXES = (".pbtxt", ".pbtext", ".txt", ".prototxt")
SAVED_MODEL_FILES = ("saved_model.pb", "saved_model.pbtxt")


@dataclasses.dataclass
class Artifact:
    """A parsed input: a frozen GraphDef or a SavedModel.

    Attributes:
        path: the path given.
        kind: "graph_def" or "saved_model".
        text: whether it was read from protobuf text format.
        size: bytes read.
        graph_def: the GraphDef (kind "graph_def").
        saved_model: the SavedModel message (kind "saved_model").
    """

    path: str
    kind: str
    text: bool
    size: int
    graph_def: Any = None
    saved_model: Any = None
    limits: Limits = dataclasses.field(default_factory=Limits)


def read(path: str, max_bytes: int | None = None, limits: Limits | None = None) -> Artifact:
    """Parses a `.pb`/`.pbtxt` GraphDef or a SavedModel folder without TensorFlow.

    Args:
        path: a GraphDef file or a SavedModel folder.
        max_bytes: larger files are refused before they are read (default: the limits').
        limits: node count, depth and size limits (default :class:`Limits`).

    Returns:
        The parsed :class:`Artifact`.

    Raises:
        TfportInputError: the path is missing, too large or not a valid GraphDef/SavedModel.

    Example:
        >>> art = read("frozen.pb")  # doctest: +SKIP
        >>> art.kind  # doctest: +SKIP
        'graph_def'
    """
    limits = limits or Limits()
    if max_bytes is not None:
        limits = dataclasses.replace(limits, max_bytes=max_bytes)
    if not os.path.exists(path):
        raise TfportInputError(
            message(
                f"{path} does not exist", "Pass a .pb/.pbtxt file or a SavedModel folder", path=path
            )
        )
    if os.path.isdir(path):
        return _read_saved_model(path, limits)
    if os.path.basename(path) in SAVED_MODEL_FILES:
        return _read_saved_model(os.path.dirname(path) or ".", limits)
    text = path.lower().endswith(TEXT_SUFFIXES)
    graph_def, data = _parse(path, protos.graph_def_class(), text, limits, "GraphDef")
    _check_graph_def(graph_def, path, limits, None if text else data)
    return Artifact(path, "graph_def", text, len(data), graph_def=graph_def, limits=limits)


def is_binary_graph_def(path: str) -> bool:
    """Whether `path` names a binary GraphDef file (not a SavedModel, not text format)."""
    path = os.fspath(path)
    return (
        os.path.isfile(path)
        and os.path.basename(path) not in SAVED_MODEL_FILES
        and not path.lower().endswith(TEXT_SUFFIXES)
    )


def _read_saved_model(path: str, limits: Limits) -> Artifact:
    for name in SAVED_MODEL_FILES:
        file = os.path.join(path, name)
        if os.path.isfile(file):
            break
    else:
        raise TfportInputError(
            message(
                f"Folder {path} is not a SavedModel (no saved_model.pb or saved_model.pbtxt in it)",
                "Pass the SavedModel folder itself (often a numbered export folder) or a .pb file",
                path=path,
            )
        )
    text = file.endswith(".pbtxt")
    saved, _ = _parse(file, protos.saved_model_class(), text, limits, "SavedModel")
    if not saved.meta_graphs:
        raise TfportInputError(
            message(f"{file} holds no MetaGraph", "Re-export the SavedModel", path=file)
        )
    for meta in saved.meta_graphs:
        _check_graph_def(meta.graph_def, file, limits)
    return Artifact(
        path, "saved_model", text, os.path.getsize(file), saved_model=saved, limits=limits
    )


def _parse(file: str, cls: Any, text: bool, limits: Limits, what: str) -> tuple[Any, bytes]:
    try:
        size = os.path.getsize(file)
        if size > limits.max_bytes:
            raise TfportInputError(
                message(
                    f"{file} is {size} bytes, over the limit of {limits.max_bytes}",
                    "Pass a smaller file or raise the limit with --max-bytes",
                    path=file,
                )
            )
        with open(file, "rb") as f:
            data = f.read(min(size, limits.max_bytes) + 1)  # not a buffer of max_bytes
    except OSError as err:
        raise os_error(err, f"Cannot read {file}") from None
    if text and what == "GraphDef":
        return _textstream.parse_graph_text(data, file, limits), data
    if text:
        return _parse_text(data, cls, file, what), data
    return _parse_binary(data, cls, file, what), data


def _parse_binary(data: bytes, cls: Any, file: str, what: str) -> Any:
    msg = protos.parse_binary(data, cls, file, what)
    if len(UnknownFieldSet(msg)):
        raise TfportInputError(
            message(
                f"{file} is not a binary {what} (it holds fields a {what} does not have)",
                "Pass a frozen GraphDef (.pb/.pbtxt) or a SavedModel folder",
                path=file,
            )
        )
    return msg


def _parse_text(data: bytes, cls: Any, file: str, what: str) -> Any:
    return protos.parse_text(data, cls, file, what)


def _check_graph_def(
    graph_def: GraphDef, file: str, limits: Limits, data: bytes | None = None
) -> None:
    if not graph_def.node and not graph_def.library.function:
        raise TfportInputError(
            message(f"{file} holds an empty graph (no nodes)", "Pass a frozen graph", path=file)
        )
    functions = graph_def.library.function
    total = len(graph_def.node) + sum(len(f.node_def) for f in functions)
    if total > limits.max_nodes:
        raise _textstream.too_many_nodes(total, file, limits)
    index = _index.index(graph_def, data)
    bad = "" in index.names or "" in index.ops
    for function in functions if not bad else ():
        if any(not node.op or not node.name for node in function.node_def):
            bad = True
            break
    if bad:
        raise TfportInputError(
            message(f"{file} holds a node without name or op", "Pass an intact graph", path=file)
        )
    names = index.name_set
    if index.consumed <= names:
        return
    for node in graph_def.node:
        for inp in node.input:
            if _index.input_node(inp) not in names:
                raise TfportInputError(
                    message(
                        f"{file} is incomplete: node {node.name!r} reads {inp!r}, which is not"
                        " in the graph (truncated file?)",
                        "Pass an intact graph",
                        path=file,
                    )
                )


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:200]
