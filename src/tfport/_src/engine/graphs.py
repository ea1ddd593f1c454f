"""Builds one mode's graph: seed, global step, input pipeline, model_fn."""

from __future__ import annotations

import dataclasses
import os
import tempfile
from typing import Any

from tfport._src.engine import calls
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf


@dataclasses.dataclass
class Built:
    """A mode's graph and what the loops need from it."""

    graph: Any
    spec: Any
    input_hooks: list
    global_step: Any
    features: Any = None
    labels: Any = None
    train_loop: Any = None
    metric_ops: Any = None
    iterations: Any = None
    distributed: bool = False


def build(est: Any, input_fn: Any, mode: str, distribute: bool = True) -> Built:
    """Builds the graph of `mode` for Estimator `est` (legacy op order).

    Args:
        distribute: False builds the single-device graph even under a strategy.

    Example:
        >>> built = build(est, input_fn, ModeKeys.TRAIN)  # doctest: +SKIP
    """
    strategy = _strategy_for(est, mode) if distribute else None
    if strategy is not None:
        from tfport._src.engine import distributed

        return distributed.build(est, input_fn, mode, strategy)
    loop = est.config.iterations_per_loop if mode == "train" else 1
    if loop > 1:
        from tfport._src.engine import loops

        return loops.build(est, input_fn, loop)
    tf = import_tf()
    graph = tf.Graph()
    with graph.as_default(), graph.device(est.config.device_fn):
        if est.config.tf_random_seed is not None:
            tf.compat.v1.set_random_seed(est.config.tf_random_seed)
        global_step = tf.compat.v1.train.create_global_step(graph)
        result = calls.call_input_fn(input_fn, mode, est.params_for_input(mode), est.config)
        features, labels, hooks = calls.parse_input_result(result, mode)
        spec = est.call_model_fn(features, labels, mode)
        global_step = tf.compat.v1.train.get_global_step(graph)
    return Built(graph, spec, hooks, global_step, features, labels)


def _strategy_for(est: Any, mode: str) -> Any:
    from tfport._src.engine.strategies import num_replicas

    config = est.config
    strategy = {"train": config.train_distribute, "eval": config.eval_distribute}.get(mode)
    if strategy is None:
        return None
    if num_replicas(strategy) == 1 and not config.cluster_spec:
        return None
    return strategy


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
        raise TfportInputError(
            message(
                f"model_dir {model_dir} is not writable ({err.strerror})",
                "Pass a model_dir you can write to (RunConfig(model_dir=...))",
                model_dir=model_dir,
            )
        ) from None


def maybe_warm_start(est: Any) -> None:
    """Applies the Estimator's WarmStartSettings in the current graph, if any.

    Example:
        >>> maybe_warm_start(est)  # doctest: +SKIP
    """
    settings = est.warm_start_settings
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


def saver_names(v1: Any) -> list[tuple[str, Any, list | None]]:
    """`(checkpoint name, variable or parts, full shape)` of the current graph, in creation order.

    Example:
        >>> saver_names(tf.compat.v1)  # doctest: +SKIP
        [('global_step', <tf.Variable ...>, [])]
    """
    from tensorflow.python.training.saving import saveable_object_util

    entries: dict[str, list] = {}
    for var in v1.global_variables():
        info = getattr(var, "_save_slice_info", None)
        if info is not None:
            entry = entries.setdefault(info.full_name, [[], list(info.full_shape)])
            entry[0].append(var)
            continue
        (name,) = saveable_object_util.op_list_to_dict([var]).keys()
        entries[name] = [var, _static_shape(var)]
    return [(name, var, shape) for name, (var, shape) in entries.items()]
