"""`export_saved_model`: a SavedModel with TF Serving signatures from a checkpoint."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import TFModule
from tfport.estimator._engine.api.spec import ModeKeys
from tfport.estimator._engine.building.context import ModeContext
from tfport.estimator._engine.running.evaluation import resolve_checkpoint

if TYPE_CHECKING:
    from tfport.estimator._engine.api.receivers import (
        ServingInputReceiver,
        SupervisedInputReceiver,
        TensorServingInputReceiver,
    )

_TAGS = {ModeKeys.PREDICT: ["serve"], ModeKeys.TRAIN: ["train"], ModeKeys.EVAL: ["eval"]}


def export_all(
    self: Any,
    export_dir_base: str,
    receiver_fn_map: dict,
    assets_extra: dict | None = None,
    as_text: bool = False,
    checkpoint_path: str | None = None,
    strip_default_attrs: bool = True,
) -> bytes:
    """One SavedModel with a meta graph per mode (TRAIN, EVAL, PREDICT order, as legacy).

    Each meta graph comes from `self._add_meta_graph_for_mode` (legacy's call, which
    subclasses may override); the first saves the variables.

    Example:
        >>> export_all(est, "export", {"infer": receiver_fn})  # doctest: +SKIP
    """
    tf = import_tf()
    if not isinstance(receiver_fn_map, dict) or not receiver_fn_map:
        raise TfportInputError(
            message(
                "input_receiver_fn_map must be a non-empty dict {ModeKeys: receiver_fn}",
                "Pass e.g. {tf.estimator.ModeKeys.PREDICT: serving_input_receiver_fn}",
                input_receiver_fn_map=receiver_fn_map,
            )
        )
    unknown = sorted(str(k) for k in receiver_fn_map if k not in _TAGS)
    if unknown:
        raise TfportInputError(
            message(
                "input_receiver_fn_map keys must be ModeKeys",
                f"Use {sorted(_TAGS)}",
                unknown_keys=unknown,
            )
        )
    for fn in receiver_fn_map.values():
        if not callable(fn):
            raise TfportInputError(
                message(
                    "serving_input_receiver_fn must be callable",
                    "Pass e.g. build_parsing_serving_input_receiver_fn(spec)",
                    serving_input_receiver_fn=fn,
                )
            )
    model_dir = self.model_dir
    checkpoint_path = resolve_checkpoint(model_dir, checkpoint_path, "export")
    if not checkpoint_path:
        raise TfportInputError(
            message(
                f"Couldn't find trained model at {model_dir}",
                "Train the Estimator first or pass checkpoint_path",
                model_dir=model_dir,
            )
        )
    export_dir = tf_internals.get_timestamped_export_dir(export_dir_base)
    temp_dir = tf_internals.get_temp_export_dir(export_dir)
    builder = tf.compat.v1.saved_model.Builder(temp_dir)
    try:
        save_variables = True
        for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            if receiver_fn_map.get(mode) is None:
                continue
            self._add_meta_graph_for_mode(
                builder,
                receiver_fn_map,
                checkpoint_path,
                save_variables,
                mode=mode,
                strip_default_attrs=strip_default_attrs,
            )
            save_variables = False
        builder.save(as_text)
        _copy_assets_extra(tf, temp_dir, assets_extra)
        tf.io.gfile.rename(temp_dir, export_dir)
    except BaseException:
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise
    return export_dir


def add_meta_graph_for_mode(
    self: Any,
    builder: object,
    input_receiver_fn_map: dict,
    checkpoint_path: str,
    save_variables: bool = True,
    mode: str = ModeKeys.PREDICT,
    export_tags: Sequence[str] | None = None,
    check_variables: bool = True,
    strip_default_attrs: bool = True,
) -> None:
    """`Estimator._add_meta_graph_for_mode`: adds `mode`'s meta graph to a SavedModel
    `builder`, its variables from `checkpoint_path` (with them when `save_variables`).

    Example:
        >>> est._add_meta_graph_for_mode(builder, {"infer": fn}, ckpt)  # doctest: +SKIP
    """
    if save_variables and not check_variables:
        raise ValueError("If `save_variables` is `True, `check_variables`must not be `False`.")
    _add_meta_graph(
        import_tf(),
        self._context(mode),
        builder,
        input_receiver_fn_map[mode],
        checkpoint_path,
        save_variables,
        strip_default_attrs,
        tags=export_tags,
        restore=check_variables,
    )


def _add_meta_graph(
    tf: TFModule,
    ctx: ModeContext,
    builder: Any,
    receiver_fn: Callable[
        [], ServingInputReceiver | TensorServingInputReceiver | SupervisedInputReceiver
    ],
    checkpoint_path: str,
    save_variables: bool = True,
    strip_default_attrs: bool = True,
    tags: Sequence[str] | None = None,
    restore: bool = True,
) -> None:
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        if ctx.config.tf_random_seed is not None:
            v1.set_random_seed(ctx.config.tf_random_seed)
        v1.train.create_global_step()
        receiver = receiver_fn()
        mode = ctx.mode
        labels = getattr(receiver, "labels", None)
        if mode != ModeKeys.PREDICT and labels is None:
            raise TfportInputError(
                message(
                    f"Exporting mode {mode!r} needs a receiver with labels",
                    "Use tf.estimator.experimental.build_raw_supervised_input_receiver_fn",
                    receiver=type(receiver).__name__,
                )
            )
        spec = ctx.call_model_fn(receiver.features, labels)
        metrics = spec.eval_metric_ops if mode == ModeKeys.EVAL else None
        outputs = tf_internals.export_outputs_for_mode(
            mode=mode,
            serving_export_outputs=spec.export_outputs,
            predictions=spec.predictions,
            loss=spec.loss,
            metrics=metrics,
        )
        signatures = tf_internals.build_all_signature_defs(
            receiver.receiver_tensors,
            outputs,
            getattr(receiver, "receiver_tensors_alternatives", None),
            serving_only=(mode == ModeKeys.PREDICT),
        )
        with v1.Session(config=ctx.config.session_config) as session:
            local_init = spec.scaffold.local_init_op or v1.train.Scaffold.default_local_init_op()
            saver = spec.scaffold.saver or v1.train.Saver(sharded=True)
            if restore:
                saver.restore(session, checkpoint_path)
            if mode == ModeKeys.TRAIN and spec.train_op is not None:
                tf_internals.add_train_op(builder, spec.train_op)  # the legacy exporter's own call
            kwargs = {
                "signature_def_map": signatures,
                "assets_collection": v1.get_collection(v1.GraphKeys.ASSET_FILEPATHS),
                "main_op": local_init,
                "saver": saver,
                "strip_default_attrs": strip_default_attrs,
            }
            tags = _TAGS[mode] if tags is None else tags
            if save_variables:
                builder.add_meta_graph_and_variables(session, tags, **kwargs)
            else:
                builder.add_meta_graph(tags, **kwargs)


def _copy_assets_extra(tf: TFModule, export_dir: bytes, assets_extra: dict | None) -> None:
    if not assets_extra:
        return
    base = os.path.join(os.fsdecode(export_dir), "assets.extra")
    for dest_relative, source in assets_extra.items():
        dest = os.path.join(base, dest_relative)
        tf.io.gfile.makedirs(os.path.dirname(dest))
        tf.io.gfile.copy(source, dest, overwrite=True)


def export_estimator_savedmodel(
    estimator: Any,
    export_dir_base: Any,
    serving_input_receiver_fn: Any,
    assets_extra: Any = None,
    as_text: bool = False,
    checkpoint_path: Any = None,
) -> Any:
    """Exports `estimator`'s model for serving (legacy `tpu_estimator.export_...`).

    Example:
        >>> export_estimator_savedmodel(est, "export", serving_fn)  # doctest: +SKIP
    """
    return estimator.export_saved_model(
        export_dir_base,
        serving_input_receiver_fn,
        assets_extra=assets_extra,
        as_text=as_text,
        checkpoint_path=checkpoint_path,
    )
