"""TensorFlow's protobuf messages without importing TensorFlow: the one proto layer of tfport.

Importing ``tensorflow.core.framework.graph_pb2`` runs ``tensorflow/__init__.py``
(seconds, and the whole C++ runtime). The generated ``*_pb2.py`` files of the
installed wheel each hold their serialized ``FileDescriptorProto`` as one bytes
literal; this module reads those literals (never executing the files), adds them
to a private descriptor pool, on demand, and makes message classes from it. The
private pool keeps these classes apart from the ones TensorFlow registers when it
is imported; the wire format is TensorFlow's own, field for field.

Text format goes through protobuf's ``text_format`` (with this pool, so ``Any``
fields resolve), binary through the C parser; :func:`parse_binary` and
:func:`parse_text` turn every decode error into one :class:`TfportInputError` line.

Example:
    >>> Entry = message_class("tensorflow.BundleEntryProto")
    >>> Entry.FromString(Entry(shard_id=1).SerializeToString()).shard_id
    1
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import os
import re
import threading
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, text_format
from google.protobuf import message as pb_message

from tfport._common.errors import TfportInputError, TfportOperationError, message

_FRAMEWORK = "tensorflow/core/framework/"
_PROTOBUF = "tensorflow/core/protobuf/"
# Message full name -> the .proto file that defines it (its dependencies follow).
_HOME = {
    "tensorflow.GraphDef": _FRAMEWORK + "graph.proto",
    "tensorflow.NodeDef": _FRAMEWORK + "graph.proto",
    "tensorflow.TensorProto": _FRAMEWORK + "tensor.proto",
    "tensorflow.TensorShapeProto": _FRAMEWORK + "tensor_shape.proto",
    "tensorflow.SavedModel": _PROTOBUF + "saved_model.proto",
    "tensorflow.MetaGraphDef": _PROTOBUF + "meta_graph.proto",
    "tensorflow.VariableDef": _FRAMEWORK + "variable.proto",
    "tensorflow.BundleHeaderProto": _PROTOBUF + "tensor_bundle.proto",
    "tensorflow.BundleEntryProto": _PROTOBUF + "tensor_bundle.proto",
    "tensorflow.TrackableObjectGraph": _PROTOBUF + "trackable_object_graph.proto",
}
_ENUM_HOME = {"tensorflow.DataType": _FRAMEWORK + "types.proto"}
_LITERAL = re.compile(rb"AddSerializedFile\((b'(?:[^'\\]|\\.)*')\)")
_LOCK = threading.Lock()


def _tf_root() -> str:
    spec = importlib.util.find_spec("tensorflow")
    if spec is None or not spec.submodule_search_locations:
        raise TfportOperationError(
            message(
                "The tensorflow package is not installed, its .proto definitions are needed",
                "Install TensorFlow 2.16 to 2.21 (pip install 'tensorflow>=2.16,<2.22')",
            )
        )
    return list(spec.submodule_search_locations)[0]


def _serialized_from_source(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError as err:
        raise TfportOperationError(
            message(f"Cannot read {path} ({err.strerror})", "Reinstall tensorflow", path=path)
        ) from None
    found = _LITERAL.search(source)
    if found:
        value = ast.literal_eval(found.group(1).decode("latin-1"))
        if isinstance(value, bytes):
            return value
    raise TfportOperationError(
        message(f"No serialized descriptor found in {path}", "Reinstall tensorflow", path=path)
    )


def _serialized(proto_file: str) -> bytes:
    """The serialized FileDescriptorProto of e.g. 'tensorflow/core/framework/x.proto'."""
    stem = proto_file[: -len(".proto")] + "_pb2"
    if proto_file.startswith("google/protobuf/"):
        return importlib.import_module(stem.replace("/", ".")).DESCRIPTOR.serialized_pb
    if not proto_file.startswith(("tensorflow/", "xla/", "tsl/")):
        raise TfportOperationError(message("Unexpected .proto dependency", proto=proto_file))
    return _serialized_from_source(os.path.join(os.path.dirname(_tf_root()), stem + ".py"))


@functools.lru_cache(maxsize=1)
def _pool_state() -> tuple[descriptor_pool.DescriptorPool, set[str]]:
    return descriptor_pool.DescriptorPool(), set()


def _add(proto_file: str) -> None:
    pool, done = _pool_state()
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
        deps = descriptor_pb2.FileDescriptorProto.FromString(data).dependency
        stack.append((name, True))
        stack.extend((dep, False) for dep in deps if dep not in done)


def pool() -> descriptor_pool.DescriptorPool:
    """The private pool holding every TensorFlow descriptor loaded so far.

    Example:
        >>> pool().FindMessageTypeByName("tensorflow.GraphDef").name  # doctest: +SKIP
        'GraphDef'
    """
    return _pool_state()[0]


@functools.cache
def message_class(full_name: str) -> Any:
    """Returns the message class of a TensorFlow proto type, e.g. 'tensorflow.GraphDef'.

    Args:
        full_name: the message's full name; nested ones as 'tensorflow.X.Y'.

    Example:
        >>> GraphDef = message_class("tensorflow.GraphDef")
        >>> GraphDef().node
        []
    """
    top = ".".join(full_name.split(".")[:2])
    with _LOCK:
        _add(_HOME.get(top, _PROTOBUF + "meta_graph.proto"))
        try:
            found = pool().FindMessageTypeByName(full_name)
        except KeyError:
            raise TfportOperationError(message("Unknown proto message", name=full_name)) from None
    return message_factory.GetMessageClass(found)


def graph_def_class() -> Any:
    """Returns the (TF-free) `tensorflow.GraphDef` message class."""
    return message_class("tensorflow.GraphDef")


def saved_model_class() -> Any:
    """Returns the (TF-free) `tensorflow.SavedModel` message class."""
    return message_class("tensorflow.SavedModel")


@functools.cache
def _dtype_enum() -> Any:
    with _LOCK:
        _add(_ENUM_HOME["tensorflow.DataType"])
    return pool().FindEnumTypeByName("tensorflow.DataType")


_DTYPE_ALIASES = {"float": "float32", "double": "float64", "half": "float16"}


def dtype_name(value: int) -> str:
    """Returns the lower-case dtype name ('float32', 'int64', ...) of a DataType enum value.

    Example:
        >>> dtype_name(1)
        'float32'
    """
    found = _dtype_enum().values_by_number.get(value)
    if found is None:
        return f"unknown({value})"
    name = found.name[len("DT_") :].lower()
    base, ref, _ = name.partition("_ref")
    return _DTYPE_ALIASES.get(base, base) + ("_ref" if ref else "")


def _first_line(err: BaseException) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:200]


def parse_binary(data: bytes, cls: Any, where: str, what: str | None = None) -> Any:
    """Decodes binary `data` as `cls`; any decode error is one TfportInputError line.

    Args:
        data: the serialized message.
        cls: the message class.
        where: the file (or entry) the bytes come from, for the message.
        what: the message's name in the error (default: the class name).

    Example:
        >>> parse_binary(b"", graph_def_class(), "frozen.pb").node
        []
    """
    what = what or cls.DESCRIPTOR.name
    try:
        return cls.FromString(data)
    except (pb_message.DecodeError, RecursionError, ValueError, UnicodeDecodeError) as err:
        raise TfportInputError(
            message(
                f"{where} is not a valid binary {what} (truncated or corrupt): {_first_line(err)}",
                "Pass an intact file (restore it from a good copy)",
                path=where,
            )
        ) from None


def parse_text(data: bytes | str, cls: Any, where: str, what: str | None = None) -> Any:
    """Parses protobuf text format with `text_format` into a new `cls` message.

    Raises:
        TfportInputError: not UTF-8, a syntax error, or nesting too deep for the parser.

    Example:
        >>> parse_text('node { name: "a" op: "Const" }', graph_def_class(), "g.pbtxt").node[0].op
        'Const'
    """
    what = what or cls.DESCRIPTOR.name
    msg = cls()
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
        text_format.Parse(text, msg, descriptor_pool=pool())
    except UnicodeDecodeError as err:
        raise TfportInputError(
            message(
                f"{where} is not UTF-8 text, so not a text-format {what}: {err.reason}",
                "Binary protos must be named .pb",
                path=where,
            )
        ) from None
    except (text_format.ParseError, RecursionError, ValueError) as err:
        raise TfportInputError(
            message(
                f"{where} is not a valid text-format {what}: {_first_line(err)}",
                "Fix the syntax at the line:column shown",
                path=where,
            )
        ) from None
    return msg


@functools.cache
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
    lite_pool = descriptor_pool.DescriptorPool()
    lite_pool.Add(file)
    return message_factory.GetMessageClass(lite_pool.FindMessageTypeByName("tfport_lite.LiteGraph"))


def scan_nodes(data: bytes, count: int) -> tuple[list[str], list[str], list[str]] | None:
    """Returns (names, ops, all inputs) of the `count` nodes of a binary GraphDef, in bulk.

    Returns None when the bulk view cannot line names and ops up with the nodes (a node
    without name or op, or bytes that are not UTF-8), so callers fall back to a per-node walk.
    The bulk view keeps every value a node writes, so it equals protobuf's reading only
    for bytes where each node writes its name and op once: pass bytes protobuf wrote
    (``SerializeToString()``), or check others with :func:`odd_nodes`.

    Example:
        >>> scan_nodes(graph_def.SerializeToString(), len(graph_def.node))  # doctest: +SKIP
        (['input', ...], ['Placeholder', ...], ['input', 'hidden/kernel', ...])
    """
    try:
        merged = _lite_graph_class().FromString(data).node
    except (pb_message.DecodeError, ValueError, RecursionError):
        return None
    names, ops = list(merged.name), list(merged.op)
    if len(names) != count or len(ops) != count:
        return None
    return names, ops, list(merged.input)


@functools.cache
def _raw_classes() -> tuple[Any, Any]:
    """(RawGraph, LiteNode): a GraphDef whose `node` is `repeated bytes` (each NodeDef
    undecoded), and a NodeDef view whose name and op are repeated (every value written)."""
    file = descriptor_pb2.FileDescriptorProto(name="tfport_raw.proto", package="tfport_raw")
    file.syntax = "proto3"
    graph = file.message_type.add(name="RawGraph")
    graph.field.add(name="node", number=1, type=12, label=3)  # repeated bytes
    node = file.message_type.add(name="LiteNode")
    for number, name in ((1, "name"), (2, "op")):
        node.field.add(name=name, number=number, type=9, label=3)  # repeated string
    raw_pool = descriptor_pool.DescriptorPool()
    raw_pool.Add(file)
    raw, lite = (
        message_factory.GetMessageClass(raw_pool.FindMessageTypeByName(f"tfport_raw.{n}"))
        for n in ("RawGraph", "LiteNode")
    )
    return raw, lite


def raw_graph_class() -> Any:
    """A wire view of GraphDef whose `node` is `repeated bytes`: each NodeDef undecoded.

    Example:
        >>> len(raw_graph_class().FromString(b"\\x0a\\x00\\x0a\\x00").node)
        2
    """
    return _raw_classes()[0]


def odd_nodes(data: bytes) -> list[tuple[int, list[str], list[str]]]:
    """(position, names, ops) of each NodeDef of the binary GraphDef `data` that does not
    write its name and its op exactly once.

    Protobuf (and TensorFlow) keep the last value of a field written twice and read a
    missing op as ""; a bulk view would see both values, or none. Nodes listed here are
    read differently by the two.

    Example:
        >>> odd_nodes(graph_def_class()(node=[{"name": "a", "op": "Add"}]).SerializeToString())
        []
    """
    raw, lite = _raw_classes()
    try:
        nodes = raw.FromString(data).node
    except (pb_message.DecodeError, ValueError, RecursionError):
        return []
    found = []
    for i, blob in enumerate(nodes):
        try:
            node = lite.FromString(blob)
        except (pb_message.DecodeError, ValueError, RecursionError):
            continue
        if len(node.name) != 1 or len(node.op) != 1:
            found.append((i, list(node.name), list(node.op)))
    return found
