"""TensorFlow internals of variables and variable scopes.

Partitioned variables' parts, the v1 `get_variable` and variable-scope stores, and plain
resource variables made outside a strategy's creator scopes.

Example:
    >>> from tfport._common.tf_internals import variables
    >>> ("ops.variable_scope", "_VariableStore") in variables.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("ops.resource_variable_ops", "ResourceVariable"),
    ("ops.variable_scope", "with_variable_store"),
    ("ops.variable_scope", "_VariableStore"),
    ("ops.variable_scope", "_VariableScopeStore"),
    ("ops.variable_scope", "_VARSCOPESTORE_KEY"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("ops.variables", "Variable", "_save_slice_info"),
    ("ops.variables", "PartitionedVariable", "_get_variable_list"),
)


def save_slice_info(var: Any) -> Any:
    """A partitioned variable part's `_save_slice_info` (full name, shape), else None.

    Set on every part of a `PartitionedVariable` since TF 1.x.
    """
    return getattr(var, "_save_slice_info", None)


def is_partitioned_variable(value: Any) -> bool:
    """True for a v1 `PartitionedVariable` (it has `_get_variable_list` since TF 1.x)."""
    return hasattr(value, "_get_variable_list")


@contextlib.contextmanager
def fresh_v1_variable_store() -> Iterator[None]:
    """New, empty `get_variable` and variable-scope stores in the current graph for the block.

    Relies on `ops.variable_scope.with_variable_store`, `_VariableStore`,
    `_VariableScopeStore` and `_VARSCOPESTORE_KEY` (TF 2.0 - 2.21). TF2 function graphs
    otherwise share both: a `get_variable` name met in an earlier function (of any object)
    is "already exists", and default scope names (optimizer slots: `w/Adam`) get a suffix.
    """
    import tensorflow as tf

    with_variable_store = tf_symbol("ops.variable_scope", "with_variable_store")
    scopes = tf.compat.v1.get_collection_ref(tf_symbol("ops.variable_scope", "_VARSCOPESTORE_KEY"))
    old_scopes = list(scopes)
    scopes[:] = [tf_symbol("ops.variable_scope", "_VariableScopeStore")()]
    try:
        with with_variable_store(tf_symbol("ops.variable_scope", "_VariableStore")()):
            yield
    finally:
        scopes[:] = old_scopes


def local_buffer_variable(shape: list, dtype: Any, name: str) -> Any:
    """A zero-filled local resource variable on the CPU, outside any loop or strategy.

    Relies on `resource_variable_ops.ResourceVariable` being constructed directly (not
    through `tf.Variable`), which bypasses the variable-creator scopes a distribution
    strategy installs, so the buffer is one plain variable, not one per replica, and on
    `ops.init_scope` lifting it out of any `while_loop` body.
    """
    import tensorflow as tf

    resource_variable = tf_symbol("ops.resource_variable_ops", "ResourceVariable")
    with tf.init_scope(), tf.device("/cpu:0"):
        return resource_variable(
            tf.zeros(shape, dtype),
            trainable=False,
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES],
            name=name,
        )
