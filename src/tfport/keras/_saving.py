"""Checkpoint savers and export outputs of Keras Estimators."""

from __future__ import annotations

from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

GLOBAL_STEP_KEY = "estimator_global_step"


def object_scaffold(root: Any, global_step: Any) -> Any:
    """A Scaffold whose Saver writes object-based keys (`layer_with_weights-0/kernel/...`).

    `root` is a trackable (the cloned model); the global step is tracked as
    `estimator_global_step`, as in the legacy `model_to_estimator`.

    Example:
        >>> spec_scaffold = object_scaffold(clone, global_step)  # doctest: +SKIP
    """
    import_tf()
    from tensorflow.python.checkpoint import checkpoint as trackable_util
    from tensorflow.python.checkpoint import graph_view

    tf = import_tf()
    root._track_trackable(global_step, GLOBAL_STEP_KEY, overwrite=True)
    var_list = graph_view.ObjectGraphView(root).frozen_saveable_objects()
    saver = tf.compat.v1.train.Saver(var_list=var_list, sharded=True)
    saver._object_restore_saver = trackable_util.frozen_saver(root)
    return tf.compat.v1.train.Scaffold(saver=saver)


def export_outputs(predictions: dict, extra: dict | None) -> dict:
    """`serving_default` = PredictOutput(predictions), plus `{output name: ExportOutput class}`.

    Example:
        >>> export_outputs({"probs": probs}, None)  # doctest: +SKIP
        {'serving_default': <PredictOutput>}
    """
    tf = import_tf()
    from tensorflow.python.saved_model.model_utils import export_output

    outputs = {
        tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: export_output.PredictOutput(predictions)
    }
    if not extra:
        return outputs
    unknown = sorted(set(extra) - set(predictions))
    if unknown:
        raise TfportInputError(
            message(
                "export_outputs keys must be the Keras model's output names",
                "Key export_outputs by output name, e.g. {'probs': RegressionOutput}",
                expected_keys=sorted(predictions),
                received_keys=sorted(extra),
            )
        )
    for key, output_cls in extra.items():
        outputs[key] = output_cls(predictions[key])
    return outputs
