"""Module-level helpers and constants of legacy `tpu_estimator` that libraries import.

`_create_global_step(graph)` (the resource global step TPUEstimator made),
`_get_scaffold(captured_scaffold_fn)`, `_export_output_to_tensors` /
`_clone_export_output_with_tensors` (an ExportOutput's tensors out and back in) and the
collection / variable names `_TPU_ESTIMATOR`, `_ITERATIONS_PER_LOOP_VAR`,
`_TPU_ENQUEUE_OPS`, `_TPU_TRAIN_OP`, with legacy's arguments, results and errors.

Example:
    >>> _export_output_to_tensors(RegressionOutput(value))  # doctest: +SKIP
    [value]
"""

from __future__ import annotations

import functools
from typing import Any

from tfport._common.tfenv import import_tf

_TPU_ESTIMATOR = "tpu_estimator"
_ITERATIONS_PER_LOOP_VAR = "iterations_per_loop"
_TPU_ENQUEUE_OPS = "_tpu_enqueue_ops"
_TPU_TRAIN_OP = "_tpu_train_op"

ExportOutput = Any
_KINDS = "`ClassificationOutput`, `RegressionOutput`, or `PredictOutput`"


def _create_global_step(graph: Any) -> Any:
    """Creates the int64 resource `global_step` in `graph` (or the default graph).

    Example:
        >>> step = _create_global_step(tf.Graph())  # doctest: +SKIP
    """
    v1 = import_tf().compat.v1
    graph = graph or v1.get_default_graph()
    if v1.train.get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default() as g, g.name_scope(None):
        return v1.get_variable(
            v1.GraphKeys.GLOBAL_STEP,
            shape=[],
            dtype="int64",
            initializer=v1.initializers.zeros(),
            trainable=False,
            use_resource=True,
            collections=[v1.GraphKeys.GLOBAL_VARIABLES, v1.GraphKeys.GLOBAL_STEP],
        )


def _get_scaffold(captured_scaffold_fn: Any) -> Any:
    """The Scaffold of a captured `TPUEstimatorSpec.scaffold_fn` (None without one)."""
    scaffold_fn = captured_scaffold_fn.get()
    if not scaffold_fn:
        return None
    scaffold = scaffold_fn()
    if scaffold is None:
        raise ValueError("TPUEstimatorSpec.scaffold_fn returns None, which is not allowed")
    return scaffold


def _export_output_to_tensors(export_output: ExportOutput) -> list:
    """The tensors of a Classification (scores, classes), Regression or Predict output."""
    outputs = import_tf().estimator.export
    if isinstance(export_output, outputs.ClassificationOutput):
        return [export_output.scores, export_output.classes]
    if isinstance(export_output, outputs.RegressionOutput):
        return [export_output.value]
    if isinstance(export_output, outputs.PredictOutput):
        return list(export_output.outputs.values())
    raise ValueError(f"`export_output` must be have type {_KINDS}; got {export_output}.")


def _clone_export_output_with_tensors(export_output: ExportOutput, tensors: list) -> Any:
    """An output of `export_output`'s type holding `tensors` (in `_export_output_to_tensors`'
    order)."""
    outputs = import_tf().estimator.export
    if isinstance(export_output, outputs.ClassificationOutput):
        if len(tensors) != 2:
            raise ValueError(f"tensors must be of length 2; got {len(tensors)}.")
        return outputs.ClassificationOutput(*tensors)
    if isinstance(export_output, outputs.RegressionOutput):
        if len(tensors) != 1:
            raise ValueError(f"tensors must be of length 1; got {len(tensors)}")
        return outputs.RegressionOutput(*tensors)
    if isinstance(export_output, outputs.PredictOutput):
        return outputs.PredictOutput(dict(zip(export_output.outputs.keys(), tensors)))
    raise ValueError(f"`export_output` must be have type {_KINDS}; got {export_output}.")


def _get_tpu_job_name_from_tf_config() -> Any:
    """The TPU worker job name TF_CONFIG's `service` names (`tpu_worker_job_name`), or None."""
    import json
    import logging
    import os

    service = json.loads(os.environ.get("TF_CONFIG", "{}")).get("service", {})
    name = service.get("tpu_worker_job_name")
    if name:
        logging.getLogger("tensorflow").info("Load TPU job name from TF_CONFIG: %s", name)
    return name


def _is_iterable(obj: Any) -> bool:
    """Whether `iter(obj)` works (legacy's check of hooks and host_call arguments)."""
    try:
        iter(obj)
    except TypeError:
        return False
    return True


def _add_item_to_params(params: Any, key: str, value: Any) -> None:
    """Sets `params[key]`: an HParams-like's `set_hparam`/`add_hparam`, else item assignment."""
    if not hasattr(params, "set_hparam"):
        params[key] = value
    elif key in params:
        params.set_hparam(key, value)
    else:
        params.add_hparam(key, value)


@functools.cache
def tpu_estimator_gauge() -> Any:
    """Legacy `tpu_estimator._tpu_estimator_gauge` (one per process)."""
    from tfport._common import tf_internals

    return tf_internals.bool_gauge(
        "/tensorflow/api/tpu_estimator", "Whether the program uses tpu estimator or not."
    )


def ignored_errors() -> tuple:
    """Legacy `error_handling._IGNORED_ERRORS`: the errors a TPU session shutdown ignores."""
    tf = import_tf()
    return (tf.errors.AbortedError, tf.errors.UnavailableError)


def uninteresting_errors() -> tuple:
    """Legacy `error_handling._UNINTERESTING_ERRORS`: errors not worth reporting."""
    return (import_tf().errors.CancelledError,)


def tpu_embedding_column_classes() -> tuple:
    """Legacy `_tpu_estimator_embedding._TPU_EMBEDDING_COLUMN_CLASSES`."""
    from tfport._common import tf_internals

    return tf_internals.tpu_embedding_column_classes()
