"""TensorFlow internals of TPUs.

The TPU computation builders (sharding, on-device loops, infeed) that build in any graph
and run on a TPU host, the TPU system and cluster, the cross-shard optimizer, and TF's TPU
embedding columns.

Example:
    >>> from tfport._common.tf_internals import tpu
    >>> ("tpu.tpu", "split_compile_and_shard") in tpu.SYMBOLS
    True
"""

from __future__ import annotations

from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("tpu.tpu_function", "get_tpu_context"),
    ("tpu.tpu_function", "on_device_training_loop"),
    ("tpu.tpu_optimizer", "CrossShardOptimizer"),
    ("tpu.tpu_feed", "InfeedQueue"),
    ("tpu.tpu", "split_compile_and_shard"),
    ("tpu.tpu", "prune_unconnected_ops_from_xla"),
    ("tpu.training_loop", "while_loop"),
    ("tpu.training_loop", "repeat"),
    ("tpu.tpu_replication", "_TPU_REPLICATE_ATTR"),
    ("tpu.tpu_system_metadata", "_query_tpu_system_metadata"),
    ("tpu.tpu_system_metadata", "master_job"),
    ("distribute.cluster_resolver.tpu.tpu_cluster_resolver", "is_running_in_gce"),
    ("tpu.feature_column", "_TPUEmbeddingColumn"),
    ("tpu.feature_column", "_TPUSharedEmbeddingColumn"),
    ("tpu.feature_column", "_TPU_FC_TO_SCOPE"),
    ("tpu.feature_column_v2", "_TPUEmbeddingColumnV2"),
    ("tpu.feature_column_v2", "_TPUSharedEmbeddingColumnV2"),
    ("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2"),
    ("tpu.feature_column_v2", "_TPUSharedDeviceSpecificEmbeddingColumnV2"),
    ("tpu.feature_column_v2", "pad_sparse_embedding_lookup_indices"),
    ("tpu.feature_column_v2", "_TENSOR_CORE_MASK_KEY_SUFFIX"),
)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2", "_tensor_core_shape"),
    ("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2", "_embedding_lookup_device"),
    (
        "distribute.cluster_resolver.tpu.tpu_cluster_resolver",
        "TPUClusterResolver",
        "_cloud_tpu_client",
    ),
)

# --- TPU computations: built anywhere, run on a TPU host --------------------------------


def tpu_shard_count() -> int | None:
    """The shard count of the TPU function being built (`tpu_function`), None outside one."""
    return tf_symbol("tpu.tpu_function", "get_tpu_context")().number_of_shards


def tpu_split_compile_and_shard() -> Any:
    """`tpu.tpu.split_compile_and_shard` (TF >= 1.13): `(compile op, per-shard outputs)` of a
    replicated TPU computation; building it in a graph needs no TPU, running it does."""
    return tf_symbol("tpu.tpu", "split_compile_and_shard")


def tpu_prune_unconnected_ops_from_xla() -> Any:
    """`tpu.tpu.prune_unconnected_ops_from_xla(graph)` (TF >= 1.14): drops the ops of a TPU
    rewrite that feed none of its outputs."""
    return tf_symbol("tpu.tpu", "prune_unconnected_ops_from_xla")


def tpu_while_loop() -> Any:
    """`tpu.training_loop.while_loop(condition, body, inputs, ...)` (TF >= 1.x): a TPU
    computation's on-device while loop.

    Example:
        >>> tpu_while_loop().__name__
        'while_loop'
    """
    return tf_symbol("tpu.training_loop", "while_loop")


def tpu_repeat() -> Any:
    """`tpu.training_loop.repeat(n, body, inputs)` (TF >= 1.x): a TPU computation's
    on-device loop of `n` iterations.

    Example:
        >>> tpu_repeat().__name__
        'repeat'
    """
    return tf_symbol("tpu.training_loop", "repeat")


def tpu_on_device_training_loop() -> Any:
    """`tpu.tpu_function.on_device_training_loop` (TF >= 1.x): marks a TPU computation as
    holding its own training loop (a decorator)."""
    return tf_symbol("tpu.tpu_function", "on_device_training_loop")


def tpu_replicate_attr() -> str:
    """`tpu_replication._TPU_REPLICATE_ATTR` (TF >= 1.x): the node attribute marking the ops
    of a TPU computation (`_tpu_replicate`)."""
    return tf_symbol("tpu.tpu_replication", "_TPU_REPLICATE_ATTR")


def infeed_queue_class() -> Any:
    """TF's `tpu.tpu_feed.InfeedQueue` (TF >= 1.x): builds a TPU host's `InfeedEnqueueTuple`
    ops (`generate_enqueue_ops`, `split_inputs_and_generate_enqueue_ops`); building them
    needs no TPU, running them does."""
    return tf_symbol("tpu.tpu_feed", "InfeedQueue")


def cross_shard_optimizer_class() -> Any:
    """`tensorflow.python.tpu.tpu_optimizer.CrossShardOptimizer` (TF >= 1.x)."""
    return tf_symbol("tpu.tpu_optimizer", "CrossShardOptimizer")


# --- the TPU system and its cluster -----------------------------------------------------


def query_tpu_system_metadata(master: Any, cluster_def: Any, query_topology: bool) -> Any:
    """`tpu_system_metadata._query_tpu_system_metadata` (TF >= 1.x): the TPU system at
    `master` (cores, hosts, cores per host, topology, devices; no cores without a TPU)."""
    query = tf_symbol("tpu.tpu_system_metadata", "_query_tpu_system_metadata")
    return query(master, cluster_def=cluster_def, query_topology=query_topology)


def tpu_master_job(master: Any, cluster_def: Any) -> Any:
    """`tpu_system_metadata.master_job` (TF >= 1.x): the TPU job name of `master` (None for a
    local master; ValueError where it cannot be inferred)."""
    return tf_symbol("tpu.tpu_system_metadata", "master_job")(master, cluster_def)


def is_running_in_gce() -> bool:
    """`tpu_cluster_resolver.is_running_in_gce()` (TF >= 2.x; True in open-source builds)."""
    return tf_symbol("distribute.cluster_resolver.tpu.tpu_cluster_resolver", "is_running_in_gce")()


def cloud_tpu_client(resolver: Any) -> Any:
    """A `TPUClusterResolver`'s Cloud TPU client (`_cloud_tpu_client`, TF >= 2.2): the local
    stand-in answers `api_available()` False."""
    return resolver._cloud_tpu_client


# --- TPU embedding columns --------------------------------------------------------------


def tpu_embedding_column_classes() -> tuple:
    """TF's TPU embedding column classes (v1 and v2, single and shared; `tpu.feature_column*`,
    TF >= 1.14), () where a build leaves them out.

    Example:
        >>> len(tpu_embedding_column_classes())
        4
    """
    try:
        return (
            tf_symbol("tpu.feature_column", "_TPUEmbeddingColumn"),
            tf_symbol("tpu.feature_column", "_TPUSharedEmbeddingColumn"),
            tf_symbol("tpu.feature_column_v2", "_TPUEmbeddingColumnV2"),
            tf_symbol("tpu.feature_column_v2", "_TPUSharedEmbeddingColumnV2"),
        )
    except ImportError:  # pragma: no cover - TensorFlow without its TPU columns
        return ()


def tpu_device_specific_embedding_column_classes() -> tuple:
    """TF's device-specific TPU embedding columns (`tpu.feature_column_v2`'s
    `_TPUDeviceSpecificEmbeddingColumnV2` and its shared form; TF >= 2.4)."""
    return (
        tf_symbol("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2"),
        tf_symbol("tpu.feature_column_v2", "_TPUSharedDeviceSpecificEmbeddingColumnV2"),
    )


def tpu_column_scope_collection() -> str:
    """The graph collection where TF's TPU embedding columns record `{embedding var name:
    (variable scope, variable name)}` when built for a TPU (`tpu.feature_column`)."""
    return tf_symbol("tpu.feature_column", "_TPU_FC_TO_SCOPE")


def tensor_core_padding(column: Any, sparse: Any) -> tuple[Any, Any, str, int]:
    """(padded ids, mask, mask key suffix, padded size) of a tensor-core TPU embedding
    column's sparse ids: `feature_column_v2.pad_sparse_embedding_lookup_indices` to its
    `_tensor_core_shape[1]` (TF >= 2.4)."""
    pad = tf_symbol("tpu.feature_column_v2", "pad_sparse_embedding_lookup_indices")
    size = column._tensor_core_shape[1]
    values, mask = pad(sparse, size)
    return values, mask, tf_symbol("tpu.feature_column_v2", "_TENSOR_CORE_MASK_KEY_SUFFIX"), size


def embedding_lookup_device(column: Any) -> Any:
    """A TPU embedding column's `_embedding_lookup_device` (TF >= 2.4), None elsewhere."""
    return getattr(column, "_embedding_lookup_device", None)
