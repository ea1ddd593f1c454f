"""Legacy `tpu.tpu_estimator._InputPipeline`: a TPU program's input_fn deployed on its hosts
as infeed enqueue ops, and the `dequeue_fn` its TPU computation reads the inputs with.

It picks the builder of `tpu_enqueue` the context's input configuration asks for (per
core, broadcast, per host or per host v2), wraps a Dataset's enqueue ops in a
`while_loop` (`iterations_per_loop` times, or until the stopping signal in PREDICT) and
returns legacy's `(enqueue_ops, dequeue_fn, hooks, run_infeed_loop_on_coordinator)`.
As in legacy, everything builds anywhere; the infeed ops run only on a TPU system.

Example:
    >>> pipeline = _InputPipeline(input_fn, batch_axis=None, ctx=ctx)  # doctest: +SKIP
    >>> enqueue_ops, dequeue_fn, hooks, on_coordinator = (
    ...     pipeline.generate_infeed_enqueue_ops_and_dequeue_fn())  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import InputFn, TPUDeployment
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._tpu import tpu_enqueue
from tfport.estimator._tpu.loop_hooks import iterations_per_loop_variable
from tfport.estimator._tpu.tpu_inputs import InputsStructureRecorder, _StopSignals

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook


class MultiHostDatasetInitializerHook(_SessionRunHook):
    """Runs the given dataset initializers once the session exists."""

    def __init__(self, dataset_initializers: Any) -> None:
        self._initializers = dataset_initializers

    def after_create_session(self, session: Any, coord: Any) -> None:
        del coord
        if self._initializers:
            session.run(self._initializers)


def _wrap_computation_in_while_loop(device: str, op_fn: Callable[[], object]) -> Any:
    """A while_loop running `op_fn()`'s ops `iterations_per_loop` times, one at a time.

    Example:
        >>> loop = _wrap_computation_in_while_loop("/cpu:0", enqueue_ops_fn)  # doctest: +SKIP
    """

    def body(i: Any) -> Any:
        with tf.control_dependencies(op_fn()):
            return i + 1

    iterations_var = iterations_per_loop_variable()
    with tf.compat.v1.device(device):
        iterations = tf.identity(iterations_var)
        return tf.compat.v1.while_loop(
            lambda i: i < iterations, body, [tf.constant(0)], parallel_iterations=1
        )


def _wrap_computation_in_while_loop_with_stopping_signals(
    device: str, op_fn: Callable[[], dict]
) -> Any:
    """A while_loop running `op_fn()['ops']` until its `signals` say stop (PREDICT).

    Example:
        >>> loop = _wrap_computation_in_while_loop_with_stopping_signals(
        ...     "/cpu:0", enqueue_ops_fn)  # doctest: +SKIP
    """

    def cond(stop: object) -> Any:
        return tf.math.logical_not(_StopSignals.should_stop(stop))

    def body(unused_stop: object) -> Any:
        result = op_fn()
        with tf.control_dependencies(result["ops"]):
            return _StopSignals.as_scalar_stopping_signal(result["signals"])

    with tf.compat.v1.device(device):
        return tf.compat.v1.while_loop(
            cond, body, [_StopSignals.NON_STOPPING_SIGNAL], parallel_iterations=1
        )


class _InputPipeline:
    """Calls the input_fn for the hosts the context describes and pipes it to the infeed.

    Example:
        >>> pipeline = _InputPipeline(input_fn, None, ctx)  # doctest: +SKIP
    """

    InputsStructureRecorder = InputsStructureRecorder

    def __init__(self, input_fn: InputFn, batch_axis: object, ctx: TPUDeployment) -> None:
        self._inputs_structure_recorder = InputsStructureRecorder(ctx.input_partition_dims)
        self._sharded_per_core = ctx.is_input_sharded_per_core()
        self._input_fn = input_fn
        self._infeed_queue: Any = None
        self._ctx = ctx
        self._batch_axis = batch_axis

    def generate_infeed_enqueue_ops_and_dequeue_fn(self) -> tuple[list, Any, list, bool]:
        """(enqueue ops, dequeue_fn, [dataset initializer hook], run the infeed loop on the
        coordinator): `dequeue_fn()` (in the TPU computation) gives the `_Inputs` back."""
        enqueue_ops, hooks, on_coordinator = self._invoke_input_fn_and_record_structure()
        self._validate_input_pipeline()

        def dequeue_fn() -> Any:
            values = self._infeed_queue.generate_dequeue_op(tpu_device=0)
            return self._inputs_structure_recorder.unflatten_features_and_labels(values)

        return enqueue_ops, dequeue_fn, hooks, on_coordinator

    def _invoke_input_fn_and_record_structure(self) -> tuple[list, list, bool]:
        ctx, enqueue_ops, queues, initializers = self._ctx, [], [], []
        on_coordinator = True
        for host_id, index in self._invocations():
            device = ctx.tpu_host_placement_function(host_id=host_id)
            with self._host_scope(device, host_id):
                built = self._build(device, host_id, index)
                enqueue_fn, captured = built[0], built[1]
                initializer = built[2] if len(built) > 2 else None
                if initializer is not None:
                    initializers.append(initializer)
                    on_coordinator = False
                    wrap = (
                        _wrap_computation_in_while_loop_with_stopping_signals
                        if ctx.mode == ModeKeys.PREDICT
                        else _wrap_computation_in_while_loop
                    )
                    enqueue_ops.append(wrap(device=device, op_fn=enqueue_fn))
                else:
                    enqueue_ops.append(enqueue_fn())
                queues.append(captured.get())
        self._infeed_queue = queues[0]
        return enqueue_ops, [MultiHostDatasetInitializerHook(initializers)], on_coordinator

    def _broadcast(self) -> bool:
        return not self._sharded_per_core and self._ctx.is_input_broadcast_with_iterators()

    def _host_scope(self, device: str, host_id: int) -> Any:
        """The host's device and `input_pipeline_task<id>` name scope (none in broadcast)."""
        scope = contextlib.ExitStack()
        if not self._broadcast():
            scope.enter_context(tf.compat.v1.device(device))
            scope.enter_context(tf.name_scope(f"input_pipeline_task{host_id}"))
        return scope

    def _invocations(self) -> list:
        """(host id, invocation index) of each input_fn call."""
        if self._sharded_per_core:
            return [(h, h) for h in range(self._ctx.num_hosts)]
        if self._broadcast():
            return [(0, 0)]
        return self._host_invocations()

    def _build(self, device: str, host_id: int, index: int) -> tuple:
        """The builder the context's input configuration asks for, called for one host."""
        ctx, fn, recorder = self._ctx, self._input_fn, self._inputs_structure_recorder
        if self._sharded_per_core:
            return tpu_enqueue.generate_per_core_enqueue_ops_fn_for_host(
                ctx, fn, recorder, device, host_id
            )
        if self._broadcast():
            return tpu_enqueue.generate_broadcast_enqueue_ops_fn(ctx, fn, recorder, ctx.num_hosts)
        if ctx.is_input_per_host_with_iterators():
            return tpu_enqueue.generate_per_host_v2_enqueue_ops_fn_for_host(
                ctx, fn, recorder, device, host_id, index
            )
        return tpu_enqueue.generate_per_host_enqueue_ops_fn_for_host(
            ctx, fn, recorder, self._batch_axis, device, host_id
        )

    def _host_invocations(self) -> list:
        ctx = self._ctx
        if not ctx.is_replica_across_hosts():
            return [(h, h) for h in range(ctx.num_hosts)]
        pairs = []
        for replica in range(ctx.num_replicas):
            device, _ = ctx.device_for_replica(replica)
            pairs.append((int(device.split("/task:")[1].split("/device:")[0]), replica))
        return pairs

    def _validate_input_pipeline(self) -> None:
        """Warns about QueueRunners (legacy warns: they are slow and do not scale)."""
        if tf.compat.v1.get_default_graph().get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS):
            tf.compat.v1.logging.warn(
                "Input pipeline contains one or more QueueRunners. It could be slow and not "
                "scalable. Please consider converting your input pipeline to use `tf.data` "
                "instead (see https://www.tensorflow.org/guide/datasets for instructions."
            )
