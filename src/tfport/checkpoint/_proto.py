"""The few TensorFlow protos a checkpoint needs, built without importing TensorFlow.

TensorFlow's generated ``*_pb2`` modules live inside the ``tensorflow`` package,
so importing them runs ``tensorflow/__init__.py`` (seconds, and the C++ runtime).
The messages below mirror ``tensorflow/core/protobuf/tensor_bundle.proto``,
``tensor_shape.proto``, ``tensor_slice.proto``, ``versions.proto`` and
``trackable_object_graph.proto`` field for field (same numbers and types), under
a private package name so they never clash with TensorFlow's own descriptors.

Example:
    >>> header = BundleHeaderProto(num_shards=1)
    >>> BundleHeaderProto.FromString(header.SerializeToString()).num_shards
    1
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "tfport_private.checkpoint"

# (message name, [(field, number, type, label, type_name or None)], nested messages)
_INT32, _INT64, _BOOL, _STRING, _FIXED32, _MSG, _ENUM = (
    _F.TYPE_INT32,
    _F.TYPE_INT64,
    _F.TYPE_BOOL,
    _F.TYPE_STRING,
    _F.TYPE_FIXED32,
    _F.TYPE_MESSAGE,
    _F.TYPE_ENUM,
)
_OPT, _REP = _F.LABEL_OPTIONAL, _F.LABEL_REPEATED


def _message(name: str, fields: list[tuple], nested: list | None = None):
    msg = descriptor_pb2.DescriptorProto(name=name)
    for field_name, number, ftype, label, type_name in fields:
        field = msg.field.add(name=field_name, number=number, type=ftype, label=label)
        if type_name:
            field.type_name = f".{_PACKAGE}.{type_name}"
    for sub in nested or []:
        msg.nested_type.add().CopyFrom(sub)
    return msg


def _file() -> descriptor_pb2.FileDescriptorProto:
    fdp = descriptor_pb2.FileDescriptorProto(
        name="tfport_private/checkpoint.proto", package=_PACKAGE, syntax="proto3"
    )
    dim = _message("Dim", [("size", 1, _INT64, _OPT, None), ("name", 2, _STRING, _OPT, None)])
    shape = _message(
        "TensorShapeProto",
        [
            ("dim", 2, _MSG, _REP, "TensorShapeProto.Dim"),
            ("unknown_rank", 3, _BOOL, _OPT, None),
        ],
        [dim],
    )
    extent = _message(
        "Extent", [("start", 1, _INT64, _OPT, None), ("length", 2, _INT64, _OPT, None)]
    )
    # `length` is a oneof in TensorFlow; proto3 `optional` gives the same wire
    # format and the same "has length" semantics.
    extent.field[1].proto3_optional = True
    extent.oneof_decl.add(name="_length")
    extent.field[1].oneof_index = 0
    tslice = _message(
        "TensorSliceProto", [("extent", 1, _MSG, _REP, "TensorSliceProto.Extent")], [extent]
    )
    version = _message(
        "VersionDef",
        [
            ("producer", 1, _INT32, _OPT, None),
            ("min_consumer", 2, _INT32, _OPT, None),
            ("bad_consumers", 3, _INT32, _REP, None),
        ],
    )
    header = _message(
        "BundleHeaderProto",
        [
            ("num_shards", 1, _INT32, _OPT, None),
            ("endianness", 2, _INT32, _OPT, None),  # enum on the wire: a varint
            ("version", 3, _MSG, _OPT, "VersionDef"),
        ],
    )
    entry = _message(
        "BundleEntryProto",
        [
            ("dtype", 1, _INT32, _OPT, None),  # DataType enum, kept as int
            ("shape", 2, _MSG, _OPT, "TensorShapeProto"),
            ("shard_id", 3, _INT32, _OPT, None),
            ("offset", 4, _INT64, _OPT, None),
            ("size", 5, _INT64, _OPT, None),
            ("crc32c", 6, _FIXED32, _OPT, None),
            ("slices", 7, _MSG, _REP, "TensorSliceProto"),
        ],
    )
    fdp.message_type.extend([shape, tslice, version, header, entry, _object_graph()])
    return fdp


def _object_graph() -> descriptor_pb2.DescriptorProto:
    ref = _message(
        "ObjectReference",
        [("node_id", 1, _INT32, _OPT, None), ("local_name", 2, _STRING, _OPT, None)],
    )
    tensor = _message(
        "SerializedTensor",
        [
            ("name", 1, _STRING, _OPT, None),
            ("full_name", 2, _STRING, _OPT, None),
            ("checkpoint_key", 3, _STRING, _OPT, None),
        ],
    )
    slot = _message(
        "SlotVariableReference",
        [
            ("original_variable_node_id", 1, _INT32, _OPT, None),
            ("slot_name", 2, _STRING, _OPT, None),
            ("slot_variable_node_id", 3, _INT32, _OPT, None),
        ],
    )
    prefix = "TrackableObjectGraph.TrackableObject."
    obj = _message(
        "TrackableObject",
        [
            ("children", 1, _MSG, _REP, prefix + "ObjectReference"),
            ("attributes", 2, _MSG, _REP, prefix + "SerializedTensor"),
            ("slot_variables", 3, _MSG, _REP, prefix + "SlotVariableReference"),
        ],
        [ref, tensor, slot],
    )
    return _message(
        "TrackableObjectGraph",
        [("nodes", 1, _MSG, _REP, "TrackableObjectGraph.TrackableObject")],
        [obj],
    )


def _build() -> dict:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    names = [
        "TensorShapeProto",
        "TensorSliceProto",
        "VersionDef",
        "BundleHeaderProto",
        "BundleEntryProto",
        "TrackableObjectGraph",
    ]
    return {
        n: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{_PACKAGE}.{n}"))
        for n in names
    }


_CLASSES = _build()
TensorShapeProto = _CLASSES["TensorShapeProto"]
TensorSliceProto = _CLASSES["TensorSliceProto"]
VersionDef = _CLASSES["VersionDef"]
BundleHeaderProto = _CLASSES["BundleHeaderProto"]
BundleEntryProto = _CLASSES["BundleEntryProto"]
TrackableObjectGraph = _CLASSES["TrackableObjectGraph"]
