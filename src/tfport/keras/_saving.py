"""Checkpoint savers and export outputs of Keras Estimators."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import TFModule

tf = import_tf()
_Scaffold: Any = tf.compat.v1.train.Scaffold

GLOBAL_STEP_KEY = "estimator_global_step"


def object_scaffold(root: object, global_step: object) -> Any:
    """A Scaffold whose Saver writes object-based keys (`layer_with_weights-0/kernel/...`).

    `root` is a trackable (the cloned model); the global step is tracked as
    `estimator_global_step`, as in the legacy `model_to_estimator`.

    Example:
        >>> spec_scaffold = object_scaffold(clone, global_step)  # doctest: +SKIP
    """
    tf = import_tf()
    tf_internals.track_child(root, global_step, GLOBAL_STEP_KEY)
    if _outside_replicas(tf):
        return tf.compat.v1.train.Scaffold(saver=_object_saver(root))
    # Inside a replica the saveables of sync-on-read variables (BatchNormalization's
    # moving statistics) cannot be made: the Saver is made in cross-replica context.
    return DeferredSaverScaffold(root)


def _object_saver(root: object) -> Any:
    return tf_internals.object_based_saver(root)


def _outside_replicas(tf: TFModule) -> bool:
    return not tf.distribute.has_strategy() or tf.distribute.in_cross_replica_context()


class DeferredSaverScaffold(_Scaffold):
    """A Scaffold whose object-based Saver is made when first asked for."""

    def __init__(self, root: object) -> None:
        super().__init__()
        self._root = root

    @property
    def saver(self) -> Any:
        if tf_internals.scaffold_saver(self) is None and _outside_replicas(tf):
            tf_internals.set_scaffold_saver(self, _object_saver(self._root))
        return tf_internals.scaffold_saver(self)

    def finalize(self) -> Any:
        self.saver  # noqa: B018 - made here at the latest
        return super().finalize()


def export_outputs(predictions: dict, extra: Mapping[str, type] | None) -> dict:
    """`serving_default` = PredictOutput(predictions), plus `{output name: ExportOutput class}`.

    Example:
        >>> export_outputs({"probs": probs}, None)  # doctest: +SKIP
        {'serving_default': <PredictOutput>}
    """
    tf = import_tf()
    predict_output = tf_internals.predict_output_class()
    outputs = {tf.saved_model.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_output(predictions)}
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
