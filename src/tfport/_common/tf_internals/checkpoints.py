"""TensorFlow internals of checkpoints: v1 saveables and Saver keys, trackables and
object-based savers, `init_from_checkpoint`.

Example:
    >>> from tfport._common.tf_internals import checkpoints
    >>> ("checkpoint.checkpoint", "frozen_saver") in checkpoints.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tfport._common.tf_internals._access import tf_symbol, tf_symbol_replaced

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("training.saving.saveable_object", "SaveableObject"),
    ("training.saving.saveable_object", "SaveSpec"),
    ("training.saving.saveable_object_util", "op_list_to_dict"),
    ("training.saving.saveable_object_util", "saveable_objects_from_trackable"),
    ("trackable.base", "VARIABLE_VALUE_KEY"),
    ("trackable.autotrackable", "AutoTrackable"),
    ("training.checkpoint_utils", "_init_from_checkpoint"),
    ("checkpoint.checkpoint", "frozen_saver"),
    ("checkpoint.graph_view", "ObjectGraphView"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("training.checkpoint_utils", None, "_init_from_checkpoint"),
    ("trackable.base", "Trackable", "_track_trackable"),
    ("training.saver", "Saver", "_object_restore_saver"),
)


def saveable_object_class() -> Any:
    """`saveable_object.SaveableObject` (a v1 Saver's unit of saving; TF >= 1.x)."""
    return tf_symbol("training.saving.saveable_object", "SaveableObject")


def save_spec_class() -> Any:
    """`saveable_object.SaveSpec` (one tensor of a SaveableObject; TF >= 1.x)."""
    return tf_symbol("training.saving.saveable_object", "SaveSpec")


def saver_key(var: Any) -> str:
    """The name a v1 Saver stores `var` under (`saveable_object_util.op_list_to_dict`)."""
    op_list_to_dict = tf_symbol("training.saving.saveable_object_util", "op_list_to_dict")
    (name,) = op_list_to_dict([var]).keys()
    return name


def distributed_saveables(var: Any, name: str) -> dict:
    """`{key: saveable}` saving every replica of a distributed `var` under `name`.

    Uses `saveable_objects_from_trackable(tf1_saver=True)` (TF >= 2.11) and
    `trackable.base.VARIABLE_VALUE_KEY`.
    """
    from_trackable = tf_symbol(
        "training.saving.saveable_object_util", "saveable_objects_from_trackable"
    )
    value_key = tf_symbol("trackable.base", "VARIABLE_VALUE_KEY")
    out = {}
    factories = from_trackable(var, tf1_saver=True)
    for attr, factory in factories.items():
        full = name if attr == value_key else f"{name}_{attr}"
        out[full] = factory(name=full) if callable(factory) else factory
    return out


def auto_trackable() -> Any:
    """A new `AutoTrackable` (the plain checkpoint node; `trackable.autotrackable`, TF >= 2.9)."""
    return tf_symbol("trackable.autotrackable", "AutoTrackable")()


def auto_trackable_class() -> Any:
    """The `AutoTrackable` class itself, to subclass (`trackable.autotrackable`, TF >= 2.9)."""
    return tf_symbol("trackable.autotrackable", "AutoTrackable")


def track_child(parent: Any, child: Any, name: str) -> None:
    """Makes `child` a checkpoint dependency `name` of the trackable `parent`.

    `Trackable._track_trackable(overwrite=True)`, TF >= 2.0.
    """
    parent._track_trackable(child, name, overwrite=True)


def object_graph_view(root: Any) -> Any:
    """`graph_view.ObjectGraphView(root)`: the object graph a checkpoint saves (TF >= 2.5)."""
    return tf_symbol("checkpoint.graph_view", "ObjectGraphView")(root)


def object_based_saver(root: Any, sharded: bool = True) -> Any:
    """A v1 Saver writing `root`'s object graph, restoring object-based checkpoints too.

    Relies on `ObjectGraphView.frozen_saveable_objects`, `checkpoint.frozen_saver` and the
    Saver's `_object_restore_saver` slot (TF >= 2.5).
    """
    import tensorflow as tf

    var_list = object_graph_view(root).frozen_saveable_objects()
    saver = tf.compat.v1.train.Saver(var_list=var_list, sharded=sharded)
    saver._object_restore_saver = tf_symbol("checkpoint.checkpoint", "frozen_saver")(root)
    return saver


@contextlib.contextmanager
def init_from_checkpoint_in_init_scope() -> Iterator[None]:
    """`init_from_checkpoint` called in a function body builds its assigns outside it.

    Wraps `checkpoint_utils._init_from_checkpoint` (the function the public one calls in
    each replica, TF >= 2.0) in `init_scope`.
    """
    import tensorflow as tf

    original = tf_symbol("training.checkpoint_utils", "_init_from_checkpoint")

    def lifted(ckpt_dir_or_file: Any, assignment_map: Any) -> Any:
        with tf.init_scope():
            return original(ckpt_dir_or_file, assignment_map)

    with tf_symbol_replaced("training.checkpoint_utils", "_init_from_checkpoint", lifted):
        yield
