"""The legacy `Estimator` internals that subclasses and libraries call or read.

`_call_model_fn`, `_call_input_fn`, `_create_global_step`, `_create_and_assert_global_step`,
`_get_features_and_labels_from_input_fn`, `_assert_members_are_not_overridden`, ... with
legacy's signatures and behaviour, and the instance attributes legacy set in `__init__`
(`_session_config`, `_device_fn`, `_train_distribution`, `_eval_distribution`).

Example:
    >>> spec = est._call_model_fn(features, labels, "train", est.config)  # doctest: +SKIP
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Graph, InputFn, Labels, Mode, Tensor
from tfport.estimator._engine.building import calls, inputs

log = logging.getLogger("tfport")
# legacy's `Estimator._tf_docs_inheritable_header` (its docs' notice), a class attribute
DOCS_HEADER = (
    "  Warning: Estimators are not recommended for new code.  Estimators run\n"
    "  `v1.Session`-style code which is more difficult to write correctly, and\n"
    "  can behave unexpectedly, especially when combined with TF 2 code. Estimators\n"
    "  do fall under our\n"
    "  [compatibility guarantees](https://tensorflow.org/guide/versions), but will\n"
    "  receive no fixes other than security vulnerabilities. See the\n"
    "  [migration guide](https://tensorflow.org/guide/migrate) for details.\n"
    "  "
)
_ESTIMATOR_MODULE = "tfport.estimator._engine.estimator"

# members a subclass may override (legacy's list), and legacy's private members
ALLOWED_OVERRIDES = frozenset(
    {
        "model_fn",
        "_create_and_assert_global_step",
        "_export_all_saved_models",
        "_tf_api_names",
        "_tf_api_names_v1",
        "_estimator_api_names",
        "_estimator_api_names_v1",
        "_estimator_api_constants",
        "_estimator_api_constants_v1",
        "latest_checkpoint",
    }
)
_CHECKED_PRIVATE = frozenset(
    {
        "_call_model_fn",
        "_call_input_fn",
        "_create_global_step",
        "_get_features_and_labels_from_input_fn",
        "_get_features_from_input_fn",
        "_extract_keys",
        "_extract_batch_length",
        "_validate_features_in_predict_input",
    }
)


def set_legacy_attributes(est: Any) -> None:
    """Sets the instance attributes legacy's `Estimator.__init__` set.

    `_session_config` is the session ConfigProto (legacy's default when the RunConfig has
    none); `_device_fn`, `_train_distribution`, `_eval_distribution` come from the RunConfig.
    """
    config = est._config
    est._session_config = config.session_config
    est._device_fn = config.device_fn
    est._train_distribution = config.train_distribute
    est._eval_distribution = config.eval_distribute


def _assert_members_are_not_overridden(cls: type, obj: object) -> None:
    """Raises ValueError when `obj`'s class overrides members of `cls` (legacy's rule).

    tfport's own subclasses (canned estimators, TPUEstimator, ...) are exempt, as legacy's
    own were; libraries switch the check off by replacing
    `Estimator._assert_members_are_not_overridden`, as they did.
    """
    if type(obj).__module__.startswith("tfport.") or type(obj).__name__ == "TPUEstimator":
        return
    members = {
        m
        for m in dir(cls)
        if not m.startswith("__") and (not m.startswith("_") or m in _CHECKED_PRIVATE)
    }
    common = (members & set(type(obj).__dict__)) - ALLOWED_OVERRIDES
    overridden = sorted(m for m in common if getattr(cls, m) != getattr(type(obj), m))
    if overridden:
        raise ValueError(
            "Subclasses of Estimator cannot override members of Estimator. "
            f"{type(obj)} does override {overridden}"
        )


def assert_members_are_not_overridden(self: Any) -> None:
    """`Estimator._assert_members_are_not_overridden()` (called by `__init__`)."""
    base = next(c for c in type(self).__mro__ if c.__module__ == _ESTIMATOR_MODULE)
    _assert_members_are_not_overridden(base, self)


def public_model_fn(est: Any) -> Any:
    """Legacy `Estimator.model_fn`: `fn(features, labels, mode, config)` -> EstimatorSpec."""

    def public_model_fn(features: Features, labels: Labels, mode: Mode, config: object) -> Any:
        return est._call_model_fn(features, labels, mode, config)

    public_model_fn._tfport_estimator = est  # type: ignore[attr-defined]
    return public_model_fn


def call_model_fn(self: Any, features: Features, labels: Labels, mode: Mode, config: object) -> Any:
    """Calls the model_fn with the arguments it takes (params from the Estimator)."""
    log.info("Calling model_fn.")
    # a copy, as legacy's `self.params`; a TPUEstimator adds `batch_size`, `use_tpu`, `context`
    params = copy.deepcopy(self._params_for_model_fn(mode, 1))
    spec = calls.call_model_fn(self._model_fn, features, labels, mode, params, config)
    log.info("Done calling model_fn.")
    return spec


def call_input_fn(self: Any, input_fn: InputFn, mode: Mode, input_context: object = None) -> Any:
    """Calls input_fn on the CPU with the arguments it takes; returns what it returns."""
    args = calls.fn_args(input_fn)
    kwargs: dict[str, Any] = {}
    if "params" in args:
        kwargs["params"] = copy.deepcopy(self._params_for_input(mode))
    if "config" in args:
        kwargs["config"] = self.config
    if "mode" in args:
        kwargs["mode"] = mode
    if input_context is not None and "input_context" in args:
        kwargs["input_context"] = input_context
    tf = import_tf()
    with tf.device("/cpu:0"):
        return input_fn(**kwargs)


def create_global_step(self: Any, graph: Graph | None) -> Any:
    """Creates the global step in `graph` (`tf.compat.v1.train.create_global_step`)."""
    del self
    return import_tf().compat.v1.train.create_global_step(graph)


def create_and_assert_global_step(self: Any, graph: Graph | None) -> Any:
    """Creates the global step (via `_create_global_step`) and checks it is int64."""
    tf = import_tf()
    step = self._create_global_step(graph)
    if step is not None:
        assert step == tf.compat.v1.train.get_global_step(graph)  # noqa: S101 - legacy's check
        assert step.dtype.base_dtype == tf.int64  # noqa: S101
    return step


def get_features_and_labels_from_input_fn(self: Any, input_fn: InputFn, mode: Mode) -> tuple:
    """`(features, labels, input_hooks)` from input_fn (a Dataset gets an iterator hook)."""

    return inputs.parse_input_fn_result(self._call_input_fn(input_fn, mode))


def get_iterator_from_input_fn(
    self: Any, input_fn: InputFn, mode: Mode, distribution: Any = None
) -> tuple[Any, list]:
    """`(iterator, input_hooks)` of input_fn's Dataset: one per replica of `distribution`
    (`make_input_fn_iterator`), else an initializable iterator; the hook initializes it."""
    tf = import_tf()
    if distribution is not None:
        iterator = distribution.make_input_fn_iterator(
            lambda input_context: self._call_input_fn(input_fn, mode, input_context)
        )
    else:
        result = self._call_input_fn(input_fn, mode)
        iterator = tf.compat.v1.data.make_initializable_iterator(result)
    return iterator, [inputs.dataset_initializer_hook(iterator)]


def get_features_from_input_fn(self: Any, input_fn: InputFn, mode: Mode) -> tuple:
    """`(features, input_hooks)` from a predict input_fn."""

    result = self._call_input_fn(input_fn, mode)
    features, _, hooks = inputs.parse_input_fn_result(result)
    self._validate_features_in_predict_input(result)
    return features, hooks


def validate_features_in_predict_input(self: Any, result: object) -> None:
    """Warns when predict's input has no Dataset (it would yield forever), as legacy did."""
    del self
    tf = import_tf()
    if not isinstance(result, tf.data.Dataset):
        graph = tf.compat.v1.get_default_graph()
        if not graph.get_collection(tf.compat.v1.GraphKeys.QUEUE_RUNNERS):
            log.warning(
                "Input graph does not use tf.data.Dataset or contain a QueueRunner. That "
                "means predict yields forever. This is probably a mistake."
            )


def extract_keys(self: Any, predictions: object, predict_keys: str | Sequence[str] | None) -> Any:
    """The `predict_keys` entries of a predictions dict (all when `predict_keys` is None)."""
    del self
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    existing = predictions.keys()
    kept = {k: v for k, v in predictions.items() if k in predict_keys}
    if not kept:
        raise ValueError(
            f"Expected to run at least one output from {existing}, provided {predict_keys}."
        )
    return kept


def extract_batch_length(self: Any, preds_evaluated: Mapping[str, Tensor]) -> Any:
    """The batch length shared by every evaluated prediction (ValueError if they differ)."""
    del self
    length = None
    for key, value in preds_evaluated.items():
        length = length or value.shape[0]
        if value.shape[0] != length:
            raise ValueError(
                "Batch length of predictions should be same. "
                f"{key} has different batch length than others."
            )
    return length
