"""Replicas that stay one model: graph-mode reductions and the consistency check.

Two things keep N replicas making the update of one device:

- `graph_reductions(strategy)`: a MirroredStrategy made eagerly picks collective ops
  (RING on CPUs), whose IndexedSlices all-gather fails in a TF1 graph when the
  replicas' sparse gradients differ in length (sparse/categorical columns). In a
  session graph, as TF1 did, local replicas reduce on one device instead
  (`ReductionToOneDevice`: sparse gradients concatenated, dense ones summed); across
  workers sparse gradients are all-reduced as rows of the variable's shape.
- `consistency_hook(...)`: after the first training step the replicas' copies of every
  trainable variable must be equal. An optimizer that bypasses the strategy's gradient
  aggregation (its own `apply_gradients` on `tf.gradients`, BERT's pattern) would let
  them drift silently; training stops instead, naming the optimizer and the fix
  (`tf.compat.v1.tpu.CrossShardOptimizer` around it).
"""

from __future__ import annotations

import contextlib
import types
from collections.abc import Iterable, Iterator
from typing import Any

from tfport._common import keras_internals, replica_share, tf_internals
from tfport._common.errors import TfportOperationError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, TFModule

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook

TOLERANCE = 1e-5


def graph_reductions(strategy: object) -> None:
    """Makes a one-worker MirroredStrategy reduce on one device in session graphs.

    Example:
        >>> graph_reductions(strategy)  # doctest: +SKIP
    """
    if not tf_internals.is_single_worker_mirrored(strategy):
        # multi-worker (a subclass): collectives are the only transport
        for launcher in tf_internals.collective_launchers(strategy):
            launcher.all_reduce_indexed_slices = types.MethodType(_slices_as_rows, launcher)
        return
    tf_internals.reduce_to_one_device(strategy)


def _slices_as_rows(launcher: Any, slices: Any, options: object = None) -> Any:
    """All-reduces a sparse gradient across workers with the same shapes at every step.

    In a TF1 session graph a collective's shape is fixed by its first run, so TF's
    gather of each worker's (variable-length) rows fails at the next step ("Shape
    mismatch in the collective instance"). Instead each worker sums its rows into the
    variable's shape, and that sum and a count of the touched rows are all-reduced; the
    result holds the rows any worker touched, as one process's gradient would (after the
    optimizer sums duplicate rows), so sparse optimizers update only those rows.
    """
    tf = import_tf()
    with tf.device(tf_internals.launcher_device(launcher)):
        rows = slices.dense_shape[0]
        total = tf.math.unsorted_segment_sum(slices.values, slices.indices, rows)
        ones = tf.ones_like(slices.indices, dtype=tf.float32)
        touched = tf.math.unsorted_segment_sum(ones, slices.indices, rows)
        total = launcher.all_reduce(total, options=options)
        touched = launcher.all_reduce(touched, options=options)
        indices = tf.where(touched > 0)[:, 0]
        return tf.IndexedSlices(
            tf.gather(total, indices), tf.cast(indices, slices.indices.dtype), slices.dense_shape
        )


@contextlib.contextmanager
def recording_optimizers(found: list) -> Iterator[None]:
    """Appends to `found` the class names of v1 optimizers made inside the block that
    replace `apply_gradients` (they apply gradients without the strategy's aggregation),
    and "CrossShardOptimizer" when one wraps an optimizer.

    Example:
        >>> with recording_optimizers([]):
        ...     pass
    """
    base = import_tf().compat.v1.train.Optimizer
    original = base.__init__

    def init(self: Any, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        cls = type(self)
        if cls.apply_gradients is not base.apply_gradients and cls.__name__ not in found:
            found.append(cls.__name__)

    base.__init__ = init
    try:
        yield
    finally:
        base.__init__ = original


def consistency_hook(optimizers: list) -> Any:
    """A SessionRunHook: after the first step, replicas' variable copies must be equal.

    The comparison is built in `begin()`, in the graph the session runs (a step may have
    been built inside a steps-per-loop body).

    Example:
        >>> hook = consistency_hook(["AdamWeightDecayOptimizer"])  # doctest: +SKIP
    """
    return ReplicaConsistencyHook(optimizers)


class ReplicaConsistencyHook(_SessionRunHook):
    """Stops training when the replicas' variable copies differ after the first step."""

    def __init__(self, optimizers: list) -> None:
        self._optimizers = optimizers
        self._names: list = []
        self._gaps: list = []
        self._checked = False

    def begin(self) -> None:
        for v in tf.compat.v1.trainable_variables():
            if tf_internals.is_distributed_values(v) and len(v.values) > 1:
                for c in v.values[1:]:
                    self._names.append(v.name.split(":")[0])
                    self._gaps.append(tf.math.reduce_max(tf.abs(c - v.values[0])))

    def after_run(self, run_context: Any, run_values: object) -> None:
        if self._checked or not self._gaps:
            return
        self._checked = True
        values = run_context.session.run(self._gaps)
        worst = max(range(len(values)), key=lambda i: values[i])
        if values[worst] > TOLERANCE:
            name = self._names[worst]
            raise TfportOperationError(drift_message(name, values[worst], self._optimizers))


def drift_message(name: str, gap: float, optimizers: list) -> str:
    """The stop message: the cause found (never a fix the program already has).

    Example:
        >>> "LAMB" in drift_message("w", 0.1, ["LAMB"])
        True
    """
    own = [o for o in optimizers if o != "CrossShardOptimizer"]
    wrapped = "CrossShardOptimizer" in optimizers
    if own and not wrapped:
        cause = (
            f"{' or '.join(own)} applies gradients itself (no cross-replica aggregation) and "
            "the gradients it applied were not all-reduced (tfport all-reduces those of "
            "tf.gradients; these came from elsewhere, e.g. compute_gradients or a tape)"
        )
        fix = (
            "Compute them with tf.gradients(loss, tvars), or wrap the optimizer in "
            "tf.compat.v1.tpu.CrossShardOptimizer"
        )
    else:
        cause = (
            "the gradients were aggregated, so something else in the step differs by "
            "replica (replica-local state or random ops outside the batch rows, a variable "
            "assigned per replica)"
        )
        fix = "Run it on one device to compare, and report the model to tfport if it trains there"
    return message(
        f"The replicas' copies of {name} differ after the first step: {cause}",
        fix,
        variable=name,
        max_difference=float(gap),
        optimizers=optimizers,
    )


@contextlib.contextmanager
def keras_mean_losses() -> Iterator[None]:
    """Lets tf_keras losses with the default reduction (a batch mean) run in replicas.

    Each replica's loss is then its minibatch's mean, and v1 optimizers scale it by 1/N
    before summing the gradients: one device's mean over the global batch. (tf_keras
    refuses `Reduction.AUTO` under a strategy outside `Model.fit`.)

    Example:
        >>> with keras_mean_losses():
        ...     pass
    """
    with keras_internals.tf_keras_losses_allow_sum_over_batch():
        yield


def batch_shares(strategy: object, features: Features, labels: Labels) -> Any:
    """Each local replica's share `b_r / B` of this global batch, as a PerReplica value.

    None on several workers (each worker sees only its own replicas; their batches
    divide evenly, so the shares are 1/N) or when no batch dimension is found.

    Example:
        >>> shares = batch_shares(strategy, features, labels)  # doctest: +SKIP
    """
    tf = import_tf()
    sizes = _replica_sizes(tf, strategy, features, labels)
    if sizes is None:
        return None
    total = tf.math.add_n(sizes)
    return tf_internals.per_replica(tuple(size / total for size in sizes))


def _replica_sizes(tf: TFModule, strategy: Any, features: Features, labels: Labels) -> list | None:
    """The local replicas' example counts of this batch (None: several workers, unknown,
    or one replica)."""
    if not tf_internals.is_single_worker_mirrored(strategy):
        return None
    leaves = [x for x in tf.nest.flatten(labels) + tf.nest.flatten(features) if x is not None]
    if not leaves:
        return None
    sizes = [_rows(tf, part) for part in strategy.experimental_local_results(leaves[0])]
    if any(size is None for size in sizes) or len(sizes) < 2:
        return None
    return sizes


def batch_rows(strategy: object, features: Features, labels: Labels) -> Any:
    """Each local replica's `[offset, rows, total]` of this global batch (PerReplica), or None.

    Example:
        >>> rows = batch_rows(strategy, features, labels)  # doctest: +SKIP
    """
    tf = import_tf()
    sizes = _replica_sizes(tf, strategy, features, labels)
    if sizes is None:
        return None
    known = [tf.get_static_value(size) for size in sizes]
    if all(size is not None for size in known):  # a static batch: constants
        return tf_internals.per_replica(
            tuple(
                tf.constant([int(sum(known[:r])), int(known[r]), int(sum(known))], tf.int64)
                for r in range(len(known))
            )
        )
    total = tf.math.add_n(sizes)
    offsets = [tf.math.add_n([tf.zeros([]), *sizes[:r]]) for r in range(len(sizes))]
    return tf_internals.per_replica(
        tuple(tf.cast(tf.stack([o, n, total]), tf.int64) for o, n in zip(offsets, sizes))
    )


def _rows(tf: TFModule, value: Any) -> Any:
    if isinstance(value, tf.SparseTensor):
        return tf.cast(value.dense_shape[0], tf.float32)
    if isinstance(value, tf.RaggedTensor):
        return tf.cast(value.nrows(), tf.float32)
    if tf.is_tensor(value) and value.shape.rank:
        if value.shape[0] is not None:  # static: a constant (batch_rows keeps it static)
            return tf.constant(float(value.shape[0]))
        return tf.cast(tf.shape(value)[0], tf.float32)
    return None


@contextlib.contextmanager
def share_scaled_losses() -> Iterator[None]:
    """Mean-reduced losses scaled by the replica's batch share instead of 1/N.

    Covers v1 optimizers (`Optimizer._scale_loss`), tf_keras compiled losses and Keras 3
    losses (`scale_loss_for_distribution`); heads and CrossShardOptimizer read the share
    themselves (`tfport._common.replica_share`).

    Example:
        >>> with share_scaled_losses():
        ...     pass
    """
    tf = import_tf()

    def scale_loss(loss_value: object) -> Any:
        graph = tf.compat.v1.get_default_graph()
        tf_internals.mark_loss_scaled(graph, False)
        if tf_internals.loss_reduction_is_mean():
            if tf.distribute.get_strategy().num_replicas_in_sync > 1:
                loss_value = replica_share.scaled(loss_value)
                tf_internals.mark_loss_scaled(graph, True)
        return loss_value

    with (
        tf_internals.v1_optimizer_loss_scaling(scale_loss),
        keras_internals.loss_scaling_replaced(replica_share.scaled, replica_share.unscaled),
    ):
        yield


@contextlib.contextmanager
def all_reduced_gradients() -> Iterator[None]:
    """`tf.gradients` in a replica returns one device's gradients for the model's variables.

    Programs that compute their gradients with `tf.gradients` and apply them with their
    own optimizer (LAMB, AdamWeightDecay: `apply_gradients` overridden, no strategy
    aggregation), often after `tf.clip_by_global_norm`, get the all-replica gradient of
    the global batch (each replica's gradient times its batch share, summed, as
    `CrossShardOptimizer` does before it applies them): every replica applies the same
    update, and clipping sees one device's norm. A TF optimizer's `apply_gradients`,
    which sums the replicas' gradients itself, is given each replica's share of them.
    `CrossShardOptimizer` around either is unchanged (averaging equal gradients).

    Example:
        >>> with all_reduced_gradients():
        ...     pass
    """
    tf = import_tf()
    base = tf.compat.v1.train.Optimizer
    reduced: set = set()
    originals = {"v1": tf.compat.v1.gradients, "v2": tf.gradients}
    apply = base.apply_gradients

    def wrap(original: Any) -> Any:
        def gradients(ys: object, xs: object, *args: object, **kwargs: object) -> Any:
            grads = original(ys, xs, *args, **kwargs)
            return _reduce_to_one_device(tf, xs, grads, reduced)

        return gradients

    def apply_shares(
        self: Any, grads_and_vars: Iterable[tuple[object, object]], *args: object, **kwargs: object
    ) -> Any:
        pairs = [
            (_times(tf, g, replica_share.mean_scale()) if id(g) in reduced else g, v)
            for g, v in grads_and_vars
        ]
        return apply(self, pairs, *args, **kwargs)

    tf.compat.v1.gradients, tf.gradients = wrap(originals["v1"]), wrap(originals["v2"])
    base.apply_gradients = apply_shares
    try:
        yield
    finally:
        tf.compat.v1.gradients, tf.gradients = originals["v1"], originals["v2"]
        base.apply_gradients = apply


def _reduce_to_one_device(tf: TFModule, xs: Any, grads: list, reduced: set) -> list:
    """`grads` of distributed trainable `xs` replaced by their all-replica sum of shares."""
    if not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context():
        return grads
    if tf.distribute.get_replica_context().num_replicas_in_sync <= 1:
        return grads
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    grads = list(grads)
    present = [
        i
        for i, (g, x) in enumerate(zip(grads, xs))
        if g is not None and tf_internals.is_distributed_values(x) and x.trainable
    ]
    if not present:
        return grads
    share = replica_share.mean_scale()
    pairs = [(_times(tf, grads[i], share), xs[i]) for i in present]
    summed = tf.distribute.get_replica_context().merge_call(_sum_to_variables, args=(pairs,))
    for i, g in zip(present, summed):
        grads[i] = g
        reduced.add(id(g))
    return grads


def _sum_to_variables(strategy: Any, pairs: list) -> list:
    tf = import_tf()
    return strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.SUM, pairs)


def _times(tf: TFModule, grad: Any, factor: object) -> Any:
    if isinstance(grad, tf.IndexedSlices):
        values = grad.values * tf.cast(factor, grad.values.dtype)
        return tf.IndexedSlices(values, grad.indices, grad.dense_shape)
    return grad * tf.cast(factor, grad.dtype)
