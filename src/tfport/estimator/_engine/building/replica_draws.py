"""Replicated random draws and step ordering: tfport's algorithms over TF's graph ops.

Under a strategy each replica builds the model step on its rows of the global batch;
these make its random draws one device's (op seeds shared across replicas, each draw of
the replica's rows cut from the global batch's), keep a seeded program's op seeds
independent of `iterations_per_loop`, and order a step's own global-step increments
after its reads. They reach TensorFlow's internals only through the boundary,
`tf_internals` (the op-seed function, the random op builders, control-flow contexts,
control edges).

Example:
    >>> from tfport.estimator._engine.building import replica_draws
    >>> with replica_draws.replica_random_draws():
    ...     pass
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Graph, GraphTensor, RandomOp, SeedFunction, TFModule

# --- op seeds of a steps-per-loop body ---------------------------------------------------


@contextlib.contextmanager
def op_seeds_from(graph: Graph) -> Iterator[None]:
    """Random ops made in function graphs nested in `graph` (a `while_v2` body) draw
    their op seeds from `graph`'s counter, as the same ops made in `graph` itself do.

    Relies on the boundary's `get_seed_replaced` (the op-seed function every random op
    looks up) and `graph_op_seed_counters` (its per-graph counters); a `FuncGraph` knows
    its `outer_graph`. Without this a while_v2 body restarts the op-seed count at 0,
    so a seeded program's draws would depend on `iterations_per_loop`.
    """
    tf = import_tf()
    counters = tf_internals.graph_op_seed_counters()

    def counted_in_graph(original: SeedFunction) -> SeedFunction:
        def get_seed(op_seed: int | None) -> tuple[int | None, int | None]:
            current = tf.compat.v1.get_default_graph()
            if op_seed is not None or current is graph or not _nested_in(current, graph):
                return original(op_seed)
            counters[current] = counters.get(graph, 0)
            try:
                return original(op_seed)
            finally:
                counters[graph] = counters[current]

        return get_seed

    with tf_internals.get_seed_replaced(counted_in_graph):
        yield


def _nested_in(inner: object, graph: object) -> bool:
    outer = getattr(inner, "outer_graph", None)
    while outer is not None:
        if outer is graph:
            return True
        outer = getattr(outer, "outer_graph", None)
    return False


# --- one device's draws on every replica -------------------------------------------------

_REPLICA = threading.local()


@contextlib.contextmanager
def replica_rows(rows: GraphTensor) -> Iterator[None]:
    """Marks this replica thread's rows `[offset, count, total]` (an int64 `[3]` tensor:
    rows `[offset, offset + count)` of a `total`-row batch) while its step is built (read
    by `replica_random_draws`). Variables created meanwhile are marked as such: their
    initializers are not draws of the step.
    """
    tf = import_tf()
    previous = getattr(_REPLICA, "rows", None)
    _REPLICA.rows = (rows, tf.get_static_value(rows))
    try:
        with tf.compat.v1.variable_creator_scope(_creating_variable):
            yield
    finally:
        _REPLICA.rows = previous


def _creating_variable(next_creator: Callable[..., object], **kwargs: object) -> object:
    previous = getattr(_REPLICA, "creating", False)
    _REPLICA.creating = True
    try:
        return next_creator(**kwargs)
    finally:
        _REPLICA.creating = previous


@contextlib.contextmanager
def replica_random_draws() -> Iterator[None]:
    """Random ops made in replicas draw one device's numbers for their rows of the batch.

    Two parts, so a seeded program's dropout on N replicas is one device's:
    - op seeds: a random op without an op seed made in replica r > 0 takes the op seed
      of the same op (same name scope, without `replica_r/`) in replica 0, which took
      one device's (the graph's op-seed counter);
    - shapes: a random op whose first dimension is the replica's row count (at run
      time) draws the global batch's rows and keeps the replica's own (Philox draws
      are in flat order, so these are the rows one device drew).

    Relies on the boundary's `get_seed_replaced` and `random_ops_replaced` (the op-seed
    function and the random op builders TensorFlow's random ops look up at each call) and
    on MirroredStrategy's `replica_<r>/` name scopes (`unreplicated_name`).
    """
    tf = import_tf()
    seeds: dict[str, list[tuple[int | None, int | None]]] = {}
    taken: dict[str, int] = {}

    def replica_seeds(get_seed: SeedFunction) -> SeedFunction:
        def replica_seed(op_seed: int | None) -> tuple[int | None, int | None]:
            rows = getattr(_REPLICA, "rows", None)
            if op_seed is not None or rows is None:
                return get_seed(op_seed)
            scope = tf.compat.v1.get_default_graph().get_name_scope()
            base = tf_internals.unreplicated_name(scope)
            if base == scope:  # replica 0 (or one device): the graph's counter
                pair = get_seed(op_seed)
                seeds.setdefault(base, []).append(pair)
                return pair
            index = taken.get(scope, 0)
            taken[scope] = index + 1
            known = seeds.get(base, [])
            return known[index] if index < len(known) else get_seed(op_seed)

        return replica_seed

    with (
        tf_internals.get_seed_replaced(replica_seeds),
        tf_internals.random_ops_replaced(_global_rows_draw),
    ):
        yield


def _global_rows_draw(op: RandomOp) -> RandomOp:
    def draw(
        shape: object, dtype: object, seed: int = 0, seed2: int = 0, name: str | None = None
    ) -> object:
        tf = import_tf()
        rows = _step_rows()
        shape_t = tf.convert_to_tensor(shape)
        if rows is None or shape_t.shape.rank != 1 or not shape_t.shape[0]:
            return op(shape, dtype, seed=seed, seed2=seed2, name=name)
        offset, count, total = _draw_rows(tf, rows, shape_t)
        if count is None:
            return op(shape, dtype, seed=seed, seed2=seed2, name=name)
        batch = tf.equal(shape_t[0], count)
        full = tf.concat([[tf.where(batch, total, shape_t[0])], shape_t[1:]], 0)
        drawn = op(full, dtype, seed=seed, seed2=seed2, name=name)
        start = tf.concat([[tf.where(batch, offset, 0)], tf.zeros_like(shape_t[1:])], 0)
        result = tf.slice(drawn, start, shape_t)
        static = tf.get_static_value(shape_t)
        if static is not None:
            result.set_shape(static)
        return result

    return draw


def _step_rows() -> tuple | None:
    """This replica's `(rows, static rows or None)` when the op being made belongs to its
    step: not a variable's initializer, and in the step's graph (or a function graph
    nested in it) and its control-flow context (or one nested in it; `init_scope` and
    ops outside a steps-per-loop `while_loop` are not). Else None.

    Relies on the boundary's `graph_control_flow_context` and the contexts' `outer_context`.
    """
    tf = import_tf()
    rows = getattr(_REPLICA, "rows", None)
    if rows is None or getattr(_REPLICA, "creating", False):
        return None
    graph = tf.compat.v1.get_default_graph()
    step_graph = rows[0].graph
    if graph is not step_graph and not _nested_in(graph, step_graph):
        return None
    if graph is step_graph:
        context = tf_internals.graph_control_flow_context(graph)
        step_context = tf_internals.control_flow_context(rows[0].op)
        while context is not step_context:
            if context is None:
                return None
            context = context.outer_context
    return rows


def _draw_rows(tf: TFModule, rows: tuple, shape_t: GraphTensor) -> tuple[Any, Any, Any]:
    """`(offset, count, total)` as `shape_t`'s dtype for a draw of `shape_t`, or a None
    count where the draw cannot be the replica's rows.

    A static batch gives constants made here, and only a draw of exactly `count` rows
    is one of the batch's; a batch known at run time only is compared at run time with
    draws whose first dimension is known at run time only (a static first dimension,
    such as a `tf.Variable(tf.random.normal([V, d]))` initial value, is not the batch's).
    """
    tensor, static = rows
    known = tf.get_static_value(shape_t, partial=True)
    first = None if known is None else known[0]
    if static is not None:
        if first is not None and first != static[1]:
            return None, None, None
        offset, count, total = (tf.constant(x, shape_t.dtype) for x in static)
        return offset, count, total
    if first is not None:
        return None, None, None
    offset, count, total = (tf.cast(tensor[i], shape_t.dtype) for i in range(3))
    return offset, count, total


# --- a step's own global-step increments after its reads ---------------------------------

_WRITES = ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")


def order_writes_after_reads(new_ops: list, variable: object) -> int:
    """Makes every write to `variable` among `new_ops` run after its reads among them.

    A model that increments the global step itself (`global_step.assign(global_step + 1)`
    grouped with its train op) and reads it elsewhere in the step (a learning rate)
    leaves the order of the read and the increment to the executor; here each write
    gets the step's other reads as control inputs (reads downstream of a write keep
    their place). `variable` may be distributed (its components' handles count); a
    reference variable (no handle) is left as it is. Returns the number of writes ordered.

    Only reads in the write's own control-flow context count (a read in a v1 cond branch
    that is not taken would make the write dead).

    Relies on the boundary's `add_control_inputs`, `control_outputs` and
    `control_flow_context` and, in a `FuncGraph` (a while_v2 body), `FuncGraph.captures`
    (external, internal) pairs (TF 2.16 - 2.21).
    """
    if not new_ops:
        return 0
    graph = new_ops[0].graph
    external = {internal.name: ext for ext, internal in getattr(graph, "captures", ())}
    components: tuple = tuple(getattr(variable, "values", None) or (variable,))
    if not all(hasattr(c, "handle") for c in components):
        return 0  # reference variables (`disable_resource_variables()`): left as legacy ran
    names = {c.handle.name for c in components}

    def on_variable(op: Any) -> bool:
        if not op.inputs:
            return False
        handle = op.inputs[0]
        return external.get(handle.name, handle).name in names

    reads = [op for op in new_ops if op.type == "ReadVariableOp" and on_variable(op)]
    writes = [op for op in new_ops if op.type in _WRITES and on_variable(op)]
    if not writes or not reads:
        return 0
    downstream = _downstream(writes)
    before = [op for op in reads if op not in downstream]
    for write in writes:
        context = tf_internals.control_flow_context(write)  # a read in a cond branch may never run
        missing = [
            op
            for op in before
            if op not in write.control_inputs and tf_internals.control_flow_context(op) is context
        ]
        if missing:
            tf_internals.add_control_inputs(write, missing)
    return len(writes)


def _downstream(ops: list) -> set:
    seen: set = set()
    stack = list(ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(c for t in op.outputs for c in t.consumers())
        stack.extend(tf_internals.control_outputs(op))
    return seen
