"""TensorFlow internals of distribution strategies and their replicas.

Distributed values, a multi-worker strategy's layout and cross-device ops, replica
contexts and the per-graph stacks a replica builds with, the replica name scopes, and
the loss scaling and reduction v1 code reads from a graph.

Example:
    >>> from tfport._common.tf_internals import distribute
    >>> ("distribute.values", "PerReplica") in distribute.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("distribute.values", "DistributedValues"),
    ("distribute.values", "PerReplica"),
    ("distribute.mirrored_strategy", "MirroredExtended"),
    ("distribute.cross_device_ops", "CollectiveAllReduce"),
    ("distribute.cross_device_ops", "ReductionToOneDevice"),
    ("distribute.distribute_utils", "get_loss_reduction"),
    ("distribute.reduce_util", "ReduceOp"),
    ("distribute.distribute_lib", "_DefaultReplicaThreadMode"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here. The class has it (a method) or sets it on its instances
# (`self.<attribute> = ...` in its source).
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    (
        "distribute.collective_all_reduce_strategy",
        "CollectiveAllReduceExtended",
        "_in_multi_worker_mode",
    ),
    ("distribute.collective_all_reduce_strategy", "CollectiveAllReduceExtended", "_num_workers"),
    ("distribute.collective_all_reduce_strategy", "CollectiveAllReduceExtended", "_id_in_cluster"),
    ("distribute.mirrored_strategy", "MirroredExtended", "_cross_device_ops"),
    ("distribute.cross_device_ops", "CollectiveAllReduce", "_launchers"),
    ("distribute.cross_device_utils", "CollectiveReplicaLauncher", "_device"),
    ("distribute.distribute_lib", "StrategyBase", "_scale_loss_for_estimator_enabled"),
    (
        "distribute.distribute_lib",
        "StrategyExtendedV2",
        "_experimental_distribute_values_from_function",
    ),
    ("distribute.distribute_lib", "ReplicaContext", "_replica_id_in_sync_group"),
    ("distribute.distribute_lib", "ReplicaContext", "_thread_context"),
    ("distribute.distribute_lib", "ReplicaContext", "_strategy"),
    ("framework.ops", "Graph", "_is_loss_scaled_by_optimizer"),
    ("framework.ops", "Graph", "_last_loss_reduction"),
    ("framework.ops", "Graph", "_distribution_strategy_stack"),
    ("framework.ops", "Graph", "_variable_creator_stack"),
)

# --- distributed values, workers, cross-device ops ------------------------------------


def is_distributed_values(value: Any) -> bool:
    """True for a MirroredVariable, PerReplica, ... (`values.DistributedValues`, TF >= 2.0)."""
    return isinstance(value, tf_symbol("distribute.values", "DistributedValues"))


def per_replica(values: tuple) -> Any:
    """`values.PerReplica(values)`: one value per local replica (TF >= 2.0)."""
    return tf_symbol("distribute.values", "PerReplica")(values)


def distribute_values_from_function(strategy: Any, value_fn: Any) -> Any:
    """Per-replica values made by `value_fn(value_context)` on each replica of `strategy`.

    Relies on `tf.distribute.Strategy.experimental_distribute_values_from_function` (v2
    strategies) or, for the v1 strategies the Estimator engine uses (which lack the public
    method), the private `StrategyExtended._experimental_distribute_values_from_function`.

    Example:
        >>> distribute_values_from_function(strategy, lambda ctx: x[ctx.replica_id_in_sync_group])
        ... # doctest: +SKIP
    """
    public = getattr(strategy, "experimental_distribute_values_from_function", None)
    if public is not None:
        return public(value_fn)
    return strategy.extended._experimental_distribute_values_from_function(value_fn)


def is_single_worker_mirrored(strategy: Any) -> bool:
    """True when `strategy.extended` is exactly `MirroredExtended` (not multi-worker)."""
    extended = getattr(strategy, "extended", None)
    return type(extended) is tf_symbol("distribute.mirrored_strategy", "MirroredExtended")


def in_multi_worker_mode(strategy: Any) -> bool:
    """`strategy.extended._in_multi_worker_mode()` (False where absent; TF >= 2.0)."""
    check = getattr(strategy.extended, "_in_multi_worker_mode", None)
    return bool(check and check())


def worker_position(strategy: Any) -> tuple[int, int]:
    """`(workers, this worker's index)` of a multi-worker strategy.

    `extended._num_workers` and `extended._id_in_cluster` (CollectiveAllReduceExtended,
    TF >= 2.0).
    """
    extended = strategy.extended
    return int(extended._num_workers), int(extended._id_in_cluster)


def collective_launchers(strategy: Any) -> tuple:
    """The collective launchers of a multi-worker strategy's cross-device ops, else ().

    `extended._cross_device_ops._launchers` (CollectiveAllReduce, TF >= 2.4).
    """
    extended = getattr(strategy, "extended", None)
    return tuple(getattr(getattr(extended, "_cross_device_ops", None), "_launchers", ()))


def launcher_device(launcher: Any) -> Any:
    """The device a collective launcher runs on (`CollectiveReplicaLauncher._device`)."""
    return launcher._device


def reduce_to_one_device(strategy: Any) -> None:
    """Replaces a single-worker MirroredStrategy's collective all-reduce (graph mode).

    `extended._cross_device_ops`, `CollectiveAllReduce`, `ReductionToOneDevice` (TF >= 2.0).
    """
    extended = strategy.extended
    if isinstance(
        extended._cross_device_ops, tf_symbol("distribute.cross_device_ops", "CollectiveAllReduce")
    ):
        extended._cross_device_ops = tf_symbol(
            "distribute.cross_device_ops", "ReductionToOneDevice"
        )()


# --- replica contexts and what a replica builds with ----------------------------------


def replica_id() -> int | None:
    """The replica id (a Python int) of the current replica context; None in a
    cross-replica context or without a strategy.

    Relies on `ReplicaContext._replica_id_in_sync_group`: the public property makes a
    constant op in a graph, and adding ops would renumber later op seeds.
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    context = tf.distribute.get_replica_context()
    if context is None or not tf.distribute.has_strategy():
        return None
    value = context._replica_id_in_sync_group
    return value if isinstance(value, int) else tf.get_static_value(value)


_REPLICA_SCOPE = re.compile(r"(^|/)replica_\d+/")


def unreplicated_name(name: str) -> str:
    """`name` without the `replica_N/` name scope a strategy gives replica N > 0's ops.

    Example:
        >>> unreplicated_name("dnn/replica_1/hiddenlayer_0")
        'dnn/hiddenlayer_0'
    """
    return _REPLICA_SCOPE.sub(r"\1", name)


def use_default_replica_thread_mode(replica_context: Any) -> None:
    """Makes `replica_context` answer with the default strategy's thread mode and strategy
    (`distribute_lib._DefaultReplicaThreadMode`, `ReplicaContext._thread_context` and
    `_strategy`, TF >= 2.0), as legacy's TPU replica context did for variable access."""
    mode = tf_symbol("distribute.distribute_lib", "_DefaultReplicaThreadMode")()
    replica_context._thread_context = mode
    replica_context._strategy = mode.strategy


@contextlib.contextmanager
def outer_graph_shares_replica_stacks() -> Iterator[None]:
    """In a function graph built by a replica thread, the outer graph gets its stacks.

    The outer graph's `_distribution_strategy_stack` and `_variable_creator_stack` are
    the inner (function) graph's for the block, so `init_scope` creates variables as the
    replica would (per-graph, per-thread stacks of `ops.Graph`, TF >= 2.0). Does nothing
    outside a function graph or when the outer context is eager.
    """
    import tensorflow as tf

    inner = tf.compat.v1.get_default_graph()
    if not getattr(inner, "building_function", False):
        yield
        return
    with tf.init_scope():
        outer = tf.compat.v1.get_default_graph()
    if outer is inner or getattr(outer, "building_function", False):
        yield  # eager outer context (tf.function): nothing to lift into
        return
    saved = (outer._distribution_strategy_stack, outer._variable_creator_stack)
    outer._distribution_strategy_stack = list(inner._distribution_strategy_stack)
    outer._variable_creator_stack = inner._variable_creator_stack
    try:
        yield
    finally:
        outer._distribution_strategy_stack, outer._variable_creator_stack = saved


# --- loss scaling and reduction --------------------------------------------------------


def scale_loss_for_estimator(strategy: Any) -> Any:
    """`strategy._scale_loss_for_estimator_enabled()`: v1 optimizers divide losses by N.

    The context manager TF kept for the Estimator (TF >= 2.2).
    """
    return strategy._scale_loss_for_estimator_enabled()


def loss_reduction_is_mean() -> bool:
    """True when the current loss reduction is MEAN (`distribute_utils.get_loss_reduction`)."""
    reduce_op = tf_symbol("distribute.reduce_util", "ReduceOp")
    return tf_symbol("distribute.distribute_utils", "get_loss_reduction")() == reduce_op.MEAN


def mark_loss_scaled(graph: Any, scaled: bool) -> None:
    """Sets `graph._is_loss_scaled_by_optimizer` (read by v1 loss reductions; TF >= 2.0)."""
    graph._is_loss_scaled_by_optimizer = scaled


def loss_scaled_by_optimizer(graph: Any) -> bool:
    """`graph._is_loss_scaled_by_optimizer` (False where unset; TF >= 2.0)."""
    return bool(getattr(graph, "_is_loss_scaled_by_optimizer", False))


def last_loss_reduction(graph: Any) -> Any:
    """`graph._last_loss_reduction` (set by v1 `compute_weighted_loss`, TF >= 2.0), or None."""
    return getattr(graph, "_last_loss_reduction", None)


def set_last_loss_reduction(graph: Any, reduction: str) -> None:
    """Sets `graph._last_loss_reduction` as v1 `compute_weighted_loss` does."""
    graph._last_loss_reduction = reduction
