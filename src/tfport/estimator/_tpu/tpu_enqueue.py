"""Legacy `tpu.tpu_estimator`'s infeed enqueue builders: a host's input pipeline as the
`InfeedEnqueueTuple` ops of TF's `InfeedQueue`.

Each builder calls the input_fn the legacy way (with a `TPUContext` for the host), keeps
its result in an `_Inputs`, and returns `enqueue_ops_fn` plus a `_CapturedObject` that
holds the infeed queue once `enqueue_ops_fn()` ran (and, except per core, the Dataset
iterator's initializer or None). `enqueue_ops_fn()` records the inputs' structure in the
recorder, flattens them and builds the enqueue ops, returned as a list, or as
`{'ops': ..., 'signals': ...}` in PREDICT (where a stopping batch ends the Dataset).
Building works anywhere; running the enqueue ops needs a TPU host, as in legacy.

`ctx` is legacy's internal TPU context or tfport's `EmulatedDeployment` (with its `mode`).

Example:
    >>> enqueue_ops_fn, queue, init = generate_per_host_v2_enqueue_ops_fn_for_host(
    ...     ctx, input_fn, InputsStructureRecorder(), HOST_DEVICE, 0, 0)  # doctest: +SKIP
    >>> ops = enqueue_ops_fn()  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import InputFn, TPUDeployment
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._tpu.tpu_context import TPUContext
from tfport.estimator._tpu.tpu_embedding_internals import split_inputs
from tfport.estimator._tpu.tpu_inputs import _CapturedObject, _Inputs
from tfport.estimator._tpu.tpu_inputs import _InputsWithStoppingSignals as _WithSignals

tf = import_tf()
_SLICED = 5  # tpu.InputPipelineConfig.SLICED


def _call_input_fn(
    ctx: TPUDeployment, input_fn: InputFn, device: str, index: int, host_id: int
) -> _Inputs:
    context = TPUContext(ctx, input_device=device, invocation_index=index, host_id=host_id)
    return _Inputs.from_input_fn(input_fn(context))


def _queue(**kwargs: object) -> Any:
    return tf_internals.infeed_queue_class()(**kwargs)


def _result(ops: list, signals: object) -> Any:
    return ops if signals is None else {"ops": ops, "signals": signals}


def _prediction_inputs(ctx: Any, inputs: _Inputs, per_step: int = 1) -> _Inputs:
    if not inputs.is_dataset:
        raise TypeError(
            "For mode PREDICT, `input_fn` must return `Dataset` instead of `features` and `labels`."
        )
    return _WithSignals(
        inputs.dataset, ctx.batch_size_for_input_fn, add_padding=True,
        num_invocations_per_step=per_step,
    )  # fmt: skip


def generate_per_core_enqueue_ops_fn_for_host(
    ctx: TPUDeployment,
    input_fn: InputFn,
    inputs_structure_recorder: Any,
    host_device: str,
    host_id: int,
) -> tuple[Any, _CapturedObject]:
    """(enqueue_ops_fn, captured queue): input_fn called once per core of the host, each
    call's features and labels enqueued to its core.

    Example:
        >>> fn, queue = generate_per_core_enqueue_ops_fn_for_host(
        ...     ctx, input_fn, recorder, HOST_DEVICE, 0)  # doctest: +SKIP
    """
    captured = _CapturedObject()
    ordinal = ctx.tpu_ordinal_function(host_id)

    def enqueue_ops_fn() -> list:
        per_core = []
        cores = ctx.num_of_cores_per_host
        for core in range(cores):
            with tf.name_scope(f"ordinal_{core}"):
                index = host_id * cores + core
                inputs = _call_input_fn(ctx, input_fn, host_device, index, host_id)
                if inputs.is_dataset:
                    raise TypeError(
                        "`input_fn` returning `Dataset`  is not yet supported in per-Core "
                        "input pipeline deployment yet. Please set "
                        "TPUConfig.per_host_input_for_training to True or return `features` "
                        "and `labels` from `input_fn`"
                    )
                features, labels = inputs.features_and_labels()
                inputs_structure_recorder.validate_and_record_structure(features, labels)
                flat = inputs_structure_recorder.flatten_features_and_labels(features, labels)
                per_core.append(flat)
        queue = _queue(number_of_tuple_elements=len(per_core[0]))
        captured.capture(queue)
        return queue.generate_enqueue_ops(per_core, tpu_ordinal_function=ordinal)

    return enqueue_ops_fn, captured


def generate_per_host_enqueue_ops_fn_for_host(
    ctx: TPUDeployment,
    input_fn: InputFn,
    inputs_structure_recorder: Any,
    batch_axis: object,
    device: str,
    host_id: int,
) -> tuple[Any, _CapturedObject, Any]:
    """(enqueue_ops_fn, captured queue, dataset initializer or None): input_fn called once
    for the host, its batch split along `batch_axis` among the host's replicas.

    Example:
        >>> fn, queue, init = generate_per_host_enqueue_ops_fn_for_host(
        ...     ctx, input_fn, recorder, None, HOST_DEVICE, 0)  # doctest: +SKIP
    """
    captured, initializer = _CapturedObject(), None
    with tf.compat.v1.device(device):
        inputs = _call_input_fn(ctx, input_fn, device, host_id, host_id)
        is_dataset = inputs.is_dataset
        if ctx.mode == ModeKeys.PREDICT:
            if is_dataset and batch_axis is not None:
                raise TypeError("For mode PREDICT, batch_axis is not supported yet.")
            inputs = _prediction_inputs(ctx, inputs)
        if is_dataset:
            initializer = inputs.dataset_initializer()
        ordinal = ctx.tpu_ordinal_function(host_id)

    def enqueue_ops_fn() -> Any:
        with tf.compat.v1.device(device):
            replicas = ctx.num_of_replicas_per_host
            features, labels = inputs.features_and_labels()
            signals = inputs.signals()
            # (its enqueue datas feed TPU embedding tables, which split_inputs refuses)
            features, labels, _ = split_inputs(ctx, features, labels, num_cores_per_batch=replicas)
            inputs_structure_recorder.validate_and_record_structure(features, labels)
            flat = inputs_structure_recorder.flatten_features_and_labels(features, labels, signals)
            queue = _queue(
                tuple_types=[t.dtype for t in flat],
                tuple_shapes=[t.shape for t in flat],
                shard_dimensions=batch_axis,
            )
            captured.capture(queue)
            queue.set_number_of_shards(replicas)
            ops = queue.split_inputs_and_generate_enqueue_ops(
                flat, placement_function=lambda x: device, tpu_ordinal_function=ordinal
            )
            return _result(ops, signals)

    return enqueue_ops_fn, captured, initializer


def generate_per_host_v2_enqueue_ops_fn_for_host(
    ctx: TPUDeployment,
    input_fn: InputFn,
    inputs_structure_recorder: Any,
    device: str,
    host_id: int,
    invocation_index: int,
) -> tuple[Any, _CapturedObject, Any]:
    """(enqueue_ops_fn, captured queue, dataset initializer): the host's input_fn Dataset
    read once per replica of the host (`get_next()` per replica), one batch per replica.

    Example:
        >>> fn, queue, init = generate_per_host_v2_enqueue_ops_fn_for_host(
        ...     ctx, input_fn, recorder, HOST_DEVICE, 0, 0)  # doctest: +SKIP
    """
    captured = _CapturedObject()
    with tf.compat.v1.device(device):
        inputs = _call_input_fn(ctx, input_fn, device, invocation_index, host_id)
        if not inputs.is_dataset:
            raise TypeError(
                "`input_fn` must return a `Dataset` for the PER_HOST_V2 input pipeline "
                "configuration."
            )
        if ctx.mode == ModeKeys.PREDICT:
            per_step = max(1, ctx.num_of_replicas_per_host)
            inputs = _prediction_inputs(ctx, inputs, per_step)
        initializer = inputs.dataset_initializer()
        ordinal = ctx.tpu_ordinal_function(host_id)

    def enqueue_ops_fn() -> Any:
        with tf.compat.v1.device(device):
            per_replica, signals = _per_replica_inputs(ctx, inputs, inputs_structure_recorder)
            if inputs_structure_recorder.flattened_input_dims:
                raise ValueError(
                    "TPUConfig.input_partition_dims (model parallelism) partitions inputs "
                    "over the cores of a replica; tfport runs no model parallelism. Remove "
                    "input_partition_dims. Received: input_partition_dims="
                    f"{ctx.input_partition_dims!r}"
                )
            queue = _queue(number_of_tuple_elements=len(per_replica[0]))
            ops = queue.generate_enqueue_ops(
                per_replica,
                tpu_ordinal_function=ordinal,
                placement_function=lambda shard: _replica_device(ctx, host_id, shard),
            )
            captured.capture(queue)
        return _result(ops, signals)

    return enqueue_ops_fn, captured, initializer


def _per_replica_inputs(ctx: TPUDeployment, inputs: _Inputs, recorder: Any) -> tuple[list, Any]:
    """One flattened batch per replica of the host (in order) and the signals (every
    replica shares the first replica's stopping signal)."""
    control_deps: list = []
    per_replica = []
    signals = first_signals = None
    parallel = ctx.allow_per_host_v2_parallel_get_next
    for _ in range(max(1, ctx.num_of_replicas_per_host)):
        if parallel:
            features, labels = inputs.features_and_labels()
        with tf.control_dependencies(control_deps):
            if not parallel:
                features, labels = inputs.features_and_labels()
            signals = inputs.signals()
            if first_signals:
                signals["stopping"] = first_signals["stopping"]
            else:
                first_signals = signals
        features, labels, _ = split_inputs(ctx, features, labels)  # (one core per batch)
        recorder.validate_and_record_structure(features, labels)
        flat = recorder.flatten_features_and_labels(features, labels, signals)
        control_deps.extend(flat)
        per_replica.append(flat)
    return per_replica, signals


def _replica_device(ctx: TPUDeployment, host_id: int, shard_id: int) -> Any:
    if ctx.device_assignment is None:
        return None
    replica = ctx.device_assignment.lookup_replicas(task_id=host_id, logical_core=0)[shard_id]
    return ctx.tpu_host_placement_function(replica_id=replica)


def generate_broadcast_enqueue_ops_fn(
    ctx: TPUDeployment, input_fn: InputFn, inputs_structure_recorder: Any, num_hosts: int
) -> tuple[Any, _CapturedObject, Any]:
    """(enqueue_ops_fn, captured queue, dataset initializer or None): input_fn called once
    on host 0, its batch sent to every replica of `num_hosts` hosts (or sliced among
    them with `eval_training_input_configuration=SLICED`).

    Example:
        >>> fn, queue, init = generate_broadcast_enqueue_ops_fn(ctx, input_fn, recorder, 1)
        ... # doctest: +SKIP
    """
    captured, initializer = _CapturedObject(), None
    device_0 = ctx.tpu_host_placement_function(host_id=0)
    with tf.compat.v1.device(device_0):
        inputs = _call_input_fn(ctx, input_fn, device_0, 0, 0)
        is_dataset = inputs.is_dataset
        if ctx.mode == ModeKeys.PREDICT:
            inputs = _prediction_inputs(ctx, inputs)
        if is_dataset:
            initializer = inputs.dataset_initializer()
        per_host = ctx.num_of_replicas_per_host

    def ordinal(shard_id: int) -> int:
        if ctx.device_assignment:
            return ctx.device_assignment.tpu_ordinal(replica=shard_id)
        return shard_id % per_host

    def enqueue_ops_fn() -> Any:
        broadcast, signals = _broadcast_inputs(ctx, inputs, inputs_structure_recorder, num_hosts)
        queue = _queue(number_of_tuple_elements=len(broadcast[0]))
        captured.capture(queue)
        ops = queue.generate_enqueue_ops(
            broadcast,
            tpu_ordinal_function=ordinal,
            placement_function=lambda shard: ctx.tpu_host_placement_function(replica_id=shard),
        )
        return _result(ops, signals)

    return enqueue_ops_fn, captured, initializer


def _broadcast_inputs(ctx: TPUDeployment, inputs: _Inputs, recorder: Any, num_hosts: int) -> tuple:
    """The flattened inputs of every replica of every host (one `get_next()`), and signals."""
    tpu_config = getattr(getattr(ctx, "config", None), "tpu_config", None)
    sliced = getattr(tpu_config, "eval_training_input_configuration", None) == _SLICED
    broadcast: list = []
    flat = signals = slices = None
    for host_id in range(num_hosts):
        with tf.compat.v1.device(ctx.tpu_host_placement_function(host_id=host_id)):
            for _ in range(ctx.num_of_replicas_per_host):
                if flat is None:
                    features, labels = inputs.features_and_labels()
                    signals = inputs.signals()
                    recorder.validate_and_record_structure(features, labels)
                    flat = recorder.flatten_features_and_labels(features, labels, signals)
                    if sliced:
                        slices = [tf.split(x, ctx.num_replicas) for x in flat]
                if slices is not None:
                    broadcast.append([x[len(broadcast)] for x in slices])
                else:
                    broadcast.append(flat)
    return broadcast, signals
