"""`CrossShardOptimizer` under every strategy: gradients averaged across replicas first.

Inside a TPU computation TF's own `CrossShardOptimizer` sums over shards. Under a
distribution strategy (Mirrored, multi-worker) this wrapper makes each replica's
gradients the all-replica mean before the wrapped optimizer applies them, whether they
come from its own `compute_gradients` (already scaled by 1/N) or from `tf.gradients`
(BERT's pattern), and whether the wrapped optimizer applies them itself (its own
`apply_gradients`) or through TensorFlow's (which sums across replicas). On one device
it is the wrapped optimizer.
"""

from __future__ import annotations

from typing import Any

from tfport._common import replica_share, tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import V1Optimizer

tf = import_tf()
_Optimizer: Any = tf.compat.v1.train.Optimizer


def replicas_in_sync() -> int:
    """Replicas of the current replica context (1 outside any strategy).

    Example:
        >>> replicas_in_sync()
        1
    """
    tf = import_tf()
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return 1
    return tf.distribute.get_replica_context().num_replicas_in_sync


def overrides_apply(opt: object) -> bool:
    """True when `opt`'s class replaces `tf.compat.v1.train.Optimizer.apply_gradients`.

    Example:
        >>> overrides_apply(object())
        False
    """
    base = import_tf().compat.v1.train.Optimizer
    method = getattr(type(opt), "apply_gradients", None)
    return isinstance(opt, base) and method is not base.apply_gradients


def mean_apply(
    opt: V1Optimizer,
    grads_and_vars: Any,
    global_step: object = None,
    name: str | None = None,
    scaled: frozenset = frozenset(),
) -> Any:
    """Applies the all-replica mean of `grads_and_vars` with `opt` (in a replica context).

    `scaled` holds the ids of gradients already scaled by 1/N (from compute_gradients).

    Example:
        >>> op = mean_apply(opt, zip(grads, tvars))  # doctest: +SKIP
    """
    tf = import_tf()
    pairs = list(grads_and_vars)
    n = replicas_in_sync()
    apply = type(opt).apply_gradients
    if n == 1:
        return apply(opt, pairs, global_step=global_step, name=name)
    share = replica_share.mean_scale()  # b_r / B (1/N when the batch divides evenly)
    pairs = [(g if g is None or id(g) in scaled else g * share, v) for g, v in pairs]
    if not overrides_apply(opt):
        return apply(opt, pairs, global_step=global_step, name=name)  # TF sums: the mean
    present = [i for i, (g, _) in enumerate(pairs) if g is not None]
    if present:
        # merge_call, not ReplicaContext.all_reduce: its custom gradient cannot find
        # the replicas' variable copies in a TF1 graph.
        summed = tf.distribute.get_replica_context().merge_call(
            _sum_to_variables, args=([pairs[i] for i in present],)
        )
        for i, g in zip(present, summed):
            pairs[i] = (g, pairs[i][1])
    return apply(opt, pairs, global_step=global_step, name=name)


def _sum_to_variables(strategy: Any, pairs: list) -> list:
    tf = import_tf()
    return strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM, pairs)


def wrapper_class() -> type:
    """The `CrossShardOptimizer` class used outside TPU computations.

    Example:
        >>> cls = wrapper_class()  # doctest: +SKIP
    """
    return CrossShardOptimizer


class CrossShardOptimizer(_Optimizer):
    """Wraps `opt`: gradients all-reduced (mean) across replicas before it applies them."""

    def __init__(self, opt: V1Optimizer, name: str = "CrossShardOptimizer") -> None:
        super().__init__(False, name)
        self._opt = opt
        self._scaled: set = set()

    def compute_gradients(self, loss: object, var_list: object = None, **kwargs: object) -> list:
        pairs = self._opt.compute_gradients(loss, var_list=var_list, **kwargs)
        graph = tf.compat.v1.get_default_graph()
        if tf_internals.loss_scaled_by_optimizer(graph):  # loss * 1/N
            self._scaled.update(id(g) for g, _ in pairs if g is not None)
        return pairs

    def apply_gradients(
        self, grads_and_vars: object, global_step: object = None, name: str | None = None
    ) -> Any:
        scaled = frozenset(self._scaled)
        return mean_apply(self._opt, grads_and_vars, global_step, name, scaled)

    def get_slot(self, *args: object, **kwargs: object) -> Any:
        return self._opt.get_slot(*args, **kwargs)

    def get_slot_names(self, *args: object, **kwargs: object) -> list:
        return self._opt.get_slot_names(*args, **kwargs)

    def variables(self) -> list:
        return self._opt.variables()


def cross_shard_optimizer(
    opt: V1Optimizer,
    reduction: object = None,
    name: str = "CrossShardOptimizer",
    group_assignment: object = None,
) -> Any:
    """`CrossShardOptimizer` that works everywhere.

    Inside a TPU computation it is TF's own (cross-replica sum). Inside N > 1 replicas
    of a strategy it all-reduces the gradients (their mean) before the wrapped optimizer
    applies them, also when they come from `tf.gradients` and the wrapped optimizer has
    its own `apply_gradients` (BERT's pattern). On one device it is the wrapped optimizer.

    Example:
        >>> opt = cross_shard_optimizer(tf.compat.v1.train.GradientDescentOptimizer(0.1))
        ... # doctest: +SKIP
    """
    if tf_internals.tpu_shard_count() is not None:
        kwargs = {"name": name, "group_assignment": group_assignment}
        if reduction is not None:
            kwargs["reduction"] = reduction
        return tf_internals.cross_shard_optimizer_class()(opt, **kwargs)
    if replicas_in_sync() > 1:
        return wrapper_class()(opt, name=name)
    return opt
