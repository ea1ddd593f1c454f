"""The object graph of TF2 object-based checkpoints (`_CHECKPOINTABLE_OBJECT_GRAPH`).

Gives, per checkpoint key, the object path from the root (`model/layer-1/kernel`)
and, per slot variable, the variable it belongs to and the slot's name.

Example:
    >>> paths, slots = describe(reader.object_graph())  # doctest: +SKIP
"""

from __future__ import annotations

from collections import deque

from tfport._common.messages import TrackableObjectGraph

MAX_PATH_PARTS = 64  # deeper paths keep their last parts: memory stays linear in the graph


def describe(
    graph: TrackableObjectGraph | None,
) -> tuple[dict[str, str], dict[str, tuple[str, str]]]:
    """({checkpoint key: object path}, {slot key: (variable key, slot name)}).

    A path deeper than `MAX_PATH_PARTS` objects is shown as `.../<last parts>` (with the
    depth), so a long chain of objects costs memory linear in its length.
    """
    if graph is None or not graph.nodes:
        return {}, {}
    parent: dict[int, tuple[int, str]] = {0: (-1, "")}
    depth = {0: 0}
    queue = deque([0])
    while queue:
        node_id = queue.popleft()
        for child in graph.nodes[node_id].children:
            if child.node_id not in parent and 0 <= child.node_id < len(graph.nodes):
                parent[child.node_id] = (node_id, child.local_name)
                depth[child.node_id] = depth[node_id] + 1
                queue.append(child.node_id)
    node_path = _Paths(parent, depth)
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


class _Paths:
    """Object paths built on demand from parent links, at most MAX_PATH_PARTS parts each."""

    def __init__(self, parent: dict[int, tuple[int, str]], depth: dict[int, int]) -> None:
        self.parent, self.depth = parent, depth

    def __contains__(self, node_id: int) -> bool:
        return node_id in self.parent

    def __getitem__(self, node_id: int) -> str:
        parts: list[str] = []
        while node_id > 0 and len(parts) < MAX_PATH_PARTS:
            node_id, name = self.parent[node_id]
            parts.append(name)
        path = "/".join(reversed(parts))
        if node_id > 0:
            return f".../(depth {self.depth[node_id]})/{path}"
        return path
