"""Mutable dense hash tables of legacy's `linear_optimizer` (SDCA's example-state table).

`_MutableDenseHashTable` is TensorFlow's own `tf.lookup.experimental.DenseHashTable` (the
kernel and its checkpoint saveable, `<name>-keys` / `<name>-values`) under legacy's
constructor; `_ShardedMutableDenseHashTable` spreads keys over `num_shards` of them by the
key (a vector key: its first element) modulo the number of shards, as legacy did, so
checkpoints name the shards `<name>-<i>-of-<n>-keys/-values`.

Example:
    >>> table = _ShardedMutableDenseHashTable(  # doctest: +SKIP
    ...     tf.int64, tf.float32, 0.0, empty_key=-1, deleted_key=-2, num_shards=2)
    >>> op = table.insert(tf.constant([3, 4], tf.int64), tf.constant([1.0, 2.0]))
    ... # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

tf = import_tf()
_DenseHashTable: Any = tf.lookup.experimental.DenseHashTable

__all__ = ["_MutableDenseHashTable", "_ShardedMutableDenseHashTable"]


class _MutableDenseHashTable(_DenseHashTable):
    """A mutable hash table over dense key storage (legacy's copy of the contrib table).

    Args:
        key_dtype: dtype of the keys.
        value_dtype: dtype of the values.
        default_value: the value of a key not in the table (its shape is the values').
        empty_key: a key never inserted, marking empty buckets.
        deleted_key: another such key, marking deleted buckets.
        initial_num_buckets: the initial number of buckets (None: the kernel's default).
        shared_name: must be None: TensorFlow's table takes no shared name; a
            checkpointed table is shared by its node name, as legacy's was by default.
        name: the table op's name and its checkpoint key prefix.
        checkpoint: whether the table is saved and restored with checkpoints.

    Example:
        >>> table = _MutableDenseHashTable(tf.int64, tf.float32, -1.0, 0, 1)
        ... # doctest: +SKIP
        >>> table.lookup(tf.constant([5], tf.int64))  # doctest: +SKIP
    """

    def __init__(
        self,
        key_dtype: object,
        value_dtype: object,
        default_value: Any,
        empty_key: Any,
        deleted_key: Any,
        initial_num_buckets: Any = None,
        shared_name: Any = None,
        name: str = "MutableDenseHashTable",
        checkpoint: bool = True,
    ) -> None:
        if shared_name is not None:
            raise TfportInputError(
                message(
                    "_MutableDenseHashTable cannot take a shared_name on TensorFlow 2.16+: "
                    "its DenseHashTable kernel wrapper has no such argument",
                    "Leave shared_name=None (a checkpointed table is shared by its node name)",
                    shared_name=shared_name,
                )
            )
        super().__init__(
            key_dtype,
            value_dtype,
            default_value,
            empty_key,
            deleted_key,
            initial_num_buckets=initial_num_buckets,
            name=name,
            checkpoint=checkpoint,
        )


class _ShardedMutableDenseHashTable:
    """`num_shards` `_MutableDenseHashTable`s behind one table interface.

    A key's shard is `abs(key) mod num_shards` (of a matrix of keys: of each row's first
    element). `export_sharded` replaces `export`: the keys and values of each shard.

    Args:
        key_dtype: dtype of the keys.
        value_dtype: dtype of the values.
        default_value: the value of a key not in the table.
        empty_key: a key never inserted (marks empty buckets).
        deleted_key: another such key (marks deleted buckets).
        num_shards: number of shards.
        checkpoint: whether the shards are saved and restored with checkpoints.
        name: the name scope of the shards and the prefix of their names
            (`<name>-<i>-of-<num_shards>`).

    Example:
        >>> table = _ShardedMutableDenseHashTable(  # doctest: +SKIP
        ...     tf.int64, tf.float32, [0.0, 0.0], [0, 0], [1, 1], num_shards=2)
        >>> table.size()  # doctest: +SKIP
    """

    def __init__(
        self,
        key_dtype: object,
        value_dtype: object,
        default_value: Any,
        empty_key: Any,
        deleted_key: Any,
        num_shards: int = 1,
        checkpoint: bool = True,
        name: str = "ShardedMutableHashTable",
    ) -> None:
        self._key_dtype = key_dtype
        self._value_dtype = value_dtype
        with tf.compat.v1.name_scope(name, "sharded_mutable_hash_table") as scope:
            self._table_name = scope
            self._table_shards = [
                _MutableDenseHashTable(
                    key_dtype=key_dtype,
                    value_dtype=value_dtype,
                    default_value=default_value,
                    empty_key=empty_key,
                    deleted_key=deleted_key,
                    checkpoint=checkpoint,
                    name=f"{name}-{i + 1}-of-{num_shards}",
                )
                for i in range(num_shards)
            ]
        self._value_shape = tf.TensorShape(tf.convert_to_tensor(default_value).shape)

    @property
    def name(self) -> str:
        """The name scope the shards were made in (with its trailing `/`)."""
        return self._table_name

    @property
    def _num_shards(self) -> int:
        return len(self._table_shards)

    @property
    def table_shards(self) -> list:
        """The shards, in order."""
        return self._table_shards

    def size(self, name: str | None = None) -> Any:
        """The number of keys in all shards (a scalar int64 `Tensor`).

        Example:
            >>> table.size()  # doctest: +SKIP
        """
        with tf.compat.v1.name_scope(name, "sharded_mutable_hash_table_size"):
            return tf.math.add_n([shard.size() for shard in self._table_shards])

    def _shard_indices(self, keys: Any) -> Any:
        if keys.shape.ndims > 1:
            keys = tf.reshape(tf.slice(keys, [0, 0], [-1, 1]), [-1])
        return tf.cast(tf.math.floormod(tf.math.abs(keys), self._num_shards), tf.int32)

    def _check_keys(self, keys: Any) -> None:
        if keys.shape.ndims not in (1, 2):
            raise ValueError(f"Expected a vector or matrix for keys, got {keys.shape}.")

    def lookup(self, keys: Any, name: str | None = None) -> Any:
        """The values of `keys` (a vector, or a matrix of vector keys); unknown keys give
        the default value.

        Example:
            >>> table.lookup(tf.constant([3, 9], tf.int64))  # doctest: +SKIP
        """
        if keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(
                f"Signature mismatch. Keys must be dtype {self._key_dtype}, got {keys.dtype}."
            )
        self._check_keys(keys)
        n = self._num_shards
        if n == 1:
            return self._table_shards[0].lookup(keys, name=name)
        where = self._shard_indices(keys)
        parts = tf.dynamic_partition(keys, where, n)
        values = [shard.lookup(part, name=name) for shard, part in zip(self._table_shards, parts)]
        positions = tf.dynamic_partition(tf.range(tf.shape(keys)[0]), where, n)
        return tf.dynamic_stitch(positions, values)

    def insert(self, keys: Any, values: Any, name: str | None = None) -> Any:
        """Stores `values` under `keys` (the op).

        Example:
            >>> op = table.insert(keys, values)  # doctest: +SKIP
        """
        self._check_keys(keys)
        n = self._num_shards
        if n == 1:
            return self._table_shards[0].insert(keys, values, name=name)
        where = self._shard_indices(keys)
        key_parts = tf.dynamic_partition(keys, where, n)
        value_parts = tf.dynamic_partition(values, where, n)
        return tf.group(
            *[
                shard.insert(k, v, name=name)
                for shard, k, v in zip(self._table_shards, key_parts, value_parts)
            ]
        )

    def export_sharded(self, name: str | None = None) -> tuple:
        """`(keys per shard, values per shard)`: two lists of `Tensor`s.

        Example:
            >>> keys, values = table.export_sharded()  # doctest: +SKIP
        """
        exported = [shard.export(name=name) for shard in self._table_shards]
        return [k for k, _ in exported], [v for _, v in exported]
