"""TensorFlow's protobuf message classes, built without importing TensorFlow.

Importing ``tensorflow.core.framework.graph_pb2`` runs ``tensorflow/__init__.py``
(about 4 s and the whole runtime). The generated ``*_pb2.py`` files of the
installed wheel each hold their serialized ``FileDescriptorProto`` as one bytes
literal; this module reads those literals (never executing the files), adds them
to a private descriptor pool and makes message classes from it. The private pool
keeps these classes apart from the ones TensorFlow registers when it is imported.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from tfport._common.errors import TfportOperationError, message


def _tf_root() -> str:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        raise TfportOperationError(
            message(
                "The tensorflow package is not installed, its .proto definitions are needed",
                "Install tensorflow-cpu==2.21.*",
            )
        )
    return list(spec.submodule_search_locations)[0]


def _serialized_from_source(path: str) -> bytes:
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "AddSerializedFile"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, bytes)
        ):
            return node.args[0].value
    raise TfportOperationError(
        message(f"No serialized descriptor found in {path}", "Reinstall tensorflow", path=path)
    )


def _serialized(proto_file: str) -> bytes:
    """Returns the serialized FileDescriptorProto of e.g. 'tensorflow/core/framework/x.proto'."""
    stem = proto_file[: -len(".proto")] + "_pb2"
    if proto_file.startswith("google/protobuf/"):
        module = importlib.import_module(stem.replace("/", "."))
        return module.DESCRIPTOR.serialized_pb
    if not proto_file.startswith("tensorflow/"):
        raise TfportOperationError(message("Unexpected .proto dependency", proto=proto_file))
    path = os.path.join(os.path.dirname(_tf_root()), stem + ".py")
    return _serialized_from_source(path)


def _add(pool: descriptor_pool.DescriptorPool, proto_file: str, done: set[str]) -> None:
    stack = [(proto_file, False)]
    while stack:
        name, ready = stack.pop()
        if name in done:
            continue
        data = _serialized(name)
        if ready:
            pool.AddSerializedFile(data)
            done.add(name)
            continue
        file_proto = descriptor_pb2.FileDescriptorProto.FromString(data)
        stack.append((name, True))
        stack.extend((dep, False) for dep in file_proto.dependency if dep not in done)


@functools.lru_cache(maxsize=1)
def _pool() -> descriptor_pool.DescriptorPool:
    pool = descriptor_pool.DescriptorPool()
    done: set[str] = set()
    for proto in (
        "tensorflow/core/framework/graph.proto",
        "tensorflow/core/protobuf/saved_model.proto",
        "tensorflow/core/protobuf/meta_graph.proto",
    ):
        _add(pool, proto, done)
    return pool


@functools.cache
def message_class(full_name: str) -> Any:
    """Returns the message class of a TensorFlow proto type, e.g. 'tensorflow.GraphDef'.

    Example:
        >>> GraphDef = message_class("tensorflow.GraphDef")
        >>> GraphDef().node
        []
    """
    return message_factory.GetMessageClass(_pool().FindMessageTypeByName(full_name))


def graph_def_class() -> Any:
    """Returns the (TF-free) `tensorflow.GraphDef` message class."""
    return message_class("tensorflow.GraphDef")


def saved_model_class() -> Any:
    """Returns the (TF-free) `tensorflow.SavedModel` message class."""
    return message_class("tensorflow.SavedModel")


def dtype_name(value: int) -> str:
    """Returns the lower-case dtype name ('float32', 'int64', ...) of a DataType enum value.

    Example:
        >>> dtype_name(1)
        'float32'
    """
    enum = _pool().FindEnumTypeByName("tensorflow.DataType")
    found = enum.values_by_number.get(value)
    if found is None:
        return f"unknown({value})"
    name = found.name[len("DT_") :].lower()
    return _DTYPE_ALIASES.get(name, name)


_DTYPE_ALIASES = {
    "float": "float32",
    "double": "float64",
    "half": "float16",
    "float_ref": "float32_ref",
    "double_ref": "float64_ref",
}


@functools.lru_cache(maxsize=1)
def _lite_graph_class() -> Any:
    """A wire-compatible view of GraphDef for fast scans of huge graphs.

    ``LiteGraph.node`` (field 1) is declared as ONE message, so protobuf merges every
    NodeDef into it; ``LiteNodes`` declares name=1, op=2, input=3 repeated, so the merge
    keeps all names, ops and inputs of the graph in order: three C-speed lists instead
    of millions of Python attribute reads. Other NodeDef fields stay unknown bytes.
    """
    file = descriptor_pb2.FileDescriptorProto(name="tfport_lite.proto", package="tfport_lite")
    file.syntax = "proto3"
    nodes = file.message_type.add(name="LiteNodes")
    for number, name in ((1, "name"), (2, "op"), (3, "input")):
        nodes.field.add(name=name, number=number, type=9, label=3)  # repeated string
    graph = file.message_type.add(name="LiteGraph")
    graph.field.add(name="node", number=1, type=11, label=1, type_name=".tfport_lite.LiteNodes")
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("tfport_lite.LiteGraph"))


def scan_nodes(data: bytes, count: int) -> tuple[list[str], list[str], list[str]] | None:
    """Returns (names, ops, all inputs) of the `count` nodes of a binary GraphDef, in bulk.

    Returns None when the bulk view cannot line names and ops up with the nodes (a node
    without name or op), so callers fall back to the per-node walk.

    Example:
        >>> scan_nodes(graph_def.SerializeToString(), len(graph_def.node))  # doctest: +SKIP
        (['input', ...], ['Placeholder', ...], ['input', 'hidden/kernel', ...])
    """
    merged = _lite_graph_class().FromString(data).node
    names, ops = list(merged.name), list(merged.op)
    if len(names) != count or len(ops) != count:
        return None
    return names, ops, list(merged.input)
