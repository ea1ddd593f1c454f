"""The one place tfport touches TensorFlow's internals (functions appended by each user).

Importing this module does not import TensorFlow: each function imports what it needs.

Example:
    >>> from tfport._common import tf_internals
    >>> callable(tf_internals.saved_model_loader)
    True
"""

from __future__ import annotations

import importlib
from typing import Any


def _loader_impl() -> Any:
    from tfport._common.tfenv import import_tf

    import_tf()
    return importlib.import_module("tensorflow.python.saved_model.loader_impl")


def saved_model_loader(export_dir: str) -> Any:
    """`tensorflow.python.saved_model.loader_impl.SavedModelLoader(export_dir)`.

    The TF1 SavedModel reader behind `tf.compat.v1.saved_model.load`: meta graphs by tag
    (`get_meta_graph_def_from_tags`) and `load_graph(graph, tags, input_map,
    return_elements)` without a session (TF >= 1.11, unchanged to 2.21).
    """
    return _loader_impl().SavedModelLoader(export_dir)


def saved_model_main_op(meta_graph_def: Any) -> Any:
    """The main op (`saved_model_main_op` collection) of a meta graph imported into the
    default graph, or None: `loader_impl._get_main_op_tensor` (TF >= 1.12)."""
    return _loader_impl()._get_main_op_tensor(meta_graph_def)


def saved_model_asset_tensors(export_dir: str, meta_graph_def: Any) -> dict:
    """`{asset tensor: asset file path}` of an imported meta graph:
    `loader_impl.get_asset_tensors` (TF >= 1.12)."""
    return _loader_impl().get_asset_tensors(export_dir, meta_graph_def, import_scope=None)


def distribute_values_from_function(strategy: Any, value_fn: Any) -> Any:
    """Per-replica values made by `value_fn(value_context)` on each replica of `strategy`.

    Relies on `tf.distribute.Strategy.experimental_distribute_values_from_function` (v2
    strategies) or, for the v1 strategies the Estimator engine uses (which lack the public
    method), the private `StrategyExtended._experimental_distribute_values_from_function`.

    Example:
        >>> distribute_values_from_function(strategy, lambda ctx: x[ctx.replica_id_in_sync_group])
        ... # doctest: +SKIP
    """
    public = getattr(strategy, "experimental_distribute_values_from_function", None)
    if public is not None:
        return public(value_fn)
    return strategy.extended._experimental_distribute_values_from_function(value_fn)
