"""TF1 SavedModel structure read from the MetaGraphDef alone: signatures, variables, init ops."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfport._common import protos
from tfport._common.messages import GraphDef, MetaGraphDef, SignatureDef, TensorInfo
from tfport.graph import _index, _ops
from tfport.graph._reports import SignatureReport

# Collections and signature keys whose ops run when TensorFlow loads a SavedModel.
INIT_COLLECTIONS = ("saved_model_main_op", "legacy_init_op", "table_initializer", "main_op")
INIT_SIGNATURE = "__saved_model_init_op"


def init_ops(meta: MetaGraphDef) -> dict[str, list[str]]:
    """Returns {collection or signature key: [op names]} of what a TF loader would run.

    Example:
        >>> init_ops(meta)  # doctest: +SKIP
        {'saved_model_main_op': ['main_op']}
    """
    found: dict[str, list[str]] = {}
    for key in INIT_COLLECTIONS:
        if key in meta.collection_def:
            names = list(meta.collection_def[key].node_list.value)
            if names:
                found[key] = names
    if INIT_SIGNATURE in meta.signature_def:
        outs = meta.signature_def[INIT_SIGNATURE].outputs.values()
        found[INIT_SIGNATURE] = [t.name for t in outs]
    return found


def signatures(meta: MetaGraphDef) -> dict[str, SignatureDef]:
    """Returns the serving signatures (the init-op pseudo-signature left out)."""
    return {k: v for k, v in meta.signature_def.items() if k != INIT_SIGNATURE}


def describe_signature(sig: SignatureDef) -> SignatureReport:
    """Returns a JSON-ready description of a SignatureDef."""

    def tensors(mapping: Mapping[str, TensorInfo]) -> dict[str, Any]:
        return {
            key: {
                "name": info.name,
                "dtype": protos.dtype_name(info.dtype),
                "shape": _index.shape_of(info.tensor_shape),
            }
            for key, info in sorted(mapping.items())
        }

    return {
        "method_name": sig.method_name,
        "inputs": tensors(sig.inputs),
        "outputs": tensors(sig.outputs),
    }


def variables(graph_def: GraphDef) -> list[dict[str, Any]]:
    """Returns the variable nodes (VarHandleOp, VariableV2) with dtype and shape."""
    result = []
    for node in graph_def.node:
        if node.op in _ops.VARIABLE_OPS:
            result.append(
                {
                    "name": node.name,
                    "op": node.op,
                    "dtype": protos.dtype_name(node.attr["dtype"].type),
                    "shape": _index.shape_of(node.attr["shape"].shape),
                }
            )
    return result


def roles(meta: MetaGraphDef, init_runs: bool = False) -> dict[str, str]:
    """Maps each node to what runs it: "signature", "saver", "init" or "other" (first wins).

    With `init_runs` (the caller lets TensorFlow's loader run the init ops) a node both
    the saver and an init op reach is "init".
    """
    nodes = _index.node_map(meta.graph_def)
    sig_seeds = [t.name for sig in signatures(meta).values() for t in sig.outputs.values()]
    saver = meta.saver_def
    saver_seeds = [s for s in (saver.restore_op_name, saver.save_tensor_name) if s]
    init_seeds = [name for names in init_ops(meta).values() for name in names]
    result: dict[str, str] = {}
    order = [("signature", sig_seeds), ("saver", saver_seeds), ("init", init_seeds)]
    if init_runs:
        order[1:] = order[:0:-1]
    for role, seeds in order:
        for name in _index.closure(nodes, seeds):
            result.setdefault(name, role)
    for name in nodes:
        result.setdefault(name, "other")
    return result


def loaded_functions(meta: MetaGraphDef) -> list[str]:
    """The functions `tf.saved_model.load` may run: every concrete function the object
    graph names (its functions, signatures, resource and saveable restore functions).

    Their role comes from here, not from what the `graph_def`'s nodes call: the TF2
    loader never runs the `graph_def`.

    Example:
        >>> loaded_functions(meta)  # doctest: +SKIP
        ['__inference_serve_10', '__inference_signature_wrapper_serve_18']
    """
    graph = meta.object_graph_def
    found = set(graph.concrete_functions.keys())
    for node in graph.nodes:
        kind = node.WhichOneof("kind")
        if kind == "function":
            found.update(node.function.concrete_functions)
        elif kind == "bare_concrete_function":
            found.add(node.bare_concrete_function.concrete_function_name)
    for node in graph.nodes:
        for saveable in node.saveable_objects.values():
            for ref in (saveable.save_function, saveable.restore_function):
                if 0 <= ref < len(graph.nodes) and graph.nodes[ref].WhichOneof("kind"):
                    target = graph.nodes[ref]
                    found.update(target.function.concrete_functions)
                    found.add(target.bare_concrete_function.concrete_function_name)
    found.discard("")
    return sorted(found)


def is_tf2(meta: MetaGraphDef) -> bool:
    """Whether the MetaGraph was written by TF2's `tf.saved_model.save` (has an object graph)."""
    return len(meta.object_graph_def.nodes) > 0


def variable_defs(meta: MetaGraphDef) -> dict[str, dict[str, Any]]:
    """Maps variable node names to their checkpoint key, slice and trainable flag.

    Partitioned variables (``w/part_0``) are stored in the checkpoint under the full
    variable's name (``w``); ``offset``/``shape`` select the part.
    """
    cls = protos.message_class("tensorflow.VariableDef")
    found: dict[str, dict[str, Any]] = {}
    for key in ("variables", "local_variables", "model_variables", "trainable_variables"):
        if key not in meta.collection_def:
            continue
        for raw in meta.collection_def[key].bytes_list.value:
            var = protos.parse_binary(raw, cls, f"collection {key!r} of the MetaGraph")
            info = var.save_slice_info_def
            name = _index.input_node(var.variable_name)
            found[name] = {
                "key": info.full_name or name,
                "offset": list(info.var_offset) if info.full_name else None,
                "shape": list(info.var_shape) if info.full_name else None,
                "trainable": var.trainable,
            }
    return found
