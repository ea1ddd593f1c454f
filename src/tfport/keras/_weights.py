"""`load_estimator_weights`: an Estimator's trained weights back into a Keras 2 or 3 model."""

from __future__ import annotations

import os
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import KerasModel, TFModule

_OBJECT_GRAPH = "_CHECKPOINTABLE_OBJECT_GRAPH"


def load_estimator_weights(keras_model: KerasModel, model_dir: str) -> str:
    """Loads the latest checkpoint of `model_dir` (or a checkpoint prefix) into `keras_model`.

    Works with the object-based (`checkpoint_format="checkpoint"`) and
    name-based (`"saver"`) checkpoints `model_to_estimator` writes, for tf_keras
    and Keras 3 models of the same architecture. Optimizer state is not loaded.

    Args:
        keras_model: the (built) Keras model the Estimator was made from, or a twin.
        model_dir: the Estimator's model_dir, or a checkpoint prefix.

    Returns:
        The checkpoint prefix that was loaded.

    Example:
        >>> load_estimator_weights(model, est.model_dir)  # doctest: +SKIP
        '/tmp/m/model.ckpt-40'
    """
    tf = import_tf()
    prefix = _resolve(tf, os.fspath(model_dir))
    reader = tf.train.load_checkpoint(prefix)
    have = reader.get_variable_to_shape_map()
    targets = _targets(keras_model, _OBJECT_GRAPH in have)
    missing = [key for key, _ in targets if key not in have]
    if missing:
        raise TfportInputError(
            message(
                f"Checkpoint {prefix} lacks {len(missing)} weight(s) of the Keras model "
                f"{getattr(keras_model, 'name', '')}",
                "Pass the model the Estimator was made from (same layers, same order) and "
                "its model_dir",
                missing=missing[:5],
                checkpoint_keys=sorted(have)[:8],
            )
        )
    bad = [
        f"{key} {list(have[key])} vs {list(var.shape)}"
        for key, var in targets
        if list(have[key]) != list(var.shape)
    ]
    if bad:
        raise TfportInputError(
            message(
                f"Checkpoint {prefix} has weights of other shapes than the Keras model",
                "Pass the model the Estimator was made from",
                mismatched=bad[:5],
            )
        )
    for key, var in targets:
        var.assign(reader.get_tensor(key))
    return prefix


def _resolve(tf: TFModule, path: str) -> str:
    if tf.io.gfile.isdir(path):
        latest = tf.train.latest_checkpoint(path)
        if not latest:
            raise TfportInputError(
                message(
                    f"{path} holds no checkpoint",
                    "Train the Estimator first, or pass a checkpoint prefix",
                    model_dir=path,
                )
            )
        return latest
    if not tf.io.gfile.exists(path + ".index"):
        raise TfportInputError(
            message(
                f"{path} is neither a model_dir nor a checkpoint prefix",
                "Pass the Estimator's model_dir",
                model_dir=path,
            )
        )
    return path


def _targets(model: KerasModel, object_based: bool) -> list[tuple[str, Any]]:
    """(checkpoint key, model variable) for every weight of the model."""
    from tfport.keras import _keras3, _tfkeras

    if _keras3.is_keras3_model(model):
        from tfport.keras._keras3_layout import layout

        return [(s.object_key if object_based else s.graph_name, s.variable) for s in layout(model)]
    if _tfkeras.is_tf_keras_model(model):
        _tfkeras.restore_eager_classes(model)
        return _tf_keras_targets(model, object_based)
    raise TfportInputError(
        message(
            "keras_model must be a tf_keras or Keras 3 model",
            "Pass a Keras model",
            keras_model=type(model).__name__,
        )
    )


def _tf_keras_targets(model: KerasModel, object_based: bool) -> list[tuple[str, Any]]:
    if not object_based:
        return [(v.name.split(":")[0], v) for v in model.weights]
    keys = _paths(tf_internals.object_graph_view(model))

    out = []
    for var in model.weights:
        path = keys.get(id(var))
        if path is None:
            raise TfportInputError(
                message(
                    f"Weight {var.name} is not reachable in the model's object graph",
                    "Use checkpoint_format='saver'",
                    weight=var.name,
                )
            )
        out.append(("/".join(path) + "/.ATTRIBUTES/VARIABLE_VALUE", var))
    return out


def _paths(view: Any) -> dict[int, tuple[str, ...]]:
    """Breadth-first shortest object path of every trackable (as checkpoints name them)."""
    from collections import deque

    root = view.root
    paths: dict[int, tuple[str, ...]] = {id(root): ()}
    queue = deque([root])
    while queue:
        node = queue.popleft()
        for ref in view.list_children(node):
            child = ref.ref
            if id(child) not in paths:
                paths[id(child)] = (*paths[id(node)], _escape(ref.name))
                queue.append(child)
    return paths


def _escape(name: str) -> str:
    return name.replace(".", "..").replace("/", ".S")
