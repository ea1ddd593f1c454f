"""String hashing and vocabulary tables in a model_fn -> Keras preprocessing layers.

`tf.strings.to_hash_bucket_fast(x, n)` is `layers.Hashing(num_bins=n)` (both FarmHash64;
an integer `x` made a string by `tf.strings.as_string` is hashed so by Hashing itself),
`to_hash_bucket_strong(x, n, key)` is `layers.Hashing(num_bins=n, salt=key)` (SipHash).
A lookup in a static table (`tf.lookup.StaticHashTable`, `StaticVocabularyTable` over
constants or a `TextFileInitializer`: `LookupTableFindV2` on a `HashTableV2` initialized
from constants or a text file) is a `StringLookup` / `IntegerLookup` over the table's
keys, whose index (0: not a key, i + 1: the i-th key) picks the value:
`ops.take([default, *values], index)`, the ids TensorFlow gives whatever they are (a
`StaticVocabularyTable`'s out-of-vocabulary buckets are its own hashing and `where` ops).
These layers run TensorFlow string ops: model.py then needs the TensorFlow backend.

Example:
    >>> hashing(walk, graph.get_operation_by_name("StringToHashBucketFast"))  # doctest: +SKIP
    True
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn._ops import Refused, TfOp, static
from tfport.keras._modelfn._walk import Walk

_INITIALIZERS = ("LookupTableImportV2", "InitializeTableV2", "InitializeTableFromTextFileV2")
_KEY_DTYPES = {"string": "StringLookup", "int64": "IntegerLookup"}
_AS_STRING_DEFAULTS = {"precision": -1, "scientific": False, "shortest": False, "width": -1}


def _uses_tensorflow(walk: Walk) -> None:
    walk.plan.needs_tensorflow = True


def _plain_as_string(op: TfOp) -> bool:
    """An integer made a decimal string as Keras's Hashing makes it (`tf.as_string`)."""
    if op.type != "AsString" or not op.inputs[0].dtype.is_integer:
        return False
    fill = op.get_attr("fill")
    if fill not in ("", b""):
        return False
    return all(op.get_attr(k) == v for k, v in _AS_STRING_DEFAULTS.items())


def as_string(walk: Walk, op: TfOp) -> bool:
    """`tf.strings.as_string(ids)` read only by `to_hash_bucket_fast`: written as the
    Hashing layer over the ids; anything else has no Keras form (refused)."""
    readers = walk.readers(op.outputs[0])
    if not readers or any(r.type != "StringToHashBucketFast" for r in readers):
        return False
    if not _plain_as_string(op):
        return False
    walk.done.add(op.name)
    walk.record(op, "layers.Hashing (integers hashed as decimal strings)", walk.comment(op))
    return True


def hashing(walk: Walk, op: TfOp) -> bool:
    """`layers.Hashing` for StringToHashBucketFast (FarmHash64) or ...Strong (SipHash)."""
    (x,) = op.inputs
    if op.inputs[0].op.type == "AsString" and op.inputs[0].op.name in walk.done:
        x = op.inputs[0].op.inputs[0]  # Hashing makes integers strings the same way
    if x.name not in walk.expr:
        return False
    args = f"num_bins={int(op.get_attr('num_buckets'))}"
    if op.type == "StringToHashBucketStrong":
        key = [int(k) for k in op.get_attr("key")]
        if len(key) != 2:
            return False
        args += f", salt={key!r}"
    layer = walk.name(op.name if "/" in op.name else "hashing")  # `hash_table_Lookup/...`
    line = walk.comment(op)
    var = walk.name(layer + "_out")
    walk.plan.lines.append(f"{var} = layers.Hashing({args}, name={layer!r})({walk.expr[x.name]})")
    walk.record(op, f"layers.Hashing {layer!r}", line)
    walk.expr[op.outputs[0].name] = var
    _uses_tensorflow(walk)
    return True


def legacy_hashing(walk: Walk, op: TfOp) -> bool:
    """`tf.strings.to_hash_bucket` (Fingerprint64): no Keras layer hashes so."""
    raise walk.refuse(
        op,
        "tf.strings.to_hash_bucket hashes with Fingerprint64, which no Keras layer does "
        "(to_hash_bucket_fast is layers.Hashing)",
    )


def table(walk: Walk, op: TfOp) -> bool:
    """A `HashTableV2` handle: nothing to write (its lookups carry its keys and values)."""
    if any(
        r.type not in ("LookupTableFindV2", "LookupTableSizeV2")
        for r in walk.readers(op.outputs[0])
    ):
        return False
    walk.record(op, "vocabulary table (written with its lookups)", walk.comment(op))
    return True


def _initializer(walk: Walk, handle: TfOp) -> tuple[np.ndarray, np.ndarray]:
    """(keys, values) the table was initialized with; Refused when not static."""
    if handle.type != "HashTableV2":
        raise Refused(f"a {handle.type} table (only static hash tables convert)")
    found = [
        op
        for op in walk.traced.graph.get_operations()
        if op.type in _INITIALIZERS and op.inputs[0].op.name == handle.name
    ]
    if len(found) != 1:
        raise Refused(f"its table has {len(found)} initializers (one static one converts)")
    init = found[0]
    if init.type == "InitializeTableFromTextFileV2":
        return _from_text_file(init, handle)
    keys, values = static(init.inputs[1]), static(init.inputs[2])
    if keys is None or values is None:
        raise Refused("its table's keys or values are computed (constants convert)")
    return np.asarray(keys).reshape(-1), np.asarray(values).reshape(-1)


def _from_text_file(init: TfOp, handle: TfOp) -> tuple[np.ndarray, np.ndarray]:
    """Keys and values of a table read from a text file, as TensorFlow reads them."""
    path = static(init.inputs[1])
    if path is None:
        raise Refused("its vocabulary file's name is computed")
    path = path.item() if isinstance(path, np.ndarray) else path
    path = path.decode() if isinstance(path, bytes) else str(path)
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")  # lines end at '\n' (a '\r' before it dropped)
    except OSError as err:
        raise Refused(f"its vocabulary file {path!r} cannot be read ({err.strerror})") from None
    lines = [line.removesuffix("\r") for line in lines[: -1 if lines[-1] == "" else None]]
    size = int(init.get_attr("vocab_size"))
    lines = lines[:size] if size >= 0 else lines
    delimiter = init.get_attr("delimiter")
    delimiter = delimiter.decode() if isinstance(delimiter, bytes) else delimiter
    offset = int(init.get_attr("offset")) if "offset" in init.node_def.attr else 0

    def column(index: int, dtype: str) -> np.ndarray:
        if index == -1:
            got: list = [i + offset for i in range(len(lines))]
        elif index == -2:
            got = list(lines)
        else:
            got = [line.split(delimiter)[index] for line in lines]
        try:
            return np.array(got, dtype=object if dtype == "string" else dtype)
        except (IndexError, ValueError):
            raise Refused(f"its vocabulary file {path!r} has a line of another form") from None

    key_dtype = handle.get_attr("key_dtype").name
    value_dtype = handle.get_attr("value_dtype").name
    return column(init.get_attr("key_index"), key_dtype), column(
        init.get_attr("value_index"), value_dtype
    )


def _text(values: np.ndarray) -> list:
    """Python values (str, int, float) of an array, for model.py's source."""
    return [
        v.decode() if isinstance(v, bytes) else v.item() if isinstance(v, np.generic) else v
        for v in values
    ]


def table_find(walk: Walk, op: TfOp) -> bool:
    """`StringLookup` / `IntegerLookup` over the keys, then the value by the index."""
    handle, x, default = op.inputs[0].op, op.inputs[1], op.inputs[2]
    if x.name not in walk.expr:
        return False
    try:
        keys, values = _initializer(walk, handle)
    except Refused as err:
        raise walk.refuse(op, str(err)) from None
    kind = _KEY_DTYPES.get(x.dtype.name)
    fallback = static(default)
    value_dtype = op.outputs[0].dtype.name
    if kind is None or fallback is None or np.size(fallback) != 1:
        raise walk.refuse(op, f"a lookup of {x.dtype.name} keys with a computed default")
    if value_dtype == "string":
        raise walk.refuse(op, "a lookup giving strings (ids and numbers convert)")
    layer = walk.name(handle.name + "_lookup")
    line = walk.comment(op)
    index = walk.name(layer + "_index")
    vocabulary = _text(keys)
    walk.plan.lines.append(
        f"{index} = layers.{kind}(vocabulary={vocabulary!r}, num_oov_indices=1, "
        f"name={layer!r})({walk.expr[x.name]})  # 0: not a key; i + 1: the i-th key"
    )
    pick = [np.asarray(fallback).item(), *_text(values)]
    var = walk.name(layer + "_value")
    walk.plan.lines.append(f"{var} = ops.take(np.array({pick!r}, {value_dtype!r}), {index})")
    walk.plan.uses_numpy = True
    _uses_tensorflow(walk)
    walk.record(op, f"layers.{kind} {layer!r} + ops.take", line)
    walk.expr[op.outputs[0].name] = var
    return True


def table_size(walk: Walk, op: TfOp) -> bool:
    """The size of a static table: its number of keys, a constant."""
    try:
        keys, _ = _initializer(walk, op.inputs[0].op)
    except Refused as err:
        raise walk.refuse(op, str(err)) from None
    walk.expr[op.outputs[0].name] = str(len(keys))
    walk.record(op, "constant (the table's size)", walk.comment(op))
    return True


PATTERNS = {
    "StringToHashBucketFast": hashing,
    "StringToHashBucketStrong": hashing,
    "StringToHashBucket": legacy_hashing,
    "AsString": as_string,
    "HashTableV2": table,
    "LookupTableFindV2": table_find,
    "LookupTableSizeV2": table_size,
}
