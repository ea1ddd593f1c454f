"""The TensorFlow protobuf messages tfport reads, as protocols: the fields its code uses.

`tfport._common.protos` makes the message classes at run time from the descriptors of the
installed wheel, so no stub describes them; these protocols name, per message, the fields
(and the few `google.protobuf.message.Message` methods) that tfport's checkpoint and graph
code touches. A repeated message field is a `Repeated`, a map field a `MutableMapping`.
Importing this module imports neither TensorFlow nor protobuf.

Example:
    >>> from tfport._common import protos
    >>> from tfport._common.messages import GraphDef
    >>> graph: GraphDef = protos.graph_def_class()()
    >>> len(graph.node)
    0
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping, MutableSequence, Sequence
from typing import Protocol, TypeVar

_T = TypeVar("_T", covariant=True)


class Repeated(Protocol[_T]):
    """A repeated message field: a sequence that makes its new elements (`add`)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[_T]: ...

    def __getitem__(self, index: int) -> _T: ...

    def __delitem__(self, index: int) -> None: ...

    def add(self, **fields: object) -> _T:
        """Appends a new element (with `fields` set) and returns it."""
        ...


class Message(Protocol):
    """The `google.protobuf.message.Message` methods tfport calls."""

    def SerializeToString(self, deterministic: bool = ...) -> bytes:
        """The wire format."""
        ...

    def HasField(self, field_name: str) -> bool:
        """Whether an optional field or a submessage is set."""
        ...

    def WhichOneof(self, oneof_group: str) -> str | None:
        """The name of the field set in a oneof, or None."""
        ...

    def SetInParent(self) -> None:
        """Marks an empty submessage as present."""
        ...


# --- tensors -------------------------------------------------------------------------------


class Dim(Message, Protocol):
    """`TensorShapeProto.Dim`: a size, -1 when unknown."""

    size: int


class TensorShapeProto(Message, Protocol):
    """A shape: its dimensions, or an unknown rank."""

    dim: Repeated[Dim]
    unknown_rank: bool

    def CopyFrom(self, other: TensorShapeProto) -> None:
        """Replaces this shape by `other`."""
        ...


class TensorProto(Message, Protocol):
    """A constant tensor: dtype, shape, and its values in one of the value fields."""

    dtype: int
    tensor_shape: TensorShapeProto
    tensor_content: bytes
    half_val: Sequence[int]
    float_val: Sequence[float]
    double_val: Sequence[float]
    int_val: Sequence[int]
    int64_val: Sequence[int]


class NameAttrList(Message, Protocol):
    """A function reference: its name and attributes."""

    name: str
    attr: MutableMapping[str, AttrValue]


class AttrListValue(Message, Protocol):
    """`AttrValue.ListValue` (the function references of a list attribute)."""

    func: Repeated[NameAttrList]


class AttrValue(Message, Protocol):
    """A node or function attribute (one of its oneof `value` fields is set)."""

    type: int
    shape: TensorShapeProto
    tensor: TensorProto
    s: bytes
    func: NameAttrList
    list: AttrListValue


# --- graphs --------------------------------------------------------------------------------


class NodeDef(Message, Protocol):
    """A node of a GraphDef or of a function body."""

    name: str
    op: str
    device: str
    input: MutableSequence[str]
    attr: MutableMapping[str, AttrValue]

    def CopyFrom(self, other: NodeDef) -> None:
        """Replaces this node by `other`."""
        ...

    def ClearField(self, field_name: str) -> None:
        """Empties a field."""
        ...

    def MergeFromString(self, serialized: bytes) -> int:
        """Merges a serialized NodeDef into this one."""
        ...


class ArgDef(Message, Protocol):
    """An input or output argument of a function signature."""

    name: str


class OpDef(Message, Protocol):
    """A function's signature: its name and arguments."""

    name: str
    input_arg: Repeated[ArgDef]
    output_arg: Repeated[ArgDef]


class FunctionDef(Message, Protocol):
    """A function of a graph's library."""

    signature: OpDef
    node_def: Repeated[NodeDef]
    attr: MutableMapping[str, AttrValue]


class GradientDef(Message, Protocol):
    """A gradient function registration of the library."""

    function_name: str
    gradient_func: str


class FunctionDefLibrary(Message, Protocol):
    """A graph's functions and gradient registrations."""

    function: Repeated[FunctionDef]
    gradient: Repeated[GradientDef]

    def CopyFrom(self, other: FunctionDefLibrary) -> None:
        """Replaces this library by `other`."""
        ...


class VersionDef(Message, Protocol):
    """The GraphDef's versions."""

    producer: int

    def CopyFrom(self, other: VersionDef) -> None:
        """Replaces these versions by `other`."""
        ...


class GraphDef(Message, Protocol):
    """A graph: nodes, function library, versions."""

    node: Repeated[NodeDef]
    library: FunctionDefLibrary
    versions: VersionDef


class LiteNodes(Message, Protocol):
    """Every NodeDef of a graph merged into one message (`protos._lite_graph_class`): all
    names, ops and inputs, in order."""

    name: Sequence[str]
    op: Sequence[str]
    input: Sequence[str]


# --- SavedModels ---------------------------------------------------------------------------


class TensorInfo(Message, Protocol):
    """A signature's tensor: its name in the graph, dtype and shape."""

    name: str
    dtype: int
    tensor_shape: TensorShapeProto


class SignatureDef(Message, Protocol):
    """A SavedModel signature: method name, inputs and outputs by key."""

    method_name: str
    inputs: MutableMapping[str, TensorInfo]
    outputs: MutableMapping[str, TensorInfo]


class SaverDef(Message, Protocol):
    """How a TF1 SavedModel saves and restores its variables."""

    restore_op_name: str
    save_tensor_name: str
    filename_tensor_name: str


class NodeList(Message, Protocol):
    """`CollectionDef.NodeList`: node names."""

    value: Sequence[str]


class BytesList(Message, Protocol):
    """`CollectionDef.BytesList`: serialized messages."""

    value: Sequence[bytes]


class CollectionDef(Message, Protocol):
    """A graph collection (node names or serialized messages)."""

    node_list: NodeList
    bytes_list: BytesList


class MetaInfoDef(Message, Protocol):
    """A MetaGraph's tags."""

    tags: Sequence[str]


class SavedFunction(Message, Protocol):
    """A `tf.function` of a TF2 object graph: its concrete functions."""

    concrete_functions: Sequence[str]


class SavedBareConcreteFunction(Message, Protocol):
    """A concrete function of a TF2 object graph."""

    concrete_function_name: str


class SaveableObject(Message, Protocol):
    """The nodes of a saveable's save and restore functions."""

    save_function: int
    restore_function: int


class SavedObject(Message, Protocol):
    """A node of a TF2 object graph (the oneof `kind` says what it is)."""

    function: SavedFunction
    bare_concrete_function: SavedBareConcreteFunction
    saveable_objects: MutableMapping[str, SaveableObject]


class SavedObjectGraph(Message, Protocol):
    """The object graph of a TF2 SavedModel."""

    nodes: Repeated[SavedObject]
    concrete_functions: MutableMapping[str, object]


class MetaGraphDef(Message, Protocol):
    """One MetaGraph of a SavedModel."""

    meta_info_def: MetaInfoDef
    graph_def: GraphDef
    saver_def: SaverDef
    collection_def: MutableMapping[str, CollectionDef]
    signature_def: MutableMapping[str, SignatureDef]
    object_graph_def: SavedObjectGraph


# --- checkpoints ---------------------------------------------------------------------------


class Extent(Message, Protocol):
    """`TensorSliceProto.Extent`: a start and, when set, a length (unset: to the end)."""

    start: int
    length: int


class TensorSliceProto(Message, Protocol):
    """One slice of a partitioned variable: an extent per dimension."""

    extent: Repeated[Extent]


class BundleEntryProto(Message, Protocol):
    """A checkpoint index entry: where a tensor's bytes lie, or its slices."""

    dtype: int
    shape: TensorShapeProto
    shard_id: int
    offset: int
    size: int
    crc32c: int
    slices: Repeated[TensorSliceProto]


class ChildReference(Message, Protocol):
    """`TrackableObjectGraph.TrackableObject.ObjectReference`."""

    node_id: int
    local_name: str


class SerializedTensor(Message, Protocol):
    """A trackable's attribute stored in the checkpoint."""

    checkpoint_key: str


class SlotVariableReference(Message, Protocol):
    """An optimizer slot: the slot variable's node, its variable's node, its name."""

    original_variable_node_id: int
    slot_variable_node_id: int
    slot_name: str


class TrackableObject(Message, Protocol):
    """A node of a checkpoint's object graph."""

    children: Repeated[ChildReference]
    attributes: Repeated[SerializedTensor]
    slot_variables: Repeated[SlotVariableReference]


class TrackableObjectGraph(Message, Protocol):
    """The object graph of an object-based checkpoint (`_CHECKPOINTABLE_OBJECT_GRAPH`)."""

    nodes: Repeated[TrackableObject]
