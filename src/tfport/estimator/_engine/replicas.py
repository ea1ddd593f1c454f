"""Replicas that stay one model: graph-mode reductions and the consistency check.

Two things keep N replicas making the update of one device:

- `graph_reductions(strategy)`: a MirroredStrategy made eagerly picks collective ops
  (RING on CPUs), whose IndexedSlices all-gather fails in a TF1 graph when the
  replicas' sparse gradients differ in length (sparse/categorical columns). In a
  session graph, as TF1 did, local replicas reduce on one device instead
  (`ReductionToOneDevice`: sparse gradients concatenated, dense ones summed).
- `consistency_hook(...)`: after the first training step the replicas' copies of every
  trainable variable must be equal. An optimizer that bypasses the strategy's gradient
  aggregation (its own `apply_gradients` on `tf.gradients`, BERT's pattern) would let
  them drift silently; training stops instead, naming the optimizer and the fix
  (`tf.compat.v1.tpu.CrossShardOptimizer` around it).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tfport._common.errors import TfportOperationError, message
from tfport._common.tfenv import import_tf

TOLERANCE = 1e-5


def graph_reductions(strategy: Any) -> None:
    """Makes a one-worker MirroredStrategy reduce on one device in session graphs.

    Example:
        >>> graph_reductions(strategy)  # doctest: +SKIP
    """
    from tensorflow.python.distribute import cross_device_ops, mirrored_strategy

    extended = getattr(strategy, "extended", None)
    if type(extended) is not mirrored_strategy.MirroredExtended:
        return  # multi-worker (a subclass): collectives are the only transport
    if isinstance(extended._cross_device_ops, cross_device_ops.CollectiveAllReduce):
        extended._cross_device_ops = cross_device_ops.ReductionToOneDevice()


@contextlib.contextmanager
def recording_optimizers(found: list) -> Iterator[None]:
    """Appends to `found` the class names of v1 optimizers made inside the block that
    replace `apply_gradients` (candidates for bypassing the strategy's aggregation).

    Example:
        >>> with recording_optimizers([]):
        ...     pass
    """
    base = import_tf().compat.v1.train.Optimizer
    original = base.__init__

    def init(self: Any, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        cls = type(self)
        if cls.apply_gradients is not base.apply_gradients and cls.__name__ not in found:
            if cls.__name__ != "CrossShardOptimizer":
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
    tf = import_tf()
    v1 = tf.compat.v1

    class ReplicaConsistencyHook(v1.train.SessionRunHook):
        def __init__(self) -> None:
            self._names: list = []
            self._gaps: list = []
            self._checked = False

        def begin(self) -> None:
            from tensorflow.python.distribute import values as ds_values

            for v in v1.trainable_variables():
                if isinstance(v, ds_values.DistributedValues) and len(v.values) > 1:
                    for c in v.values[1:]:
                        self._names.append(v.name.split(":")[0])
                        self._gaps.append(tf.math.reduce_max(tf.abs(c - v.values[0])))

        def after_run(self, run_context: Any, run_values: Any) -> None:
            if self._checked or not self._gaps:
                return
            self._checked = True
            values = run_context.session.run(self._gaps)
            worst = max(range(len(values)), key=lambda i: values[i])
            if values[worst] > TOLERANCE:
                name = self._names[worst]
                raise TfportOperationError(_drift_message(name, values[worst], optimizers))

    return ReplicaConsistencyHook()


def _drift_message(name: str, gap: float, optimizers: list) -> str:
    who = " or ".join(optimizers) if optimizers else "the optimizer"
    return message(
        f"The replicas' copies of {name} differ after the first step: {who} applies "
        "gradients without the strategy's cross-replica aggregation",
        "Wrap it: tf.compat.v1.tpu.CrossShardOptimizer(optimizer) all-reduces the gradients "
        "before it applies them",
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
    try:
        from tf_keras.src import losses
    except ImportError:  # pragma: no cover - tf_keras is a dependency
        yield
        return
    original = losses.Loss._get_reduction

    def get_reduction(self: Any) -> Any:
        allowed = self._allow_sum_over_batch_size
        self._allow_sum_over_batch_size = True
        try:
            return original(self)
        finally:
            self._allow_sum_over_batch_size = allowed

    losses.Loss._get_reduction = get_reduction
    try:
        yield
    finally:
        losses.Loss._get_reduction = original
