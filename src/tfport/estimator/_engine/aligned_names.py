"""Checkpoint names that do not depend on the strategy.

Under a distribution strategy TensorFlow drops variable partitioners and names the
slots of distributed variables differently (a v1 canned DNN's
`dnn/hiddenlayer_0/kernel/t_0/Adagrad` becomes `dnn/dnn/hiddenlayer_0/kernel/Adagrad`),
so a checkpoint written on one device would not restore on many. When the names
differ, the single-device graph of the same mode is built aside, its Saver names are
matched to the distributed graph's variables by creation order and shape, and the
Saver reads and writes the single-device names: checkpoints move freely between
one device and many.
"""

from __future__ import annotations

from typing import Any

from tfport._common.tfenv import import_tf
from tfport.estimator._engine import builder, graphs
from tfport.estimator._engine.context import ModeContext


def aligned_var_list(ctx: ModeContext, input_fn: Any, checkpoint: str) -> dict | None:
    """A `{single-device name: variable}` Saver var_list, or None when names already match.

    Call it inside the distributed graph. Returns None too when the two graphs cannot be
    matched one to one (then the usual missing-variable error explains the checkpoint).

    Example:
        >>> var_list = aligned_var_list(ctx, input_fn, latest)  # doctest: +SKIP
    """
    tf = import_tf()
    v1 = tf.compat.v1
    have = dict(tf.train.list_variables(checkpoint))
    ours = graphs.saver_names(v1)
    if all(name in have for name, _, _ in ours):
        return None
    single = builder.build(ctx.single_device(), input_fn)
    with single.graph.as_default():
        theirs = [(name, shape) for name, _, shape in graphs.saver_names(v1)]
    if len(theirs) != len(ours):
        return None
    var_list: dict = {}
    for (name, shape), (_, var, our_shape) in zip(theirs, ours):
        if shape != our_shape or isinstance(var, (list, tuple)):
            return None
        var_list.update(_renamed(var, name))
    return var_list


def _renamed(var: Any, name: str) -> dict:
    """`{name: saveable}` saving `var` under `name` (every replica of a distributed one)."""
    from tensorflow.python.distribute import values as ds_values
    from tensorflow.python.trackable import base as trackable
    from tensorflow.python.training.saving import saveable_object_util

    if not isinstance(var, ds_values.DistributedValues):
        return {name: var}
    # A dict entry would restore only the primary copy; the trackable's own saveables
    # restore every replica.
    out = {}
    factories = saveable_object_util.saveable_objects_from_trackable(var, tf1_saver=True)
    for attr, factory in factories.items():
        full = name if attr == trackable.VARIABLE_VALUE_KEY else f"{name}_{attr}"
        out[full] = factory(name=full) if callable(factory) else factory
    return out
