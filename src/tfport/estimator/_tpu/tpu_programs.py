"""Legacy TPUEstimator's TPU programs, and the model_fn it wrapped around the user's.

`_train_on_tpu_system`, `_eval_on_tpu_system` and `_predict_on_tpu_system` replicate a
`_ModelFnWrapper`'s single step over the context's replicas inside an on-device loop
(`tpu.split_compile_and_shard`): `(compile op, loss or predict op, host calls, captured
scaffold_fn, hooks)`, as legacy returned. `_build_tpu_computation_for_inference` and
`_build_computation_for_inference` give the export-for-TPU computation (`tpu.rewrite`).
All of them build in any graph; running what they build needs a TPU host (as legacy).
tfport's TPUEstimator itself runs a model_fn on the RunConfig's strategy instead
(`tpu_estimator.py`); `augmented_model_fn` is that model_fn under legacy's
`TPUEstimator._augment_model_fn` contract.

Example:
    >>> compile_op, loss, host_call, scaffold_fn, hooks = _train_on_tpu_system(
    ...     ctx, _ModelFnWrapper(model_fn, config, {}, ctx), dequeue_fn)  # doctest: +SKIP
"""

from __future__ import annotations

import collections
import copy
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import DequeueFn, Features, Labels, ModelFn, Params, TPUDeployment
from tfport.distribute import num_replicas
from tfport.estimator._engine.building import calls
from tfport.estimator._engine.building.context import strategy_for
from tfport.estimator._tpu.legacy_helpers import _add_item_to_params, _export_output_to_tensors
from tfport.estimator._tpu.loop_hooks import iterations_per_loop_variable
from tfport.estimator._tpu.tpu_inputs import _CapturedObject, _StopSignals

if TYPE_CHECKING:
    from tfport.estimator._engine.estimator import Estimator

tf = import_tf()
_INITIAL_LOSS = 1e7
_ZERO_LOSS = 0.0
_INFERENCE_ON_TPU_MODE = "_inference_on_tpu"
_KEY_WHEN_PREDICTIONS_IS_A_TENSOR = "_key_when_predictions_is_a_tensor"
_TPU_KEYS = ("batch_size", "use_tpu", "context")


def _replicated(ctx: TPUDeployment, loop: Callable[[object], object]) -> tuple[Any, Any]:
    """(compile op, replica 0's output) of `loop(replica_id)` over the context's replicas."""

    @tf_internals.tpu_on_device_training_loop()
    def on_one_shard(replica_id: object) -> Any:
        return loop(tf.reshape(replica_id, []))

    replica_ids = [[tf.constant(i) for i in range(ctx.num_replicas)]]
    compile_op, outputs = tf_internals.tpu_split_compile_and_shard()(
        on_one_shard,
        inputs=replica_ids,
        num_shards=ctx.num_replicas,
        outputs_from_all_shards=False,
        device_assignment=ctx.device_assignment,
    )
    return compile_op, outputs[0]


def _train_on_tpu_system(ctx: TPUDeployment, model_fn_wrapper: Any, dequeue_fn: DequeueFn) -> tuple:
    """(compile op, loss, host calls, captured scaffold_fn, training hooks) of the TPU
    training program: `iterations_per_loop` train steps on every replica."""
    iterations = iterations_per_loop_variable()
    step_fn, host_call, scaffold_fn, hooks = model_fn_wrapper.convert_to_single_tpu_train_step(
        dequeue_fn
    )

    def loop(replica_id: object) -> Any:
        del replica_id
        outputs = tf_internals.tpu_while_loop()(
            lambda i, loss: i < iterations,
            lambda i, loss: [i + 1, step_fn(i)],
            inputs=[0, _INITIAL_LOSS],
        )
        return outputs[1:]

    compile_op, loss = _replicated(ctx, loop)
    return compile_op, loss, host_call, scaffold_fn, hooks.get()


def _eval_on_tpu_system(ctx: TPUDeployment, model_fn_wrapper: Any, dequeue_fn: DequeueFn) -> tuple:
    """(compile op, total loss, host calls, captured scaffold_fn, evaluation hooks) of the
    TPU evaluation program: `iterations_per_loop` eval steps on every replica."""
    iterations = iterations_per_loop_variable()
    step_fn, host_calls, scaffold_fn, hooks = model_fn_wrapper.convert_to_single_tpu_eval_step(
        dequeue_fn
    )

    def loop(replica_id: object) -> Any:
        del replica_id
        return tf_internals.tpu_repeat()(iterations, step_fn, [_ZERO_LOSS])

    compile_op, loss = _replicated(ctx, loop)
    return compile_op, loss, host_calls, scaffold_fn, hooks.get()


def _predict_on_tpu_system(
    ctx: TPUDeployment, model_fn_wrapper: Any, dequeue_fn: DequeueFn
) -> tuple:
    """(compile op, predict op, host calls, captured scaffold_fn, prediction hooks) of the
    TPU prediction program: predict steps on every replica until the stopping signal."""
    step_fn, host_calls, scaffold_fn, hooks = model_fn_wrapper.convert_to_single_tpu_predict_step(
        dequeue_fn
    )

    def loop(replica_id: object) -> Any:
        del replica_id

        def cond(scalar_stopping_signal: object) -> Any:
            return tf.math.logical_not(_StopSignals.should_stop(scalar_stopping_signal))

        return tf_internals.tpu_while_loop()(
            cond, step_fn, inputs=[_StopSignals.NON_STOPPING_SIGNAL], name=b"loop"
        )

    compile_op, predict_op = _replicated(ctx, loop)
    return compile_op, predict_op, host_calls, scaffold_fn, hooks.get()


def _build_tpu_computation_for_inference(
    model_fn: Any, features: Features, labels: Labels, config: object, params: Params
) -> tuple[Any, _CapturedObject]:
    """(computation, capture): `computation()` calls model_fn for PREDICT and returns its
    predictions' and export outputs' tensors; `capture` then holds (spec, export outputs
    dict, export tensors list, predictions dict)."""
    capture = _CapturedObject()

    def computation() -> list:
        args = calls.fn_args(model_fn)
        given = {"labels": labels, "mode": "infer", "config": config, "params": params}
        spec = model_fn(features, **{k: v for k, v in given.items() if k in args})
        outputs = collections.OrderedDict(
            (k, _export_output_to_tensors(v)) for k, v in spec.export_outputs.items()
        )
        outputs_list = tf.nest.flatten(outputs)
        predictions: dict
        if isinstance(spec.predictions, dict):
            predictions = collections.OrderedDict(spec.predictions.items())
        else:
            predictions = {_KEY_WHEN_PREDICTIONS_IS_A_TENSOR: spec.predictions}
        capture.capture((spec, outputs, outputs_list, predictions))
        return tf.nest.flatten(predictions) + [t for t in outputs_list if t is not None]

    return computation, capture


def _build_computation_for_inference(
    model_fn: ModelFn, labels: Labels, config: object, params: Params
) -> tuple[Any, _CapturedObject]:
    """(computation, capture): `computation(features)` runs the inference computation
    through `tpu.rewrite` and returns its CPU-side tensors; `capture` then holds (spec,
    export outputs dict, predictions dict, positions of the None export tensors)."""
    capture = _CapturedObject()

    def computation(computation_input: Features) -> list:
        tpu_computation, tpu_capture = _build_tpu_computation_for_inference(
            model_fn, computation_input, labels, config, params
        )
        on_cpu = tf.compat.v1.tpu.rewrite(tpu_computation)
        tf_internals.tpu_prune_unconnected_ops_from_xla()(tf.compat.v1.get_default_graph())
        spec, outputs, outputs_list, predictions = tpu_capture.get()
        count = len(predictions)
        rest = list(on_cpu[count:])
        none_indices = [i for i, t in enumerate(outputs_list) if t is None]
        kept = rest[: len(outputs_list) - len(none_indices)]
        capture.capture((spec, outputs, predictions, none_indices))
        return list(on_cpu[:count]) + kept

    return computation, capture


def _check_batch_axis(batch_axis: object) -> None:
    axes = [a for a in tf.nest.flatten(batch_axis) if a is not None]
    if any(a != 0 for a in axes):
        raise TfportInputError(
            message(
                "TPUEstimator: tfport splits every feature and label along axis 0 among the "
                "replicas; another batch_axis is a TPU infeed sharding it does not run",
                "Pass batch_axis=None (or 0 for every tensor)",
                batch_axis=batch_axis,
            )
        )


def augmented_model_fn(estimator: Estimator, model_fn: ModelFn, batch_axis: object) -> Any:
    """Legacy `TPUEstimator._augment_model_fn`: `model_fn(features, labels, mode, config,
    params)` calling the user's `model_fn` as `estimator` runs it (params completed with
    `batch_size`, `use_tpu` and `context` for the mode; an EstimatorSpec back).

    Example:
        >>> fn = augmented_model_fn(est, model_fn, None)  # doctest: +SKIP
    """
    _check_batch_axis(batch_axis)

    def _model_fn(
        features: Features, labels: Labels, mode: str, config: object, params: dict
    ) -> Any:
        replicas = num_replicas(strategy_for(estimator.config, mode))
        tpu_params = estimator._params_for_model_fn(mode, replicas)
        params = copy.deepcopy(params)
        for key in _TPU_KEYS:
            if key in tpu_params:
                _add_item_to_params(params, key, tpu_params[key])
        return calls.call_model_fn(model_fn, features, labels, mode, params, config)

    return _model_fn


def call_model_fn_for_inference(
    estimator: Estimator, features: Features, labels: Labels, mode: str, config: object
) -> Any:
    """Legacy `TPUEstimator._call_model_fn_for_inference`: the PREDICT spec of the model_fn
    computed for export to a TPU (`model_fn_inference_on_tpu`, with `params['use_tpu']`).

    Example:
        >>> spec = call_model_fn_for_inference(est, f, None, "_inference_on_tpu", config)
        ... # doctest: +SKIP
    """
    if mode != _INFERENCE_ON_TPU_MODE:
        raise ValueError(f"mode must be {_INFERENCE_ON_TPU_MODE}; got {mode}.")
    from tfport.estimator._tpu.tpu_infeed import model_fn_inference_on_tpu

    params = copy.deepcopy(estimator.params)
    _add_item_to_params(params, "use_tpu", True)
    return model_fn_inference_on_tpu(
        estimator._model_fn, features, labels, config, params, batch_config=None
    )
