"""`TPUEstimatorSpec`: what a TPU model_fn returns, beside `EstimatorSpec`.

Its `eval_metrics` and `host_call` are `(fn, tensors)` pairs; `as_estimator_spec()` gives the
EstimatorSpec the engine builds (the host_call as a per-step hook). TPUEstimator and the
canned estimators' TPU specs both make it.

Example:
    >>> spec = TPUEstimatorSpec("train", loss=1.0)
    >>> spec.host_call is None, spec.training_hooks
    (True, ())
"""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.types import Hook
from tfport.estimator._engine.api.spec import EstimatorSpec


class TPUEstimatorSpec(
    collections.namedtuple(
        "TPUEstimatorSpec",
        [
            "mode",
            "predictions",
            "loss",
            "train_op",
            "eval_metrics",
            "export_outputs",
            "scaffold_fn",
            "host_call",
            "training_hooks",
            "evaluation_hooks",
            "prediction_hooks",
        ],
    )
):
    """What a TPU model_fn returns; `as_estimator_spec()` turns it into an EstimatorSpec.

    Example:
        >>> spec = TPUEstimatorSpec(mode, loss=loss, eval_metrics=(metric_fn, [labels, logits]))
        ... # doctest: +SKIP
    """

    _estimator_api_names = ()  # legacy's estimator_export names
    _estimator_api_names_v1 = ["estimator.tpu.TPUEstimatorSpec"]

    def __new__(
        cls,
        mode: str,
        predictions: object = None,
        loss: object = None,
        train_op: object = None,
        eval_metrics: object = None,
        export_outputs: Mapping[str, object] | None = None,
        scaffold_fn: Callable[[], object] | None = None,
        host_call: object = None,
        training_hooks: Iterable[Hook] | None = None,
        evaluation_hooks: Iterable[Hook] | None = None,
        prediction_hooks: Iterable[Hook] | None = None,
    ) -> TPUEstimatorSpec:
        for name, call in (("eval_metrics", eval_metrics), ("host_call", host_call)):
            if call is not None and not (
                isinstance(call, (tuple, list)) and len(call) == 2 and callable(call[0])
            ):
                raise TfportInputError(
                    message(
                        f"TPUEstimatorSpec.{name} must be (fn, list_or_dict_of_tensors)",
                        "Pass e.g. (metric_fn, [labels, logits])",
                        **{name: call},
                    )
                )
        return super().__new__(
            cls,
            mode,
            predictions,
            loss,
            train_op,
            eval_metrics,
            export_outputs,
            scaffold_fn,
            host_call,
            tuple(training_hooks or ()),
            tuple(evaluation_hooks or ()),
            tuple(prediction_hooks or ()),
        )

    def as_estimator_spec(self) -> EstimatorSpec:
        """The equivalent EstimatorSpec: eval_metrics called, host_call a per-step hook.

        The host_call's function is not called here (inside the model step): the
        engine runs it on the host once per step with that step's values
        (`tfport.estimator._engine.building.host_calls`).
        """
        metric_ops = _call(self.eval_metrics) if self.eval_metrics is not None else None
        hooks: tuple = ()
        if self.host_call is not None:
            from tfport.estimator._engine.building import host_calls

            hooks = (host_calls.HostCallHook(*self.host_call),)
        return EstimatorSpec(
            mode=self.mode,
            predictions=self.predictions,
            loss=self.loss,
            train_op=self.train_op,
            eval_metric_ops=metric_ops,
            export_outputs=self.export_outputs,
            scaffold=self.scaffold_fn() if self.scaffold_fn else None,
            training_hooks=self.training_hooks + hooks,
            evaluation_hooks=self.evaluation_hooks + hooks,
            prediction_hooks=self.prediction_hooks + hooks,
        )


def _call(
    fn_and_tensors: tuple[Callable[..., object], Sequence[object] | Mapping[str, object]],
) -> Any:
    fn, tensors = fn_and_tensors
    return fn(**tensors) if isinstance(tensors, dict) else fn(*tensors)
