"""TensorFlow internals of SavedModel export and loading.

The Estimator's export outputs and the signature defs made of them (no public path since
`tf.estimator` left TensorFlow, 2.16; present since TF 2.1), the legacy builder's record
of the train op, and the TF1 SavedModel loader.

Example:
    >>> from tfport._common.tf_internals import saved_model
    >>> ("saved_model.model_utils.export_output", "PredictOutput") in saved_model.SYMBOLS
    True
"""

from __future__ import annotations

from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("saved_model.model_utils.export_output", "ExportOutput"),
    ("saved_model.model_utils.export_output", "PredictOutput"),
    ("saved_model.model_utils.export_output", "ClassificationOutput"),
    ("saved_model.model_utils.export_output", "RegressionOutput"),
    ("saved_model.model_utils.export_output", "EvalOutput"),
    ("saved_model.model_utils.export_utils", "get_timestamped_export_dir"),
    ("saved_model.model_utils.export_utils", "get_temp_export_dir"),
    ("saved_model.model_utils.export_utils", "get_export_outputs"),
    ("saved_model.model_utils.export_utils", "export_outputs_for_mode"),
    ("saved_model.model_utils.export_utils", "build_all_signature_defs"),
    ("saved_model.loader_impl", "SavedModelLoader"),
    ("saved_model.loader_impl", "_get_main_op_tensor"),
    ("saved_model.loader_impl", "get_asset_tensors"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("saved_model.builder_impl", "SavedModelBuilder", "_add_train_op"),
)

# --- the Estimator's export outputs ----------------------------------------------------


def export_output_class() -> Any:
    """`export_output.ExportOutput`: the base of the Estimator's export outputs.

    Example:
        >>> export_output_class().__name__
        'ExportOutput'
    """
    return tf_symbol("saved_model.model_utils.export_output", "ExportOutput")


def predict_output_class() -> Any:
    """`export_output.PredictOutput`: a predict signature of named output tensors.

    Example:
        >>> predict_output_class().__name__
        'PredictOutput'
    """
    return tf_symbol("saved_model.model_utils.export_output", "PredictOutput")


def classification_output_class() -> Any:
    """`export_output.ClassificationOutput`: a classify signature (scores and classes).

    Example:
        >>> classification_output_class().__name__
        'ClassificationOutput'
    """
    return tf_symbol("saved_model.model_utils.export_output", "ClassificationOutput")


def regression_output_class() -> Any:
    """`export_output.RegressionOutput`: a regress signature (one float tensor).

    Example:
        >>> regression_output_class().__name__
        'RegressionOutput'
    """
    return tf_symbol("saved_model.model_utils.export_output", "RegressionOutput")


def eval_output_class() -> Any:
    """`export_output.EvalOutput`: an eval signature (loss, predictions, metrics).

    Example:
        >>> eval_output_class().__name__
        'EvalOutput'
    """
    return tf_symbol("saved_model.model_utils.export_output", "EvalOutput")


# --- export directories and signature defs -----------------------------------------------


def get_timestamped_export_dir(export_dir_base: str) -> bytes:
    """`export_utils.get_timestamped_export_dir`: a new `<base>/<seconds>` directory name.

    Example:
        >>> get_timestamped_export_dir("/tmp/export")  # doctest: +SKIP
        b'/tmp/export/1700000000'
    """
    return tf_symbol("saved_model.model_utils.export_utils", "get_timestamped_export_dir")(
        export_dir_base
    )


def get_temp_export_dir(timestamped_export_dir: bytes) -> bytes:
    """`export_utils.get_temp_export_dir`: the `temp-<seconds>` sibling an export is
    written to before its rename.

    Example:
        >>> get_temp_export_dir(b"/tmp/export/1700000000")
        b'/tmp/export/temp-1700000000'
    """
    return tf_symbol("saved_model.model_utils.export_utils", "get_temp_export_dir")(
        timestamped_export_dir
    )


def get_export_outputs(export_outputs: object, predictions: object) -> dict:
    """`export_utils.get_export_outputs`: a spec's export outputs, checked, with the serving
    default made of `predictions` when there is none.

    Example:
        >>> get_export_outputs(None, {"y": y})  # doctest: +SKIP
    """
    return tf_symbol("saved_model.model_utils.export_utils", "get_export_outputs")(
        export_outputs, predictions
    )


def export_outputs_for_mode(
    mode: str,
    serving_export_outputs: object = None,
    predictions: object = None,
    loss: object = None,
    metrics: object = None,
) -> dict:
    """`export_utils.export_outputs_for_mode`: the export outputs of `mode`'s meta graph.

    Example:
        >>> export_outputs_for_mode("infer", predictions={"y": y})  # doctest: +SKIP
    """
    return tf_symbol("saved_model.model_utils.export_utils", "export_outputs_for_mode")(
        mode,
        serving_export_outputs=serving_export_outputs,
        predictions=predictions,
        loss=loss,
        metrics=metrics,
    )


def build_all_signature_defs(
    receiver_tensors: object,
    export_outputs: object,
    receiver_tensors_alternatives: object = None,
    serving_only: bool = True,
) -> dict:
    """`export_utils.build_all_signature_defs`: `{signature key: SignatureDef}` of a
    receiver's tensors and the export outputs.

    Example:
        >>> build_all_signature_defs({"x": x}, outputs)  # doctest: +SKIP
    """
    return tf_symbol("saved_model.model_utils.export_utils", "build_all_signature_defs")(
        receiver_tensors,
        export_outputs,
        receiver_tensors_alternatives,
        serving_only=serving_only,
    )


def add_train_op(builder: Any, train_op: Any) -> None:
    """`SavedModelBuilder._add_train_op`: the legacy exporter's record of the train op."""
    builder._add_train_op(train_op)


# --- TF1 SavedModel loading ----------------------------------------------------------


def saved_model_loader(export_dir: str) -> Any:
    """`tensorflow.python.saved_model.loader_impl.SavedModelLoader(export_dir)`.

    The TF1 SavedModel reader behind `tf.compat.v1.saved_model.load`: meta graphs by tag
    (`get_meta_graph_def_from_tags`) and `load_graph(graph, tags, input_map,
    return_elements)` without a session (TF >= 1.11, unchanged to 2.21).
    """
    return tf_symbol("saved_model.loader_impl", "SavedModelLoader")(export_dir)


def saved_model_main_op(meta_graph_def: Any) -> Any:
    """The main op (`saved_model_main_op` collection) of a meta graph imported into the
    default graph, or None: `loader_impl._get_main_op_tensor` (TF >= 1.12)."""
    return tf_symbol("saved_model.loader_impl", "_get_main_op_tensor")(meta_graph_def)


def saved_model_asset_tensors(export_dir: str, meta_graph_def: Any) -> dict:
    """`{asset tensor: asset file path}` of an imported meta graph:
    `loader_impl.get_asset_tensors` (TF >= 1.12)."""
    get = tf_symbol("saved_model.loader_impl", "get_asset_tensors")
    return get(export_dir, meta_graph_def, import_scope=None)
