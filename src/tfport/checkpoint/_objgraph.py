"""The object graph of TF2 object-based checkpoints (`_CHECKPOINTABLE_OBJECT_GRAPH`).

Gives, per checkpoint key, the object path from the root (`model/layer-1/kernel`)
and, per slot variable, the variable it belongs to and the slot's name.

Example:
    >>> paths, slots = describe(reader.object_graph())  # doctest: +SKIP
"""

from __future__ import annotations

from collections import deque


def describe(graph) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """({checkpoint key: object path}, {slot key: (variable key, slot name)})."""
    if graph is None or not graph.nodes:
        return {}, {}
    node_path = {0: ""}
    queue = deque([0])
    while queue:
        node_id = queue.popleft()
        for child in graph.nodes[node_id].children:
            if child.node_id not in node_path and 0 <= child.node_id < len(graph.nodes):
                base = node_path[node_id]
                node_path[child.node_id] = (
                    f"{base}/{child.local_name}" if base else child.local_name
                )
                queue.append(child.node_id)
    keys: dict[int, str] = {}
    paths: dict[str, str] = {}
    for node_id, node in enumerate(graph.nodes):
        for attr in node.attributes:
            keys.setdefault(node_id, attr.checkpoint_key)
            if node_id in node_path:
                paths[attr.checkpoint_key] = node_path[node_id]
    slots: dict[str, tuple[str, str]] = {}
    for node in graph.nodes:
        for ref in node.slot_variables:
            if ref.slot_variable_node_id in keys and ref.original_variable_node_id in keys:
                slots[keys[ref.slot_variable_node_id]] = (
                    keys[ref.original_variable_node_id],
                    ref.slot_name,
                )
    return paths, slots
