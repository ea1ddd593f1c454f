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


def _add_item_to_params(params: Any, key: str, value: object) -> None:
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


# -- legacy `_tpu_estimator_embedding`'s name and feature helpers ---------------------------
_TABLE_NAME_PREFIX = "tbl_"


def _get_embedding_var_name_from_table_name(table_name: str) -> str:
    """The embedding variable's name of TPU table `tbl_<name>`."""
    return table_name[len(_TABLE_NAME_PREFIX) :]


def _get_table_name_from_embedding_var_name(embedding_var_name: str) -> str:
    """The TPU table name (`tbl_<name>`) of an embedding variable."""
    return _TABLE_NAME_PREFIX + embedding_var_name


def _get_embedding_variable_name(scope_name: str, var_name: str) -> str:
    """`scope_name/var_name` (`var_name` alone without a scope)."""
    return f"{scope_name}/{var_name}" if scope_name else var_name


def _get_sparse_feature_from_feature(feature_key: str, features: dict) -> Any:
    """Pops the integer sparse ids of `feature_key` from `features` (ValueError for string
    ids: the TPU embedding takes ids)."""
    sparse = features.pop(feature_key)
    if not sparse.dtype.is_integer:
        raise ValueError(
            "SparseTensor with string as values are not supported. If you are using "
            "categorical_column_with_vocabulary_file or categorical_column_with_vocabulary_list, "
            "please call your_column.categorical_column._transform_feature({your_column.key: "
            "features[your_column.key]}) in your input_fn() to convert string to int. "
            f"feature_key = {feature_key}."
        )
    return sparse


def _get_weights_from_features(weight_key_name: str | None, features: dict) -> Any:
    """Pops a weighted column's sparse float32 weights from `features` (None without)."""
    if weight_key_name is None:
        return None
    tf = import_tf()
    if weight_key_name not in features:
        raise ValueError(
            f"Cannot find weights {weight_key_name} for weighted_categorical_column. Please "
            "check if the weights are present in feature dict. Also note weight-sharing among "
            "weighted_categorical_column is not supported on TPU."
        )
    weights = features.pop(weight_key_name)
    if not isinstance(weights, tf.SparseTensor):
        raise ValueError(
            f"weighted_categorical_column with weight key name {weight_key_name} has dense "
            "weights. Dense weights are not supported on TPU. Please use sparse weights "
            "instead."
        )
    return weights if weights.dtype == tf.float32 else tf.cast(weights, tf.float32)


def _maybe_dense_to_sparse(tensor: object) -> Any:
    """A SparseTensor of `tensor`'s non-zero entries (a SparseTensor unchanged)."""
    tf = import_tf()
    if isinstance(tensor, tf.SparseTensor):
        return tensor
    v1 = tf.compat.v1
    indices = v1.where(tensor)
    values = v1.gather_nd(tensor, indices)
    return tf.SparseTensor(indices, values, v1.shape(tensor, out_type=tf.int64))


def _split_tensor(tensor: object, num_splits: int) -> list:
    """`tensor` split into `num_splits` pieces along the batch (None: `num_splits` Nones)."""
    tf = import_tf()
    if tensor is None:
        return [None] * num_splits
    if num_splits <= 0:
        raise ValueError(f"Tensors cannot be split into {num_splits} pieces.")
    if num_splits == 1:
        return [tensor]
    if isinstance(tensor, tf.SparseTensor):
        return tf.sparse.split(sp_input=tensor, num_split=num_splits, axis=0)
    return tf.split(tensor, num_splits)
