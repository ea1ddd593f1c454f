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

from collections.abc import Iterable
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import InputFn
from tfport.estimator._engine.building import builder, graphs
from tfport.estimator._engine.building.context import ModeContext

tf = import_tf()
_SaveableObject: Any = tf_internals.saveable_object_class()


def aligned_var_list(ctx: ModeContext, input_fn: InputFn, checkpoint: str) -> dict | None:
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
        theirs = _joined_partition_slots(graphs.saver_names(v1))
    if len(theirs) != len(ours):
        return None
    var_list: dict = {}
    for (name, shape), (_, var, our_shape) in zip(theirs, ours):
        if shape != our_shape or isinstance(var, (list, tuple)):
            return None
        if isinstance(name, list):
            var_list[name[0][0]] = _sliced_saveable(var, name)
        else:
            var_list.update(_renamed(var, name))
    return var_list


def _joined_partition_slots(entries: list) -> list:
    """Per-partition slot entries (`w/part_0/Adagrad`, `w/part_1/Adagrad`) joined into one.

    Returns `(name or [(key, slice spec, first row, rows)], full shape)` pairs in creation
    order: a strategy drops the partitioner, so its variable `w` has one full-shape slot,
    which the single-device checkpoint holds as row slices under the partitions' keys.
    """
    import re

    pattern = re.compile(r"^(.*)/part_\d+/([^/].*)$")
    joined: dict = {}
    out: list = []
    for name, var, shape in entries:
        match = pattern.match(name)
        infos = [tf_internals.save_slice_info(v) for v in var] if isinstance(var, list) else []
        if match is None or not infos or None in infos or not shape:
            out.append((name, shape))
            continue
        key = (match.group(1), match.group(2))
        if key not in joined:
            joined[key] = ([], shape)
            out.append(joined[key])
        joined[key][0].extend((name, i.spec, i.var_offset[0], i.var_shape[0]) for i in infos)
    return [
        (sorted(item[0], key=lambda part: part[2]), item[1]) if isinstance(item[0], list) else item
        for item in out
    ]


def _sliced_saveable(var: object, parts: list) -> Any:
    """A SaveableObject reading and writing `var`'s row slices under the partitions' keys."""
    return _JoinedSaveable(var, parts)


class _JoinedSaveable(_SaveableObject):
    """`var` saved as the row slices `parts` (`(key, slice spec, first row, rows)`)."""

    def __init__(self, var: Any, parts: list) -> None:
        tf = import_tf()
        specs = []
        for name, spec, begin, rows in parts:

            def tensor(begin: int = begin, rows: int = rows) -> Any:
                return tf.convert_to_tensor(var)[begin : begin + rows]

            specs.append(
                tf_internals.save_spec_class()(
                    tensor, spec, name, dtype=var.dtype, device=var.device
                )
            )
        super().__init__(var, specs, parts[0][0])
        self._var = var

    def restore(self, restored_tensors: Iterable[object], restored_shapes: object) -> Any:
        del restored_shapes
        return self._var.assign(import_tf().concat(list(restored_tensors), axis=0))


def _renamed(var: object, name: str) -> dict:
    """`{name: saveable}` saving `var` under `name` (every replica of a distributed one)."""
    if not tf_internals.is_distributed_values(var):
        return {name: var}
    # A dict entry would restore only the primary copy; the trackable's own saveables
    # restore every replica.
    return tf_internals.distributed_saveables(var, name)
