"""The graph builder: one mode's graph from small steps over a `ModeContext`.

    start (seed, global step) -> input -> model step (one device or replicated)
                                         -> (steps-per-loop while_loop around both)
                              -> finish (TPU scaffold_fn, outside any loop or replica)

Every strategy composes with steps per loop, and the op order of a one-device graph
is the legacy Estimator's (global step, input pipeline, model_fn), so seeded graphs
draw what the legacy stack drew.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.keras_internals import keras_seeded
from tfport._common.tfenv import import_tf
from tfport._common.types import Graph, InputFn, TFModule
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.building import graphs, inputs, loops, steps
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.building.metrics import LOSS_KEY

if TYPE_CHECKING:
    from tfport.estimator._engine.building.model_summaries import Recorder


@dataclasses.dataclass
class Built:
    """A mode's graph and what the session loops need from it.

    Attributes:
        graph: the `tf.Graph`.
        spec: the EstimatorSpec to run (loss/train_op of the whole step or loop).
        input_hooks: hooks the input pipeline needs.
        global_step: the global step variable.
        metric_ops: `{name: (value, update)}` aggregated over replicas (None on one device).
        loop: the steps-per-loop `Loop` (its placeholder and feeding hook; None without).
        distributed: whether model_fn ran per replica.
        summary_hook: runs the model_fn's TF2 summary writes (`model_summaries`), or None.
    """

    graph: Any
    spec: Any
    input_hooks: list
    global_step: Any
    metric_ops: dict | None = None
    loop: loops.Loop | None = None
    distributed: bool = False
    summary_hook: Any = None


def build(ctx: ModeContext, input_fn: InputFn, graph: Any = None) -> Built:
    """Builds the graph of `ctx.mode` for `input_fn` (in `graph`, else a new graph).

    Example:
        >>> built = build(ctx, input_fn)  # doctest: +SKIP
    """
    tf = import_tf()
    graph = tf.Graph() if graph is None else graph
    with graph.as_default(), _placement(graph, ctx), keras_seeded(ctx.config.tf_random_seed):
        _start(tf, graph, ctx)
        batches = inputs.open_batches(ctx, input_fn)
        if ctx.strategy is not None:
            _register_global_step_read(tf, graph, ctx.strategy)
        step = steps.replicated_step if ctx.strategy is not None else steps.single_step
        deferred: list = []
        loop = None
        recorder = None
        if ctx.iterations > 1:
            result, loop = loops.looped(ctx, batches, step, deferred)
        else:
            features, labels = batches.next()
            with _summaries_recorded(graph, ctx) as recorder:
                result = step(ctx, features, labels, deferred)
            if result.host_values is not None:  # one step per run: values [1, ...]
                result.host_values = tf.nest.map_structure(
                    lambda t: tf.expand_dims(t, 0), result.host_values
                )
        spec = _finish(tf, ctx, result, deferred)
        if result.host_values is not None:
            steps.bind_host_call(ctx, spec, result.host_values)
        global_step = tf.compat.v1.train.get_global_step(graph)
        if ctx.model_creates_global_step:
            tf.compat.v1.train.assert_global_step(global_step)
        if ctx.mode == ModeKeys.TRAIN and spec.train_op is not None:
            _register_step_after_train(tf, spec.train_op, global_step, ctx.strategy)
        summary_hook = _summary_hook(ctx, recorder)
    metric_ops = result.metric_ops
    if metric_ops is not None:
        with graph.as_default():  # outside the scope: a plain mean of the all-replica loss
            metric_ops[LOSS_KEY] = tf.compat.v1.metrics.mean(result.loss)
    return Built(
        graph,
        spec,
        batches.hooks,
        global_step,
        metric_ops=metric_ops,
        loop=loop,
        distributed=ctx.strategy is not None,
        summary_hook=summary_hook,
    )


def _placement(graph: Any, ctx: ModeContext) -> Any:
    if ctx.strategy is not None:
        return ctx.strategy.scope()
    if ctx.config.device_fn is not None:
        return graph.device(ctx.config.device_fn)
    return contextlib.nullcontext()


def _start(tf: TFModule, graph: Graph, ctx: ModeContext) -> None:
    if ctx.config.tf_random_seed is not None:
        tf.compat.v1.set_random_seed(ctx.config.tf_random_seed)
    if not ctx.model_creates_global_step:
        tf.compat.v1.train.create_global_step(graph)


@contextlib.contextmanager
def _summaries_recorded(graph: Graph, ctx: ModeContext) -> Iterator[Any]:
    """Records the model_fn's TF2 summary writes of a chief's training graph (else None)."""
    config = ctx.config
    if ctx.mode != ModeKeys.TRAIN or not config.save_summary_steps or not config.is_chief:
        yield None
        return
    from tfport.estimator._engine.building import model_summaries

    recorder = model_summaries.Recorder(graph)
    with recorder.recording():
        yield recorder


def _summary_hook(ctx: ModeContext, recorder: Recorder | None) -> Any:
    if recorder is None:
        return None
    from tfport.estimator._engine.building import model_summaries

    return model_summaries.summary_hook(recorder, ctx.model_dir, ctx.config.save_summary_steps)


def _register_global_step_read(tf: TFModule, graph: Graph, strategy: Any) -> None:
    global_step = tf.compat.v1.train.get_global_step(graph)
    tf.compat.v1.add_to_collection(
        tf_internals.global_step_read_key(), strategy.extended.read_var(global_step)
    )


def _register_step_after_train(
    tf: TFModule, train_op: object, global_step: Any, strategy: Any
) -> None:
    with tf.control_dependencies([train_op]):
        after = strategy.extended.read_var(global_step) if strategy else global_step.read_value()
    tf.compat.v1.add_to_collection(graphs.STEP_AFTER_TRAIN_KEY, after)


def _finish(tf: TFModule, ctx: ModeContext, result: steps.StepResult, deferred: list) -> Any:
    """The spec to run: the step's loss and train_op, the TPU scaffold built here, once."""
    spec = result.spec
    changes: dict = {}
    if result.loss is not spec.loss:
        changes["loss"] = result.loss
    if result.train_op is not spec.train_op:
        changes["train_op"] = result.train_op
    if deferred:
        scaffold = deferred[0]()
        changes["scaffold"] = scaffold or tf.compat.v1.train.Scaffold()
    return spec._replace(**changes) if changes else spec
