"""The model step: model_fn on one device, or once per replica under a strategy.

A step takes one batch and returns a `StepResult` (the spec, the loss, the train_op
and, when replicated, the metric pairs aggregated over replicas). The graph builder
runs a step once per graph, or inside the steps-per-loop `while_loop`.

Under a strategy model_fn runs once per replica (`call_for_each_replica`) on that
replica's share of the global batch, so N replicas make the update of one device with
the global batch B: a replica's mean loss over its b_r examples is scaled by b_r / B
(1/N when B divides evenly; see `tfport._common.replica_share`) and the gradients are
summed. The step's loss is the replicas' losses weighted the same way. Metrics created with
`tf.compat.v1.metrics` aggregate over replicas.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

from tfport._common import replica_share, tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Graph, GraphTensor, Labels, Tensor, TFModule
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys
from tfport.estimator._engine.building import (
    lifted_variables,
    replica_draws,
    replicas,
    sync_batch_norm,
)
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.building.metrics import metric_pairs


@dataclasses.dataclass
class StepResult:
    """What one step built: the (first replica's) spec, loss, train_op, metric pairs,
    and the step's host_call values (concatenated across replicas), if any."""

    spec: EstimatorSpec
    loss: Any
    train_op: Any = None
    metric_ops: dict | None = None
    host_values: Any = None


def single_step(ctx: ModeContext, features: Features, labels: Labels, deferred: list) -> StepResult:
    """model_fn once, on the current device.

    Example:
        >>> result = single_step(ctx, features, labels, [])  # doctest: +SKIP
    """
    with _model_step_order(ctx):
        spec = ctx.call_model_fn(features, labels, deferred)
    hook = _host_call(ctx, spec)
    host_values = hook.tensors if hook is not None else None
    return StepResult(spec, spec.loss, spec.train_op, host_values=host_values)


def _replica_rows(rows: GraphTensor | None) -> Any:
    if rows is None:
        return contextlib.nullcontext()
    return replica_draws.replica_rows(rows)


@contextlib.contextmanager
def _model_step_order(ctx: ModeContext) -> Iterator[None]:
    """A train step's own global-step increments run after the step's reads of it.

    A train_op that increments the global step itself (BERT's
    `global_step.assign(global_step + 1)`) and a learning rate read from the step
    would otherwise race: a read (on N replicas, another replica's read) could see
    the increment. Every reader sees the step's value, the increment happens once.
    """
    tf = import_tf()
    graph = tf.compat.v1.get_default_graph()
    first = len(graph.get_operations())
    yield
    step = tf.compat.v1.train.get_global_step()
    if ctx.mode == ModeKeys.TRAIN and step is not None:
        replica_draws.order_writes_after_reads(graph.get_operations()[first:], step)


def _host_call(ctx: ModeContext, spec: EstimatorSpec) -> Any:
    """The spec's host_call hook (TPUEstimatorSpec.host_call) of this mode, or None."""
    if not any(type(h).__name__ == "HostCallHook" for h in _mode_hooks(ctx, spec)):
        return None
    from tfport.estimator._engine.building import host_calls

    return host_calls.find(_mode_hooks(ctx, spec))


def _mode_hooks(ctx: ModeContext, spec: EstimatorSpec) -> tuple:
    return spec.training_hooks if ctx.mode == ModeKeys.TRAIN else spec.evaluation_hooks


def bind_host_call(ctx: ModeContext, spec: EstimatorSpec, stacked: object) -> None:
    """Gives the spec's host_call hook the per-step values `[n, ...]` of each run.

    Example:
        >>> bind_host_call(ctx, spec, stacked)  # doctest: +SKIP
    """
    hook = _host_call(ctx, spec)
    if hook is not None:  # v1 summaries, flushes at checkpoints: training only
        hook.bind(stacked, ctx.config if ctx.mode == ModeKeys.TRAIN else None)


def _replicas_host_values(ctx: ModeContext, specs: list) -> Any:
    hooks = [_host_call(ctx, spec) for spec in specs]
    if hooks[0] is None:
        return None
    from tfport.estimator._engine.building import host_calls

    return host_calls.concat_replicas(hooks)


def replicated_step(
    ctx: ModeContext, features: Features, labels: Labels, deferred: list
) -> StepResult:
    """model_fn once per replica of `ctx.strategy`; loss and metrics reduced over replicas.

    Example:
        >>> result = replicated_step(ctx, features, labels, [])  # doctest: +SKIP
    """
    tf = import_tf()
    strategy = ctx.strategy
    replicas.graph_reductions(strategy)
    specs: list = []

    shares = replicas.batch_shares(strategy, features, labels)

    rows = replicas.batch_rows(strategy, features, labels) if ctx.mode == ModeKeys.TRAIN else None

    def replica_fn(
        features: Features, labels: Labels, share: object, rows: GraphTensor | None
    ) -> dict:
        with (
            replica_share.scope(share),
            lifted_variables.replica_variables_lifted(),
            _replica_rows(rows),
        ):
            spec = ctx.call_model_fn(features, labels, deferred if not specs else [])
        specs.append(spec)
        if ctx.mode == ModeKeys.TRAIN:
            return {"loss": spec.loss, "train_op": spec.train_op}
        return {"loss": spec.loss, "metrics": metric_pairs(tf, spec.eval_metric_ops or {})}

    optimizers: list = []
    with (
        tf_internals.scale_loss_for_estimator(strategy),  # v1 optimizers: mean loss / N
        replicas.recording_optimizers(optimizers),
        replicas.keras_mean_losses(),
        replicas.share_scaled_losses(),  # ... times N x this replica's batch share
        sync_batch_norm.synchronized_batch_norm(),  # the global batch's statistics
        replicas.all_reduced_gradients(),  # tf.gradients: one device's gradients
        replica_draws.replica_random_draws(),  # dropout: one device's masks, row by row
    ):
        args = (features, labels, shares, rows)
        with _model_step_order(ctx):
            grouped = strategy.extended.call_for_each_replica(replica_fn, args=args)
    drop_replica_components(tf.compat.v1)
    graph = tf.compat.v1.get_default_graph()
    loss = _reduce_loss(tf, strategy, _loss_reduction(tf, graph), grouped["loss"], shares)
    _summarize_step_loss(tf, specs[0].loss, loss)
    if ctx.mode == ModeKeys.TRAIN:
        hook = replicas.consistency_hook(optimizers)
        spec = specs[0]._replace(training_hooks=[*specs[0].training_hooks, hook])
        host_values = _replicas_host_values(ctx, specs)
        return StepResult(spec, loss, strategy.group(grouped["train_op"]), None, host_values)
    metric_ops = {
        key: (strategy.experimental_local_results(value)[0], strategy.group(update))
        for key, (value, update) in grouped["metrics"].items()
    }
    return StepResult(specs[0], loss, None, metric_ops, _replicas_host_values(ctx, specs))


def drop_replica_components(v1: TFModule) -> None:
    """Keeps only the distributed variable where its per-replica parts were also collected.

    tf_keras optimizers under a graph-mode strategy add both a slot's MirroredVariable and
    its components (`.../m`, `.../m/replica_1`) to GLOBAL_VARIABLES; the Saver must see the
    MirroredVariable alone, so checkpoints keep the single-device names.
    """
    collection = v1.get_collection_ref(v1.GraphKeys.GLOBAL_VARIABLES)
    parts = {id(c) for v in collection if tf_internals.is_distributed_values(v) for c in v.values}
    collection[:] = [v for v in collection if id(v) not in parts]


def _reduce_loss(
    tf: TFModule, strategy: Any, reduction: object, losses: object, shares: object
) -> Any:
    """The step's loss: summed, or the replicas' means weighted by their batch shares."""
    if shares is None or reduction == tf.distribute.ReduceOp.SUM:
        return strategy.reduce(reduction, losses, axis=None)
    parts = strategy.experimental_local_results(losses)
    weights = strategy.experimental_local_results(shares)
    with tf.device(parts[0].device):
        return tf.math.add_n([p * tf.cast(w, p.dtype) for p, w in zip(parts, weights)])


def _summarize_step_loss(tf: TFModule, replica_loss: GraphTensor, loss: Tensor) -> None:
    """Loss summaries made inside model_fn record the step's loss, not replica 0's.

    TF records summaries made in a replica on the first replica only, so a head's `loss`
    summary would show replica 0's minibatch loss; it is rewired to the step's loss
    (which the training log and evaluation report too).
    """
    v1 = tf.compat.v1
    for summary in v1.get_collection(v1.GraphKeys.SUMMARIES):
        op = summary.op
        if op.type == "ScalarSummary" and op.inputs[1].name == replica_loss.name:
            if loss.dtype == replica_loss.dtype:
                tf_internals.update_op_input(op, 1, loss)


def _loss_reduction(tf: TFModule, graph: Graph) -> Any:
    """SUM when the user's loss is a sum (v1 losses with Reduction.SUM), else MEAN."""
    # Not dead: TF's losses_impl.compute_weighted_loss sets graph._last_loss_reduction.
    reduction = tf_internals.last_loss_reduction(graph)
    if reduction in ("weighted_sum", "sum"):
        return tf.distribute.ReduceOp.SUM
    return tf.distribute.ReduceOp.MEAN
