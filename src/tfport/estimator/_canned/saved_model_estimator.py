"""`SavedModelEstimator`: an Estimator over a SavedModel exported from an Estimator.

Each mode loads the SavedModel's meta graph of that mode (`train`, `eval`, `serve`, as
`experimental_export_all_saved_models` writes them) into the Estimator's graph, feeding
the signature's inputs from `input_fn`'s features and labels, and builds the
EstimatorSpec from the signature's outputs (loss, predictions, metrics; the train op
from the SavedModel's collection). Without a checkpoint in `model_dir` the variables
come from the SavedModel; training continues from them and saves in `model_dir`.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport.estimator._engine.api.spec import EstimatorSpec, ModeKeys
from tfport.estimator._engine.estimator import Estimator

if TYPE_CHECKING:
    from tfport._common.types import Features, Graph, Labels, Session

log = logging.getLogger("tfport")

# the Estimator export's names (tf.estimator.export / SavedModel constants, as legacy)
_TAGS = {ModeKeys.TRAIN: ["train"], ModeKeys.EVAL: ["eval"], ModeKeys.PREDICT: ["serve"]}
_TRAIN_OP_KEY = "saved_model_train_op"
_CLEARED = ("saved_model_assets", "legacy_init_op", "saved_model_main_op", _TRAIN_OP_KEY)
_SEP, _METRICS, _VALUE, _UPDATE = "/", "metrics", "value", "update_op"
_LOSS, _PREDICTIONS = "loss", "predictions"
_METHODS = {
    ModeKeys.TRAIN: "tensorflow/supervised/training",
    ModeKeys.EVAL: "tensorflow/supervised/eval",
}


class SavedModelEstimator(Estimator):
    """An Estimator whose graph is a SavedModel exported by an Estimator.

    Export with `experimental_export_all_saved_models` (TRAIN, EVAL and PREDICT
    receivers) so every mode is available; a plain `export_saved_model` gives PREDICT
    only. `input_fn`'s feature (and label) keys must match the signature's input keys.

    Args:
        saved_model_dir: the SavedModel's folder (a timestamped export).
        model_dir: where training writes checkpoints (default: a temporary folder).

    Example:
        >>> est = SavedModelEstimator("export/1700000000", model_dir="/tmp/sme")
        ... # doctest: +SKIP
        >>> est.evaluate(input_fn)  # doctest: +SKIP
    """

    def __init__(self, saved_model_dir: str, model_dir: str | None = None) -> None:
        super().__init__(model_fn=self._model_fn_from_saved_model, model_dir=model_dir)
        if self._config.train_distribute or self._config.eval_distribute:
            log.warning(
                "SavedModelEstimator runs on one device (a SavedModel's graph is a "
                "single-device graph): the distribution strategy is not used"
            )
            self._config = self._config.replace(train_distribute=None, eval_distribute=None)
        self.saved_model_dir = os.fspath(saved_model_dir)
        self.saved_model_loader = tf_internals.saved_model_loader(self.saved_model_dir)
        self._available_modes = self._extract_available_modes()

    def _context(self, mode: str) -> Any:
        return dataclasses.replace(super()._context(mode), model_creates_global_step=True)

    def _extract_available_modes(self) -> list:
        tf_log = import_tf().compat.v1.logging  # legacy's lines, on the tensorflow logger
        tf_log.info("Checking available modes for SavedModelEstimator.")
        available = []
        for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            try:
                self._get_meta_graph_def_for_mode(mode)
            except RuntimeError:
                tf_log.warning("%s mode not found in SavedModel.", mode)
                continue
            if self._get_signature_def_for_mode(mode) is not None:
                available.append(mode)
        tf_log.info("Available modes for Estimator: %s", available)
        return available

    def _validate_mode(self, mode: str) -> None:
        if mode not in self._available_modes:
            raise RuntimeError(
                f"{mode} mode is not available in the SavedModel. Use saved_model_cli to "
                "check that the Metagraph for this mode has been exported."
            )

    def _get_meta_graph_def_for_mode(self, mode: str) -> Any:
        return self.saved_model_loader.get_meta_graph_def_from_tags(_TAGS[mode])

    def _get_signature_def_for_mode(self, mode: str) -> Any:
        meta_graph_def = self._get_meta_graph_def_for_mode(mode)
        key = "serving_default" if mode == ModeKeys.PREDICT else mode
        if key not in meta_graph_def.signature_def:
            import_tf().compat.v1.logging.warning(
                'Metagraph for mode %s was found, but SignatureDef with key "%s" is missing.',
                mode,
                key,
            )
            return None
        return meta_graph_def.signature_def[key]

    def _get_saver_def_from_mode(self, mode: str) -> Any:
        return self._get_meta_graph_def_for_mode(mode).saver_def

    def _create_and_assert_global_step(self, graph: Graph | None) -> None:
        """None: the global step comes with the SavedModel's graph."""
        return None

    def _model_fn_from_saved_model(
        self, features: Features, labels: Labels, mode: str
    ) -> EstimatorSpec:
        """Loads the meta graph of `mode` into the default graph; its EstimatorSpec."""
        tf = import_tf()
        v1 = tf.compat.v1
        self._validate_mode(mode)
        graph = v1.get_default_graph()
        if v1.train.get_global_step(graph) is not None:
            raise RuntimeError(
                "Graph must not contain a global step tensor before the SavedModel is loaded. "
                "Please make sure that the input function does not create a global step."
            )
        signature_def = self._get_signature_def_for_mode(mode)
        names = [value.name for value in signature_def.outputs.values()]
        _, tensors = self.saved_model_loader.load_graph(
            graph,
            _TAGS[mode],
            input_map=_generate_input_map(signature_def, features, labels),
            return_elements=names,
        )
        meta_graph_def = self._get_meta_graph_def_for_mode(mode)
        scaffold = v1.train.Scaffold(
            local_init_op=tf_internals.saved_model_main_op(meta_graph_def),
            local_init_feed_dict=tf_internals.saved_model_asset_tensors(
                self.saved_model_dir, meta_graph_def
            ),
            saver=v1.train.Saver(saver_def=self._get_saver_def_from_mode(mode)),
            init_fn=None if super().latest_checkpoint() else self._restore_from_saver,
        )
        v1.train.assert_global_step(v1.train.get_global_step(graph))
        by_name = dict(zip(names, tensors))
        outputs = {key: by_name[value.name] for key, value in signature_def.outputs.items()}
        loss, predictions, metrics = _validate_and_extract_outputs(
            mode, outputs, signature_def.method_name
        )
        train_ops = v1.get_collection(_TRAIN_OP_KEY)
        if len(train_ops) > 1:
            raise RuntimeError("Multiple ops found in the train_op collection.")
        _clear_saved_model_collections()
        return EstimatorSpec(
            scaffold=scaffold,
            mode=mode,
            loss=loss,
            train_op=train_ops[0] if train_ops else None,
            predictions=predictions,
            eval_metric_ops=metrics,
        )

    def _restore_from_saver(self, scaffold: Any, session: Session) -> None:
        scaffold.saver.restore(session, _get_saved_model_ckpt(self.saved_model_dir))

    def latest_checkpoint(self) -> str | None:
        """The newest checkpoint in model_dir, else the SavedModel's variables."""
        return super().latest_checkpoint() or _get_saved_model_ckpt(self.saved_model_dir)


def _get_saved_model_ckpt(saved_model_dir: str) -> str:
    """The checkpoint prefix of a SavedModel's variables (`variables/variables`)."""
    prefix = os.path.join(os.fspath(saved_model_dir), "variables", "variables")
    if not import_tf().io.gfile.exists(prefix + ".index"):
        raise ValueError(f"Directory provided has an invalid SavedModel format: {saved_model_dir}")
    return prefix


def _clear_saved_model_collections() -> None:
    """Empties the SavedModel collections a loaded meta graph brought into the graph."""
    v1 = import_tf().compat.v1
    for key in _CLEARED:
        del v1.get_collection_ref(key)[:]


def _as_dict(value: Any, what: str) -> dict:
    tf = import_tf()
    if not isinstance(value, dict):
        value = {what: value}
    for key, tensor in value.items():
        if not isinstance(tensor, (tf.Tensor, tf.SparseTensor, tf.RaggedTensor)):
            raise ValueError(f"{what} must be a Tensor or a dict of Tensors; got {key}: {tensor!r}")
    return value


def _generate_input_map(signature_def: Any, features: Features, labels: Labels) -> dict:
    """`{input op name (and its ^control name): feature or label tensor}` by signature key."""
    features = _as_dict(features, "feature")
    labels = _as_dict(labels, "label") if labels is not None else None
    input_map: dict = {}
    for key, tensor_info in signature_def.inputs.items():
        name = tensor_info.name.split(":")[0]
        if key in features:
            tensor = features[key]
        elif labels is not None and key in labels:
            tensor = labels[key]
        else:
            raise ValueError(
                f'Key "{key}" not found in features or labels passed in to the model function. '
                f"All required keys: {list(signature_def.inputs.keys())}"
            )
        _check_same_dtype_and_shape(tensor, tensor_info, key)
        input_map[name] = input_map["^" + name] = tensor
    return input_map


def _check_same_dtype_and_shape(tensor: Any, tensor_info: Any, name: str) -> None:
    """Raises when `tensor` does not match the signature input's dtype and shape."""
    tf = import_tf()
    want_dtype, want_shape = (
        tf.dtypes.DType(tensor_info.dtype),
        tf.TensorShape(tensor_info.tensor_shape),
    )
    dtype_error = tensor.dtype != want_dtype
    shape_error = not tensor.shape.is_compatible_with(want_shape)
    if dtype_error or shape_error:
        msg = f"Tensor shape and/or dtype validation failed for input {name}:"
        if dtype_error:
            msg += f"\n\tExpected dtype: {want_dtype}, Got: {tensor.dtype}"
        if shape_error:
            msg += f"\n\tExpected shape: {want_shape}, Got: {tensor.shape}"
        raise ValueError(msg)


def _extract_eval_metrics(output_dict: dict) -> dict:
    """`{name: (value, update)}` from `metrics/<name>/value` and `metrics/<name>/update_op`."""
    metric_ops = {}
    for key, tensor in output_dict.items():
        parts = key.split(_SEP)
        if parts[0] != _METRICS or parts[-1] != _VALUE:
            continue
        name = _SEP.join(parts[:-1])
        update = output_dict.get(name + _SEP + _UPDATE)
        if update is not None:
            metric_ops[name] = (tensor, update)
    return metric_ops


def _validate_and_extract_outputs(mode: str, output_dict: dict, method_name: str) -> tuple:
    """(loss, predictions, metrics) from a signature's outputs."""
    if mode == ModeKeys.PREDICT:
        return None, output_dict, None
    if method_name != _METHODS[mode]:
        raise RuntimeError(
            f"Invalid SignatureDef method name for mode {mode}.\n\tExpected: {_METHODS[mode]}"
            f"\n\tGot: {method_name}\nPlease ensure that the SavedModel was exported with "
            "`tf.estimator.experimental_export_all_saved_models()`."
        )
    predictions = {k: v for k, v in output_dict.items() if k.split(_SEP)[0] == _PREDICTIONS}
    return output_dict[_LOSS], predictions, _extract_eval_metrics(output_dict)
