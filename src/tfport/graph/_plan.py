"""What to convert, decided and validated without TensorFlow.

A :class:`Plan` holds the pruned GraphDef to import, the signatures (keys and
tensor names), the variables to restore and where their values are. Every
check that can fail on bad input happens here, before TensorFlow is imported.
"""

from __future__ import annotations

import dataclasses
import keyword
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tfport._common import protos
from tfport._common.errors import TfportInputError, message
from tfport._common.messages import (
    GraphDef,
    MetaGraphDef,
    NodeDef,
    SignatureDef,
    TensorInfo,
    TensorShapeProto,
)
from tfport.graph import _index, _ops, _parse, _safety, _savedmodel

DT_RESOURCE = 20


@dataclasses.dataclass
class Tensor:
    """A signature tensor: its key, graph tensor name, DataType enum value and shape."""

    key: str
    name: str
    dtype: int
    shape: list[int | None] | None


@dataclasses.dataclass
class Signature:
    inputs: list[Tensor]
    outputs: list[Tensor]


@dataclasses.dataclass
class Plan:
    """Everything the TensorFlow side needs to build and check the TF2 SavedModel."""

    source: str
    kind: str
    graph_def: Any  # pruned, variables replaced by placeholders (TF-free message)
    original: Any  # the graph as given, for verification
    signatures: dict[str, Signature]
    variables: dict[str, str] = dataclasses.field(default_factory=dict)  # node -> op
    variable_defs: dict[str, dict[str, Any]] = dataclasses.field(
        default_factory=dict
    )  # checkpoint keys
    checkpoint: str | None = None
    tags: list[str] = dataclasses.field(default_factory=list)
    restore: tuple[str, str] | None = None  # (restore op, filename tensor)
    trust: bool = False


def sanitize(name: str, identifier: bool = True) -> str:
    """Signature key of a tensor name: drop ':0', replace all but [A-Za-z0-9_] by '_'.

    TF2 signature inputs (`identifier`) must be Python identifiers that TF can also use as op names:
    a keyword gets a trailing '_' ('in' -> 'in_'), leading underscores are dropped and a
    key that would start with a digit gets 'input_' in front.

    Example:
        >>> sanitize("scope/input-1:0")
        'scope_input_1'
        >>> sanitize("in"), sanitize("1st:0")
        ('in_', 'input_1st')
    """
    base = name[:-2] if name.endswith(":0") else name
    key = re.sub(r"[^A-Za-z0-9_]", "_", base)
    if not identifier:
        return key
    key = key.lstrip("_")
    if not key or key[0].isdigit():
        key = "input_" + key
    return key + "_" if keyword.iskeyword(key) else key


def _keys(names: Sequence[str], taken: set[str], identifier: bool = True) -> list[str]:
    keys = []
    for name in names:
        base = sanitize(name, identifier)
        key, n = base, 2
        while key in taken:
            key, n = f"{base}_{n}", n + 1
        taken.add(key)
        keys.append(key)
    return keys


def refuse_unsafe(scan: _safety.Scan, path: str) -> None:
    """Raises TfportInputError naming the blocking unsafe nodes, if any."""
    blocking = scan.blocking
    if not blocking:
        return
    ops = sorted({f.op for f in blocking})
    shown = "; ".join(
        f"{f.op} at {f.where}/{f.node}" + (f" via {f.via}" if f.via else "") for f in blocking[:10]
    )
    more = f" (+{len(blocking) - 10} more)" if len(blocking) > 10 else ""
    raise TfportInputError(
        message(
            f"Refusing {path}: {len(blocking)} node(s) use ops outside the safe list: "
            f"{shown}{more}",
            f"Inspect them with `tfport graph inspect`; if you trust the model pass "
            f"--allow-ops {','.join(ops)} (or --trust)",
            unsafe_ops=ops,
        )
    )


def plan_frozen(
    art: _parse.Artifact,
    inputs: Sequence[str] | None,
    outputs: Sequence[str] | None,
    allow_ops: Iterable[str] = (),
    trust: bool = False,
) -> Plan:
    """Validates a frozen graph conversion: safety, input/output names; prunes the graph."""
    graph_def = art.graph_def
    limits = art.limits
    scan = _safety.scan(graph_def, allow_ops, None, trust, limits.max_depth, limits.max_nodes)
    refuse_unsafe(scan, art.path)
    nodes = _index.node_map(graph_def)
    index = _index.index(graph_def)
    placeholders = [n.name + ":0" for n in index.placeholders()]
    sinks = [name + ":0" for name in index.sinks(_ops.NO_OUTPUT_OPS)]
    out_names = _check_names(outputs, nodes, sinks, "--outputs") if outputs else sinks
    if not out_names:
        raise TfportInputError(
            message(f"No output found in {art.path}", "Name them with --outputs", path=art.path)
        )
    if inputs:
        in_names = _check_names(inputs, nodes, placeholders, "--inputs")
    else:
        needed = _index.closure(nodes, out_names)
        in_names = [p for p in placeholders if _index.input_node(p) in needed]
    pruned = _prune(graph_def, [*out_names, *in_names])
    variables = [n.name for n in pruned.node if n.op in _ops.VARIABLE_OPS]
    if variables:
        raise TfportInputError(
            message(
                f"{art.path} is not frozen: its outputs read variables "
                f"({', '.join(variables[:5])})",
                "Freeze it (variables to constants) or convert the SavedModel it came from",
                variables=len(variables),
            )
        )
    taken: set[str] = set()
    sig = Signature(
        [_tensor(k, n, nodes) for k, n in zip(_keys(in_names, taken), in_names, strict=True)],
        [
            Tensor(k, n, 0, None)
            for k, n in zip(_keys(out_names, set(), False), out_names, strict=True)
        ],
    )
    return Plan(art.path, "graph_def", pruned, graph_def, {"serving_default": sig}, trust=trust)


def _check_names(
    names: Sequence[str], nodes: Mapping[str, NodeDef], candidates: list[str], flag: str
) -> list[str]:
    result = []
    for name in names:
        if _index.input_node(name) not in nodes or name.startswith("^"):
            raise TfportInputError(
                message(
                    f"{flag}: {name!r} is not a tensor of the graph",
                    f"Use one of the candidates {', '.join(candidates) or '(none found)'} "
                    "or another node name from `tfport graph inspect`",
                    name=name,
                )
            )
        result.append(_index.tensor_name(name))
    return result


def _tensor(key: str, name: str, nodes: Mapping[str, NodeDef]) -> Tensor:
    node = nodes[_index.input_node(name)]
    dtype = _input_dtype(node)
    shape = _index.shape_of(node.attr["shape"].shape) if "shape" in node.attr else None
    return Tensor(key, name, dtype, shape)


def _prune(graph_def: GraphDef, outputs: Sequence[str]) -> GraphDef:
    """Keeps the nodes the outputs need and the function library; drops devices, colocation."""
    keep = _index.closure(_index.node_map(graph_def), outputs)
    pruned = protos.graph_def_class()()
    pruned.versions.CopyFrom(graph_def.versions)
    pruned.library.CopyFrom(graph_def.library)
    for node in graph_def.node:
        if node.name in keep:
            copy = pruned.node.add()
            copy.CopyFrom(node)
            copy.device = ""
            if "_class" in copy.attr:
                del copy.attr["_class"]
    return pruned


def _input_dtype(node: NodeDef) -> int:
    for key in ("dtype", "T", "out_type"):
        if key in node.attr and node.attr[key].type:
            return node.attr[key].type
    return 1


def _to_placeholder(node: NodeDef, dtype: int, shape: TensorShapeProto | None = None) -> None:
    """Rewrites `node` in place as a Placeholder (the original graph is never touched)."""
    node.op = "Placeholder"
    node.ClearField("input")
    node.ClearField("attr")
    node.attr["dtype"].type = dtype
    if shape is not None:
        node.attr["shape"].shape.CopyFrom(shape)


def plan_saved_model(
    art: _parse.Artifact,
    tags: Sequence[str] | None = None,
    allow_ops: Iterable[str] = (),
    trust: bool = False,
) -> Plan:
    """Validates a TF1 SavedModel conversion: MetaGraph choice, safety, variables."""
    meta = choose_meta_graph(art, tags)
    if _savedmodel.is_tf2(meta):
        raise TfportInputError(
            message(
                f"{art.path} is already a TF2 SavedModel (it has an object graph)",
                "Load it with tf.saved_model.load; nothing to convert",
                path=art.path,
            )
        )
    graph_def = meta.graph_def
    limits, roles = art.limits, _savedmodel.roles(meta)
    scan = _safety.scan(graph_def, allow_ops, roles, trust, limits.max_depth, limits.max_nodes)
    refuse_unsafe(scan, art.path)
    sigs = {k: _signature(k, s, art.path) for k, s in _savedmodel.signatures(meta).items()}
    if not sigs:
        raise TfportInputError(
            message(
                f"{art.path} has no signature to convert", "Re-export it with one", path=art.path
            )
        )
    outs = [t.name for s in sigs.values() for t in s.outputs]
    pruned = _prune(graph_def, outs)
    variables = _replace_variables(pruned)
    if not trust:
        _refuse_tables(pruned, art.path)
    prefix = os.path.join(art.path, "variables", "variables")
    if variables and not os.path.exists(prefix + ".index"):
        raise TfportInputError(
            message(
                f"{art.path} uses variables but has no variables/variables.index",
                "Pass a complete SavedModel folder",
                path=art.path,
            )
        )
    saver = meta.saver_def
    restore = (saver.restore_op_name, saver.filename_tensor_name) if saver.restore_op_name else None
    return Plan(
        art.path, "saved_model", pruned, graph_def, sigs, variables,
        _savedmodel.variable_defs(meta), prefix if variables else None,
        list(meta.meta_info_def.tags), restore, trust,
    )  # fmt: skip


def choose_meta_graph(art: _parse.Artifact, tags: Sequence[str] | None) -> MetaGraphDef:
    """Returns the MetaGraph with exactly these tags (default: the only one, or 'serve')."""
    metas = list(art.saved_model.meta_graphs)
    available = [sorted(m.meta_info_def.tags) for m in metas]
    if tags:
        found = [m for m in metas if sorted(m.meta_info_def.tags) == sorted(tags)]
    elif len(metas) == 1:
        found = metas
    else:
        found = [m for m in metas if list(m.meta_info_def.tags) == ["serve"]]
    if len(found) != 1:
        raise TfportInputError(
            message(
                f"{art.path}: no single MetaGraph with tags {list(tags or ['serve'])}",
                f"Pass --tags with one of {available}",
                tags=list(tags or []),
            )
        )
    return found[0]


def _signature(key: str, sig: SignatureDef, path: str) -> Signature:
    def tensors(mapping: Mapping[str, TensorInfo]) -> list[Tensor]:
        result = []
        for k, info in sorted(mapping.items()):
            if info.WhichOneof("encoding") != "name":
                raise TfportInputError(
                    message(
                        f"Signature {key!r} of {path} has a sparse or composite tensor {k!r}",
                        "Only dense signature tensors can be converted",
                        signature=key,
                    )
                )
            shape = _index.shape_of(info.tensor_shape)
            result.append(Tensor(k, _index.tensor_name(info.name), info.dtype, shape))
        return result

    inputs = tensors(sig.inputs)
    taken = {t.key for t in inputs if _valid(t.key)}
    bad = [t for t in inputs if not _valid(t.key)]
    for t, new in zip(bad, _keys([t.key for t in bad], taken), strict=True):
        t.key = new  # TF2 signature inputs must be Python identifiers
    return Signature(inputs, tensors(sig.outputs))


def _valid(key: str) -> bool:
    return key.isidentifier() and not keyword.iskeyword(key) and not key.startswith("_")


def _replace_variables(pruned: GraphDef) -> dict[str, str]:
    """Turns variable nodes into placeholders that tfport maps onto TF2 variables."""
    variables = {}
    for node in pruned.node:
        if node.op in _ops.VARIABLE_OPS:
            variables[node.name] = node.op
            dtype = DT_RESOURCE if node.op == "VarHandleOp" else node.attr["dtype"].type
            _to_placeholder(node, dtype)
    return variables


def _refuse_tables(pruned: GraphDef, path: str) -> None:
    tables = [n.name for n in pruned.node if n.op in _ops.TABLE_OPS]
    if tables:
        raise TfportInputError(
            message(
                f"The signatures of {path} use lookup tables ({', '.join(tables[:5])}) that only "
                "its init ops fill",
                "Pass --trust to let TensorFlow load it and run its main_op/init ops",
                tables=len(tables),
            )
        )
