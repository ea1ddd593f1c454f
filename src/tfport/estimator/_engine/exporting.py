"""`export_saved_model`: a SavedModel with TF Serving signatures from a checkpoint."""

from __future__ import annotations

import os
import shutil
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport.estimator._engine.context import ModeContext
from tfport.estimator._engine.evaluation import resolve_checkpoint
from tfport.estimator._engine.spec import ModeKeys

_TAGS = {ModeKeys.PREDICT: ["serve"], ModeKeys.TRAIN: ["train"], ModeKeys.EVAL: ["eval"]}


def export_saved_model(
    ctx: ModeContext,
    export_dir_base: str,
    serving_input_receiver_fn: Any,
    assets_extra: dict | None = None,
    as_text: bool = False,
    checkpoint_path: Any = None,
) -> bytes:
    """Exports the model of `ctx.mode` at a checkpoint; returns the export folder (bytes).

    Example:
        >>> export_saved_model(ctx, "export", receiver_fn)  # doctest: +SKIP
    """
    tf = import_tf()
    from tensorflow.python.saved_model.model_utils import export_utils

    if not callable(serving_input_receiver_fn):
        raise TfportInputError(
            message(
                "serving_input_receiver_fn must be callable",
                "Pass e.g. build_parsing_serving_input_receiver_fn(spec)",
                serving_input_receiver_fn=serving_input_receiver_fn,
            )
        )
    checkpoint_path = resolve_checkpoint(ctx.model_dir, checkpoint_path, "export")
    if not checkpoint_path:
        raise TfportInputError(
            message(
                f"Couldn't find trained model at {ctx.model_dir}",
                "Train the Estimator first or pass checkpoint_path",
                model_dir=ctx.model_dir,
            )
        )
    export_dir = export_utils.get_timestamped_export_dir(export_dir_base)
    temp_dir = export_utils.get_temp_export_dir(export_dir)
    builder = tf.compat.v1.saved_model.Builder(temp_dir)
    try:
        _add_meta_graph(tf, ctx, builder, serving_input_receiver_fn, checkpoint_path)
        builder.save(as_text)
        _copy_assets_extra(tf, temp_dir, assets_extra)
        tf.io.gfile.rename(temp_dir, export_dir)
    except BaseException:
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise
    return export_dir


def _add_meta_graph(
    tf: Any, ctx: ModeContext, builder: Any, receiver_fn: Any, checkpoint_path: str
) -> None:
    from tensorflow.python.saved_model.model_utils import export_utils

    v1 = tf.compat.v1
    with tf.Graph().as_default():
        if ctx.config.tf_random_seed is not None:
            v1.set_random_seed(ctx.config.tf_random_seed)
        v1.train.create_global_step()
        receiver = receiver_fn()
        mode = ctx.mode
        spec = ctx.call_model_fn(receiver.features, getattr(receiver, "labels", None))
        outputs = export_utils.export_outputs_for_mode(
            mode=mode,
            serving_export_outputs=spec.export_outputs,
            predictions=spec.predictions,
            loss=spec.loss,
            metrics=None,
        )
        signatures = export_utils.build_all_signature_defs(
            receiver.receiver_tensors,
            outputs,
            getattr(receiver, "receiver_tensors_alternatives", None),
            serving_only=(mode == ModeKeys.PREDICT),
        )
        with v1.Session(config=ctx.config.session_config) as session:
            local_init = spec.scaffold.local_init_op or v1.train.Scaffold.default_local_init_op()
            saver = spec.scaffold.saver or v1.train.Saver(sharded=True)
            saver.restore(session, checkpoint_path)
            builder.add_meta_graph_and_variables(
                session,
                _TAGS[mode],
                signature_def_map=signatures,
                assets_collection=v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS),
                main_op=local_init,
                saver=saver,
                strip_default_attrs=True,
            )


def _copy_assets_extra(tf: Any, export_dir: bytes, assets_extra: dict | None) -> None:
    if not assets_extra:
        return
    base = os.path.join(os.fsdecode(export_dir), "assets.extra")
    for dest_relative, source in assets_extra.items():
        dest = os.path.join(base, dest_relative)
        tf.io.gfile.makedirs(os.path.dirname(dest))
        tf.io.gfile.copy(source, dest, overwrite=True)
