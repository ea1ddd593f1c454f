"""TensorFlow internals of graph ops.

Ops' control-flow contexts, inputs and control edges; the random op builders and the
op-seed function every random op looks up at each call; and op builders with no public
path (contrib's lookup tables, the k-means graph).

Example:
    >>> from tfport._common.tf_internals import ops
    >>> ("framework.random_seed", "get_seed") in ops.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from tfport._common.tf_internals._access import tf_symbol, tf_symbol_replaced
from tfport._common.types import FunctionGraph, Graph, Operation, RandomOp, SeedFunction

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("ops.control_flow_ops", "ControlFlowContext"),
    ("ops.control_flow_ops", "XLAControlFlowContext"),
    ("framework.random_seed", "get_seed"),
    ("framework.random_seed", "_graph_to_seed_dict"),
    ("ops.gen_random_ops", "random_uniform"),
    ("ops.gen_random_ops", "random_standard_normal"),
    ("ops.gen_random_ops", "truncated_normal"),
    ("ops.lookup_ops", "index_table_from_file"),
    ("ops.lookup_ops", "index_table_from_tensor"),
    ("ops.lookup_ops", "index_to_string_table_from_file"),
    ("ops.lookup_ops", "index_to_string_table_from_tensor"),
    ("ops.clustering_ops", "KMeans"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("framework.ops", "Operation", "_get_control_flow_context"),
    ("framework.ops", "Graph", "_get_control_flow_context"),
    ("framework.ops", "Operation", "_update_input"),
    ("framework.ops", "Operation", "_add_control_inputs"),
    ("framework.ops", "Operation", "_control_outputs"),
    ("framework.ops", "Graph", "_get_function"),
)

# --- control-flow contexts, inputs and control edges -----------------------------------


def control_flow_context(op: Any) -> Any:
    """`op._get_control_flow_context()`: the v1 while/cond context of an op, or None."""
    return op._get_control_flow_context()


def graph_control_flow_context(graph: Graph) -> Any:
    """`graph._get_control_flow_context()`: the v1 while/cond context the ops made in
    `graph` now enter, or None (TF >= 1.x).

    Example:
        >>> graph_control_flow_context(tf.Graph()) is None  # doctest: +SKIP
        True
    """
    return graph._get_control_flow_context()  # type: ignore[attr-defined]


def control_flow_context_class() -> Any:
    """`control_flow_ops.ControlFlowContext` (TF >= 1.x): the base of graph control-flow
    contexts; between `Enter()` and `Exit()` its `AddOp(op)` sees each op made in the graph."""
    return tf_symbol("ops.control_flow_ops", "ControlFlowContext")


def xla_control_flow_context_class() -> Any:
    """`control_flow_ops.XLAControlFlowContext` (TF >= 1.x): a control-flow context whose
    `AddOp(op)` sees every op created between its `Enter()` and `Exit()` in a graph."""
    return tf_symbol("ops.control_flow_ops", "XLAControlFlowContext")


def update_op_input(op: Any, index: int, tensor: Any) -> None:
    """Rewires input `index` of a graph op to `tensor` (`Operation._update_input`)."""
    op._update_input(index, tensor)


def add_control_inputs(op: Operation, inputs: list) -> None:
    """Makes `op` run after the ops `inputs` (`Operation._add_control_inputs`, TF >= 1.x).

    Example:
        >>> add_control_inputs(write, [read])  # doctest: +SKIP
    """
    op._add_control_inputs(inputs)  # type: ignore[attr-defined]


def control_outputs(op: Operation) -> list:
    """The ops that have `op` as a control input (`Operation._control_outputs`, TF >= 1.x).

    Example:
        >>> control_outputs(read)  # doctest: +SKIP
        []
    """
    return list(op._control_outputs)  # type: ignore[attr-defined]


def function_graph(graph: Graph, name: str) -> FunctionGraph:
    """The graph of the function `name` in `graph`'s library, as built in this process: a
    `tf.cond` branch, a `tf.while_loop` condition or body (`Graph._get_function(name).graph`,
    TF >= 2.x).

    Example:
        >>> function_graph(graph, if_op.get_attr("then_branch").name)  # doctest: +SKIP
        <...CondBranchFuncGraph ...>
    """
    return graph._get_function(name).graph  # type: ignore[attr-defined]


# --- random ops and their op seeds -----------------------------------------------------


@contextlib.contextmanager
def get_seed_replaced(wrap: Callable[[SeedFunction], SeedFunction]) -> Iterator[None]:
    """Within it, `random_seed.get_seed` is `wrap(<the function before>)`; restored on exit.

    Every TensorFlow random op looks `get_seed` up through its module at each call
    (TF >= 1.x), so the wrapper gives the op seed of each random op made meanwhile.

    Example:
        >>> with get_seed_replaced(lambda get_seed: get_seed):
        ...     pass
    """
    original = tf_symbol("framework.random_seed", "get_seed")
    with tf_symbol_replaced("framework.random_seed", "get_seed", wrap(original)):
        yield


def graph_op_seed_counters() -> MutableMapping[object, int]:
    """`random_seed._graph_to_seed_dict`: `{graph: its op-seed counter}` (weakly keyed),
    the mapping `get_seed` counts the op seeds of a graph in (TF >= 2.0); changes made
    to it count.

    Example:
        >>> import tensorflow as tf
        >>> graph_op_seed_counters().get(tf.Graph(), 0)
        0
    """
    return tf_symbol("framework.random_seed", "_graph_to_seed_dict")


@contextlib.contextmanager
def random_ops_replaced(wrap: Callable[[RandomOp], RandomOp]) -> Iterator[None]:
    """Within it, `gen_random_ops.random_uniform`, `random_standard_normal` and
    `truncated_normal` are each `wrap(<the builder before>)`; restored on exit.

    TensorFlow's random ops (`tf.random.uniform`, `normal`, `truncated_normal`, dropout)
    look these builders up through their module at each call (TF >= 1.x).

    Example:
        >>> with random_ops_replaced(lambda op: op):
        ...     pass
    """
    uniform = tf_symbol("ops.gen_random_ops", "random_uniform")
    normal = tf_symbol("ops.gen_random_ops", "random_standard_normal")
    truncated = tf_symbol("ops.gen_random_ops", "truncated_normal")
    with (
        tf_symbol_replaced("ops.gen_random_ops", "random_uniform", wrap(uniform)),
        tf_symbol_replaced("ops.gen_random_ops", "random_standard_normal", wrap(normal)),
        tf_symbol_replaced("ops.gen_random_ops", "truncated_normal", wrap(truncated)),
    ):
        yield


# --- op builders with no public path ---------------------------------------------------


def index_table_from_file(*args: object, **kwargs: object) -> Any:
    """`lookup_ops.index_table_from_file(...)`: a string -> id table read from a vocabulary
    file (contrib's; TF >= 1.x, outside the public API).

    Example:
        >>> table = index_table_from_file("vocab.txt")  # doctest: +SKIP
    """
    return tf_symbol("ops.lookup_ops", "index_table_from_file")(*args, **kwargs)


def index_table_from_tensor(*args: object, **kwargs: object) -> Any:
    """`lookup_ops.index_table_from_tensor(...)`: a string -> id table of a 1-D string
    tensor (contrib's; TF >= 1.x).

    Example:
        >>> table = index_table_from_tensor(tf.constant(["a", "b"]))  # doctest: +SKIP
    """
    return tf_symbol("ops.lookup_ops", "index_table_from_tensor")(*args, **kwargs)


def index_to_string_table_from_file(*args: object, **kwargs: object) -> Any:
    """`lookup_ops.index_to_string_table_from_file(...)`: an id -> string table read from
    a vocabulary file (contrib's; TF >= 1.x).

    Example:
        >>> table = index_to_string_table_from_file("vocab.txt")  # doctest: +SKIP
    """
    return tf_symbol("ops.lookup_ops", "index_to_string_table_from_file")(*args, **kwargs)


def index_to_string_table_from_tensor(*args: object, **kwargs: object) -> Any:
    """`lookup_ops.index_to_string_table_from_tensor(...)`: an id -> string table of a 1-D
    string tensor (contrib's; TF >= 1.x).

    Example:
        >>> table = index_to_string_table_from_tensor(tf.constant(["a"]))  # doctest: +SKIP
    """
    return tf_symbol("ops.lookup_ops", "index_to_string_table_from_tensor")(*args, **kwargs)


def kmeans_class() -> Any:
    """`clustering_ops.KMeans`: the k-means graph builder (`training_graph()`; TF >= 1.x,
    no public path).

    Example:
        >>> kmeans_class().__name__
        'KMeans'
    """
    return tf_symbol("ops.clustering_ops", "KMeans")
