"""Checks and helpers around a mode's graph: checkpoint coverage, saver names, warm start."""

from __future__ import annotations

import errno
import os
import tempfile
from typing import TYPE_CHECKING, Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, TfportOperationError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import TFModule

if TYPE_CHECKING:
    from tfport.estimator._engine.api.warm_start import WarmStartSettings

# Graph collection of training graphs: the global step read once the step's train op has
# run. A hook fetching it in the training run gets the step after that run without racing
# the increment (the variable itself, fetched beside the train op, may read either side).
STEP_AFTER_TRAIN_KEY = "tfport_global_step_after_train_op"
# Graph collection: the init ops of the writer tfport makes for the model_fn's TF2 summaries
# (`model_summaries`); the host_call hook leaves them to that module's hook.
MODEL_SUMMARY_INITS_KEY = "tfport_model_summary_writer_inits"


def global_step_in_dir(model_dir: str) -> int:
    """Returns the global step of the latest checkpoint in `model_dir` (0 if none).

    Example:
        >>> global_step_in_dir("/nonexistent")
        0
    """
    tf = import_tf()
    latest = tf.train.latest_checkpoint(model_dir)
    if not latest:
        return 0
    try:
        return int(tf.train.load_variable(latest, "global_step"))
    except (tf.errors.NotFoundError, ValueError):
        name = os.path.basename(latest)
        return int(name.rsplit("-", 1)[-1]) if "-" in name else 0


def ensure_writable_dir(model_dir: str) -> None:
    """Creates `model_dir` if needed and checks it is writable, with a clear error.

    Example:
        >>> ensure_writable_dir(tempfile.mkdtemp())
    """
    try:
        os.makedirs(model_dir, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=model_dir, prefix=".tfport-probe-"):
            pass
    except OSError as err:
        # A wrong path is bad input (2); a read-only, full or forbidden one is the
        # environment's (1), as the contract says.
        bad_path = err.errno in (errno.ENOENT, errno.ENOTDIR, errno.EEXIST, errno.ENAMETOOLONG)
        error = TfportInputError if bad_path else TfportOperationError
        raise error(
            message(
                f"model_dir {model_dir} is not writable ({err.strerror})",
                "Pass a model_dir you can write to (RunConfig(model_dir=...))",
                model_dir=model_dir,
                errno=errno.errorcode.get(err.errno or 0, err.errno),
            )
        ) from None


def maybe_warm_start(settings: WarmStartSettings | None) -> None:
    """Applies WarmStartSettings (or None: nothing) in the current graph.

    Example:
        >>> maybe_warm_start(None)
    """
    if settings is None:
        return
    tf = import_tf()
    ckpt = settings.ckpt_to_initialize_from
    if tf.io.gfile.isdir(ckpt):
        ckpt = tf.train.latest_checkpoint(ckpt) or ckpt
    tf.compat.v1.train.warm_start(
        ckpt_to_initialize_from=ckpt,
        vars_to_warm_start=settings.vars_to_warm_start,
        var_name_to_vocab_info=settings.var_name_to_vocab_info,
        var_name_to_prev_var_name=settings.var_name_to_prev_var_name,
    )


def check_checkpoint_covers_graph(checkpoint_path: str, var_list: dict | None = None) -> None:
    """Raises a clear error when the checkpoint lacks variables of the current graph.

    Example:
        >>> check_checkpoint_covers_graph("/m/model.ckpt-40")  # doctest: +SKIP
    """
    tf = import_tf()
    have = dict(tf.train.list_variables(checkpoint_path))
    if "_CHECKPOINTABLE_OBJECT_GRAPH" in have:
        return  # object-based keys: the object-graph Saver reports missing keys itself
    if var_list is None:  # the Saver's own names ("part_N" pieces under their full name)
        entries = [(name, shape) for name, _, shape in saver_names(tf.compat.v1)]
    else:
        entries = [(name, _static_shape(var)) for name, var in var_list.items()]
    missing, mismatched = [], []
    for name, shape in entries:
        if name not in have:
            missing.append(name)
        elif shape is not None and list(have[name]) != shape:
            mismatched.append(f"{name} {have[name]} vs {shape}")
    if missing or mismatched:
        raise TfportInputError(
            message(
                f"Checkpoint {checkpoint_path} does not match the model_fn's graph: "
                f"{len(missing)} variable(s) missing, {len(mismatched)} of another shape",
                "Use the model_dir the model was trained in, or port the checkpoint with "
                "`tfport ckpt` / WarmStartSettings(var_name_to_prev_var_name=...)",
                missing=missing[:10],
                mismatched=mismatched[:10],
            )
        )


def _static_shape(var: Any) -> list | None:
    shape = getattr(var, "shape", None)  # SaveableObjects have none
    return shape.as_list() if shape is not None and shape.rank is not None else None


def saver_names(v1: TFModule) -> list[tuple[str, Any, list | None]]:
    """`(checkpoint name, variable or parts, full shape)` of the current graph, in creation order.

    Example:
        >>> saver_names(tf.compat.v1)  # doctest: +SKIP
        [('global_step', <tf.Variable ...>, [])]
    """

    entries: dict[str, list] = {}
    for var in v1.global_variables():
        info = tf_internals.save_slice_info(var)
        if info is not None:
            entry = entries.setdefault(info.full_name, [[], list(info.full_shape)])
            entry[0].append(var)
            continue
        entries[tf_internals.saver_key(var)] = [var, _static_shape(var)]
    return [(name, var, shape) for name, (var, shape) in entries.items()]
