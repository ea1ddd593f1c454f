"""Legacy `tpu.tpu_estimator` infeed/outfeed and inference internals, run generically.

`TPUInfeedOutfeedSessionHook` runs the given enqueue and dequeue ops in two threads, as
many times per `session.run` as the `iterations_per_loop` variable says, with errors
collected by an `ErrorRendezvous`; it initializes and shuts down the TPU system only
where one exists. `call_computation`, `inference_on_tpu` and `model_fn_inference_on_tpu`
run the computation on tfport's devices (with TF's batch function when asked to batch).

Example:
    >>> hook = TPUInfeedOutfeedSessionHook(ctx, enqueue_ops, dequeue_ops, None)
    ... # doctest: +SKIP
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Labels, ModelFn, Params, Session, TPUDeployment
from tfport.estimator._tpu.loop_hooks import (
    _OpQueueContext,
    _OpSignalOnceQueueContext,
    iterations_per_loop_variable,
)
from tfport.estimator._tpu.tpu_host import PeriodicLogger
from tfport.estimator._tpu.tpu_internals import ErrorRendezvous

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook
log = logging.getLogger("tfport")


def _tpu_system_present() -> bool:
    return bool(tf.config.list_logical_devices("TPU"))


class TPUInfeedOutfeedSessionHook(_SessionRunHook):
    """Runs `enqueue_ops` and `dequeue_ops` in threads, `iterations_per_loop` times per run.

    Example:
        >>> hook = TPUInfeedOutfeedSessionHook(ctx, [enqueue], [dequeue], None)
        ... # doctest: +SKIP
    """

    def __init__(
        self,
        ctx: TPUDeployment,
        enqueue_ops: object,
        dequeue_ops: object,
        tpu_compile_op: object,
        run_infeed_loop_on_coordinator: bool = True,
        rendezvous: ErrorRendezvous | None = None,
        master: str | None = None,
        session_config: object = None,
        tpu_init_ops: Iterable[object] | None = None,
        outfeed_every_n_steps: int = 1,
    ) -> None:
        self._master_job = getattr(ctx, "master_job", None)
        self._enqueue_ops = enqueue_ops
        self._dequeue_ops = dequeue_ops
        self._rendezvous = rendezvous or ErrorRendezvous(num_sources=2)
        self._master = master
        self._session_config = session_config
        self._init_ops = list(tpu_init_ops or [])
        self._run_infeed_loop_on_coordinator = run_infeed_loop_on_coordinator
        tpu_config = getattr(getattr(ctx, "config", None), "tpu_config", None)
        self._initial_infeed_sleep_secs = getattr(tpu_config, "initial_infeed_sleep_secs", None)
        self._tpu_compile_op = tpu_compile_op
        self._should_initialize_tpu = not getattr(ctx, "model_parallelism_enabled", False)
        self._outfeed_every_n_steps = outfeed_every_n_steps
        embedding = getattr(ctx, "embedding_config", None)
        if embedding:  # its tables need the TF1 TPU embedding engine: one line says so
            embedding.get_tpu_embedding(ctx.mode)

    def begin(self) -> None:
        """Makes the iterations variable and, where a TPU system exists, its shutdown op."""
        self._iterations_per_loop_var = iterations_per_loop_variable()
        self._finalize_ops = []
        if self._should_initialize_tpu and _tpu_system_present():
            self._finalize_ops = [tf.compat.v1.tpu.shutdown_system(job=self._master_job)]

    def _run_infeed(self, queue_ctx: _OpQueueContext, session: Session) -> None:
        if self._initial_infeed_sleep_secs:
            time.sleep(self._initial_infeed_sleep_secs)
        with self._rendezvous.catch_errors(source="infeed", session=session):
            for steps in queue_ctx.read_iteration_counts():
                for _ in range(steps if self._run_infeed_loop_on_coordinator else 1):
                    session.run(self._enqueue_ops)

    def _run_outfeed(self, queue_ctx: _OpQueueContext, session: Session) -> None:
        status_logger = PeriodicLogger(seconds=60)
        with self._rendezvous.catch_errors(source="outfeed", session=session):
            for count, steps in enumerate(queue_ctx.read_iteration_counts()):
                for i in range(steps):
                    if i % self._outfeed_every_n_steps == 0:
                        session.run(self._dequeue_ops)
                    status_logger.log("Outfeed finished for iteration (%d, %d)", count, i)

    def _create_infeed_controller(
        self, name: str, target: Callable[..., object], args: tuple
    ) -> Any:
        return _OpQueueContext(name=name, target=target, args=args)

    def _assertCompilationSucceeded(self, result: object, coord: Any) -> None:  # noqa: N802
        from tensorflow.core.protobuf.tpu import compilation_result_pb2

        proto = compilation_result_pb2.CompilationResultProto()
        proto.ParseFromString(result)
        if proto.status_error_message:
            log.error("Compilation failed: %s", proto.status_error_message)
            coord.request_stop()

    def after_create_session(self, session: Session, coord: object) -> None:
        """Initializes the TPU system (where one exists), runs the init ops, starts threads."""
        if self._should_initialize_tpu and _tpu_system_present():
            with (
                tf.Graph().as_default(),
                tf.compat.v1.Session(self._master, config=self._session_config) as init_session,
            ):
                init_session.run(tf.compat.v1.tpu.initialize_system(job=self._master_job))
        session.run(self._init_ops)
        if os.environ.get("TPU_SPLIT_COMPILE_AND_EXECUTE", "") == "1" and self._tpu_compile_op:
            self._assertCompilationSucceeded(session.run(self._tpu_compile_op), coord)
        self._infeed_controller = self._create_infeed_controller(
            "InfeedController", self._run_infeed, (session,)
        )
        self._outfeed_controller = _OpQueueContext(
            "OutfeedController", self._run_outfeed, (session,)
        )

    def before_run(self, run_context: Any) -> None:
        """Tells both threads how many iterations this run makes."""
        iterations = run_context.session.run(self._iterations_per_loop_var)
        self._infeed_controller.send_next_batch_signal(iterations)
        self._outfeed_controller.send_next_batch_signal(iterations)

    def end(self, session: Session) -> None:
        """Stops and joins both threads, then runs the finalize ops."""
        self._infeed_controller.join()
        self._rendezvous.record_done("infeed")
        self._outfeed_controller.join()
        self._rendezvous.record_done("outfeed")
        session.run(self._finalize_ops)
        self._rendezvous.raise_errors()


class TPUInfeedOutfeedSessionHookForPrediction(TPUInfeedOutfeedSessionHook):
    """The prediction variant: the infeed loop runs once, until its input ends.

    Example:
        >>> hook = TPUInfeedOutfeedSessionHookForPrediction(ctx, [enq], [deq], None)
        ... # doctest: +SKIP
    """

    def __init__(
        self,
        ctx: TPUDeployment,
        enqueue_ops: object,
        dequeue_ops: object,
        tpu_compile_op: object,
        rendezvous: ErrorRendezvous | None = None,
        master: str | None = None,
        session_config: object = None,
    ) -> None:
        super().__init__(
            ctx,
            enqueue_ops,
            dequeue_ops,
            tpu_compile_op=tpu_compile_op,
            run_infeed_loop_on_coordinator=False,
            rendezvous=rendezvous,
            master=master,
            session_config=session_config,
        )

    def _create_infeed_controller(
        self, name: str, target: Callable[..., object], args: tuple
    ) -> Any:
        return _OpSignalOnceQueueContext(name=name, target=target, args=args)


def call_computation(
    computation_inputs: object, computation: Callable[..., object], batch_config: Any = None
) -> Any:
    """`computation(computation_inputs)` on tfport's devices; with a `BatchConfig`, inside
    TF's batch function (requests batched across calls, then split back).

    Example:
        >>> outputs = call_computation({"x": x}, lambda f: [f["x"] * 2])  # doctest: +SKIP
    """
    if not batch_config:
        return computation(computation_inputs)
    flat = tf.nest.flatten(computation_inputs)

    @tf.nondifferentiable_batch_function(
        num_batch_threads=batch_config.num_batch_threads,
        max_batch_size=batch_config.max_batch_size,
        batch_timeout_micros=batch_config.batch_timeout_micros,
        allowed_batch_sizes=batch_config.allowed_batch_sizes,
        max_enqueued_batches=batch_config.max_enqueued_batches,
        autograph=False,
    )
    def batched(*tensors: object) -> Any:
        return computation(tf.nest.pack_sequence_as(computation_inputs, list(tensors)))

    return batched(*flat)


def inference_on_tpu(
    computation: Callable[..., object],
    inputs_to_tpu: Sequence[object],
    num_batch_threads: int,
    max_batch_size: int,
    batch_timeout_micros: int,
    allowed_batch_sizes: Sequence[int] | None = None,
    max_enqueued_batches: int = 100,
) -> Any:
    """`computation(*inputs_to_tpu)` batched across calls (no batching when
    `max_batch_size` is 0 or None), on tfport's devices.

    Example:
        >>> (y,) = inference_on_tpu(lambda x: [x * 2], [x], 1, 8, 1000)  # doctest: +SKIP
    """
    if not max_batch_size:
        return computation(*inputs_to_tpu)

    @tf.nondifferentiable_batch_function(
        num_batch_threads=num_batch_threads,
        max_batch_size=max_batch_size,
        batch_timeout_micros=batch_timeout_micros,
        allowed_batch_sizes=allowed_batch_sizes,
        max_enqueued_batches=max_enqueued_batches,
        autograph=False,
    )
    def batched(*tensors: object) -> Any:
        return computation(*tensors)

    return batched(*inputs_to_tpu)


_FIELDS = {"ClassificationOutput": ("scores", "classes"), "RegressionOutput": ("value",)}


def _export_tensors(output: Any) -> list:
    if type(output).__name__ in _FIELDS:
        return [getattr(output, f) for f in _FIELDS[type(output).__name__]]
    return [output.outputs[k] for k in sorted(output.outputs)]


def _clone_export_output(output: Any, tensors: list) -> Any:
    if type(output).__name__ in _FIELDS:
        return type(output)(*tensors)
    return type(output)(dict(zip(sorted(output.outputs), tensors)))


def model_fn_inference_on_tpu(
    model_fn: ModelFn,
    features: Features,
    labels: Labels = None,
    config: object = None,
    params: Params | None = None,
    batch_config: object = None,
) -> Any:
    """The PREDICT EstimatorSpec of `model_fn` on `features`, computed through
    `call_computation` (batched with `batch_config`): its predictions and export outputs
    are the computation's outputs.

    Example:
        >>> spec = model_fn_inference_on_tpu(model_fn, features, params={})  # doctest: +SKIP
    """
    from tfport.estimator._engine.building import calls

    captured: list = []

    def computation(computation_features: Features) -> list:
        spec = calls.call_model_fn(
            model_fn, computation_features, labels, "infer", dict(params or {}), config
        )
        outputs = dict(spec.export_outputs or {})
        captured.append((spec, outputs))
        flat = tf.nest.flatten(spec.predictions)
        return flat + [t for k in outputs for t in _export_tensors(outputs[k])]

    tensors = list(call_computation(features, computation, batch_config))
    spec, outputs = captured[-1]
    count = len(tf.nest.flatten(spec.predictions))
    predictions = tf.nest.pack_sequence_as(spec.predictions, tensors[:count])
    rest = tensors[count:]
    new_outputs = {}
    for key, output in outputs.items():
        size = len(_export_tensors(output))
        new_outputs[key], rest = _clone_export_output(output, rest[:size]), rest[size:]
    return spec._replace(predictions=predictions, export_outputs=new_outputs or None)
