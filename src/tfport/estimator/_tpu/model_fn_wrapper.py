"""Legacy `tpu_estimator._ModelFnWrapper`: one model_fn called off a TPU or as a TPU step.

`call_without_tpu` calls the model_fn as legacy's CPU/GPU route did (params copied, with
`batch_size`, `use_tpu` and, on a TPU, `context`; a TPUEstimatorSpec turned into an
EstimatorSpec off a TPU). `convert_to_single_tpu_{train,eval,predict}_step` give the
per-step bodies legacy's TPU programs loop over (inputs from `dequeue_fn`, host calls sent
through the outfeed: `outfeed.py`); `tpu_programs.py` builds those programs. The context
`ctx` is legacy's internal TPU context or tfport's `EmulatedDeployment`; one without
`is_running_on_cpu` (tfport's) runs the model off a TPU, as tfport always does.

Example:
    >>> wrapper = _ModelFnWrapper(model_fn, config, {}, ctx)  # doctest: +SKIP
    >>> spec = wrapper.call_without_tpu(features, labels, is_export_mode=False)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import logging
from typing import TYPE_CHECKING, Any, TypeGuard

from tfport._common.tfenv import import_tf
from tfport._common.types import DequeueFn, Features, Labels, ModelFn, Params, TPUDeployment
from tfport.estimator._engine.api.spec import EstimatorSpec
from tfport.estimator._engine.building.calls import fn_args
from tfport.estimator._tpu.legacy_helpers import _add_item_to_params
from tfport.estimator._tpu.outfeed import _OutfeedHostCall
from tfport.estimator._tpu.tpu_context import TPUContext
from tfport.estimator._tpu.tpu_embedding_internals import _NO_ENGINE, _USE
from tfport.estimator._tpu.tpu_inputs import _CapturedObject, _StopSignals

if TYPE_CHECKING:
    from tfport.estimator._engine.api.tpu_spec import TPUEstimatorSpec
    from tfport.estimator._tpu.tpu_estimator import RunConfig

tf = import_tf()
log = logging.getLogger("tfport")


def running_on_cpu(ctx: object, is_export_mode: bool = False) -> bool:
    """Whether `ctx` runs the model_fn off a TPU (tfport's deployment always does).

    Example:
        >>> running_on_cpu(object())
        True
    """
    check = getattr(ctx, "is_running_on_cpu", None)
    return True if check is None else bool(check(is_export_mode))


def is_tpu_spec(spec: object) -> TypeGuard[TPUEstimatorSpec]:
    """Whether `spec` is a TPUEstimatorSpec (an EstimatorSpec once `as_estimator_spec`-ed).

    Example:
        >>> is_tpu_spec(object())
        False
    """
    return hasattr(spec, "as_estimator_spec") and not isinstance(spec, EstimatorSpec)


def _identity_fn(**kwargs: object) -> dict:
    return kwargs


class _ModelFnWrapper:
    """Calls a TPUEstimator's model_fn off a TPU, or builds its single TPU steps.

    Example:
        >>> _ModelFnWrapper(model_fn, config, {}, ctx).call_without_tpu(f, l, False)
        ... # doctest: +SKIP
    """

    def __init__(
        self, model_fn: ModelFn, config: RunConfig, params: Params, ctx: TPUDeployment
    ) -> None:
        self._model_fn = model_fn
        self._config = config
        self._params = params
        self._ctx = ctx

    def call_without_tpu(self, features: Features, labels: Labels, is_export_mode: bool) -> Any:
        """The model_fn's spec, called as on CPU/GPU (an EstimatorSpec there)."""
        return self._call_model_fn(features, labels, is_export_mode=is_export_mode)

    def _add_embedding_features(self, features: Features, hook_dummy_table_variables: bool) -> None:
        """Adds the TPU embedding activations to `features` (nothing without embeddings)."""
        if getattr(self._ctx, "embedding_config", None):
            raise RuntimeError(
                f"TPU embedding activations cannot be added: {_NO_ENGINE}. {_USE}. "
                f"Received: hook_dummy_table_variables={hook_dummy_table_variables!r}"
            )

    def convert_to_single_tpu_train_step(self, dequeue_fn: DequeueFn) -> tuple:
        """(train_step(step), host calls, captured scaffold_fn, captured training hooks)."""
        every = self._config.tpu_config.experimental_host_call_every_n_steps
        host_call = _OutfeedHostCall(self._ctx, outfeed_every_n_steps=every)
        captured_scaffold_fn, captured_hooks = _CapturedObject(), _CapturedObject()

        def train_step(step: object) -> Any:
            features, labels = dequeue_fn().features_and_labels()
            self._add_embedding_features(features, True)
            spec = self._verify_estimator_spec(self._call_model_fn(features, labels))
            tpu_spec = is_tpu_spec(spec)
            captured_scaffold_fn.capture(spec.scaffold_fn if tpu_spec else None)
            captured_hooks.capture(spec.training_hooks)
            to_record: dict = {}
            feed_hook = getattr(self._ctx, "feed_hook", None)
            if feed_hook is not None:
                signals, name = feed_hook.get_stopping_signals_and_name(features)
                to_record[name] = [_identity_fn, signals]
            with tf.control_dependencies([spec.train_op]):
                fn, args = spec.host_call if tpu_spec and spec.host_call else (None, [])
                outfeed: list = []
                if fn is None:  # the loss, so the host sees the program progress
                    to_record["host_call"] = (lambda loss_t: loss_t, [tf.reshape(spec.loss, [1])])
                elif args:
                    to_record["host_call"] = spec.host_call
                if to_record:
                    host_call.record(to_record)
                    outfeed = host_call.create_enqueue_op(step)
                with tf.control_dependencies(outfeed):
                    return tf.identity(spec.loss)

        return train_step, host_call, captured_scaffold_fn, captured_hooks

    def convert_to_single_tpu_eval_step(self, dequeue_fn: DequeueFn) -> tuple:
        """(eval_step(total_loss), host calls, captured scaffold_fn, captured eval hooks)."""
        host_calls = _OutfeedHostCall(self._ctx)
        captured_scaffold_fn, captured_hooks = _CapturedObject(), _CapturedObject()

        def eval_step(total_loss: object) -> Any:
            features, labels = dequeue_fn().features_and_labels()
            self._add_embedding_features(features, False)
            spec = self._tpu_spec(self._call_model_fn(features, labels), "evaluation")
            captured_scaffold_fn.capture(spec.scaffold_fn)
            captured_hooks.capture(spec.evaluation_hooks)
            to_record = {}
            if spec.eval_metrics:
                to_record["eval_metrics"] = spec.eval_metrics
            if spec.host_call is not None:
                to_record["host_call"] = spec.host_call
            host_calls.record(to_record)
            with tf.control_dependencies(host_calls.create_enqueue_op()):
                return tf.math.add(total_loss, spec.loss)

        return eval_step, host_calls, captured_scaffold_fn, captured_hooks

    def convert_to_single_tpu_predict_step(self, dequeue_fn: DequeueFn) -> tuple:
        """(predict_step(signal), host calls, captured scaffold_fn, captured predict hooks)."""
        host_calls = _OutfeedHostCall(self._ctx)
        captured_scaffold_fn, captured_hooks = _CapturedObject(), _CapturedObject()

        def predict_step(unused_scalar_stopping_signal: object) -> Any:
            inputs = dequeue_fn()
            features, labels = inputs.features_and_labels()
            signals = inputs.signals()
            if signals is None:
                raise RuntimeError("Internal Error: `signals` is missing.")
            spec = self._call_model_fn(features, labels, is_export_mode=False)
            spec = self._tpu_spec(spec, "prediction")
            self._verify_tpu_spec_predictions(spec.predictions)
            captured_scaffold_fn.capture(spec.scaffold_fn)
            captured_hooks.capture(spec.prediction_hooks)
            to_record: dict = {
                "predictions": [_identity_fn, spec.predictions],
                "signals": [_identity_fn, signals],
            }
            if spec.host_call is not None:
                to_record["host_call"] = spec.host_call
            host_calls.record(to_record)
            with tf.control_dependencies(host_calls.create_enqueue_op()):
                return _StopSignals.as_scalar_stopping_signal(signals)

        return predict_step, host_calls, captured_scaffold_fn, captured_hooks

    @staticmethod
    def _tpu_spec(spec: object, what: str) -> Any:
        if not is_tpu_spec(spec):
            raise RuntimeError(
                f"estimator_spec used by TPU {what} must have type`TPUEstimatorSpec`. "
                f"Got {type(spec)}"
            )
        return spec

    def _verify_tpu_spec_predictions(self, predictions: object) -> Any:
        """`predictions`, checked: a dict of tensors with a static batch dimension."""
        if not isinstance(predictions, dict):
            raise TypeError("TPUEstimatorSpec.predictions must be dict of Tensors.")
        for key, tensor in predictions.items():
            if tensor.shape.dims[0].value is None:
                raise ValueError(
                    f"The tensor with key ({key}) in TPUEstimatorSpec.predictions has dynamic "
                    f"shape (should be static). Tensor: {tensor}"
                )
        return predictions

    def _validate_model_features_and_labels(
        self, features: Features, labels: Labels, is_export_mode: bool
    ) -> None:
        """On a TPU (not exporting), every feature and label tensor needs a static shape."""
        if is_export_mode or running_on_cpu(self._ctx, is_export_mode):
            return
        for name, value in (("features", features), ("labels", labels)):
            if name == "labels" and value is None:
                continue
            for tensor in tf.nest.flatten(value):
                if not tensor.get_shape().is_fully_defined():
                    raise ValueError(
                        f"The {name} to the model returned by input_fn must have static "
                        f"shape. Tensor: {tensor}"
                    )

    def _call_model_fn(
        self, features: Features, labels: Labels, is_export_mode: bool = False
    ) -> Any:
        """Calls the model_fn with copies of config and params, `params` completed."""
        self._validate_model_features_and_labels(features, labels, is_export_mode)
        args = fn_args(self._model_fn)
        config, params = copy.deepcopy(self._config), copy.deepcopy(self._params)
        kwargs: dict[str, Any] = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = self._ctx.mode
        if "config" in args:
            kwargs["config"] = config
        if "params" not in args:
            raise ValueError(
                f"model_fn ({self._model_fn}) does not include params argument, required by "
                "TPUEstimator to pass batch size as params['batch_size']"
            )
        kwargs["params"] = params
        batch = None if is_export_mode else self._ctx.batch_size_for_model_fn
        if batch is not None:
            _add_item_to_params(params, "batch_size", batch)
        on_cpu = running_on_cpu(self._ctx, is_export_mode)
        if not is_export_mode:  # exporting: the caller set use_tpu for the export mode
            _add_item_to_params(params, "use_tpu", not on_cpu)
        if not on_cpu:
            context = TPUContext(internal_ctx=self._ctx, call_from_input_fn=False)
            _add_item_to_params(params, "context", context)
        spec = self._model_fn(features=features, **kwargs)
        if on_cpu and is_tpu_spec(spec):
            return spec.as_estimator_spec()
        return spec

    def _verify_estimator_spec(self, estimator_spec: Any) -> Any:
        """A TPUEstimatorSpec as it is; an EstimatorSpec without training_chief_hooks."""
        if is_tpu_spec(estimator_spec):
            return estimator_spec
        if estimator_spec.training_chief_hooks:
            raise ValueError(
                "training_chief_hooks returned by EstimatorSpec is not supported in "
                "TPUEstimator.If you want to pass training hooks, please pass via "
                "training_hooks."
            )
        if estimator_spec.scaffold:
            log.warning(
                "EstimatorSpec.Scaffold is ignored by TPU train/eval. Please use TPUEstimatorSpec."
            )
        return estimator_spec
