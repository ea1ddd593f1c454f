"""`tf.contrib.lookup` table builders (TF 2.21 keeps them outside its public API).

Example:
    >>> index_table_from_file.__name__
    'index_table_from_file'
"""

from __future__ import annotations

from typing import Any

from tfport._common import tf_internals


def _given(**kwargs: object) -> dict[str, object]:
    """The keyword arguments the caller gave (None keeps TensorFlow's own default)."""
    return {k: v for k, v in kwargs.items() if v is not None}


def index_table_from_file(
    vocabulary_file: str | None = None,
    num_oov_buckets: int = 0,
    vocab_size: int | None = None,
    default_value: int = -1,
    hasher_spec: object = None,
    key_dtype: object = None,
    name: str | None = None,
    key_column_index: int = -2,
    value_column_index: int = -1,
    delimiter: str = "\t",
) -> Any:
    """String -> id table from a vocabulary file (one token per line)."""
    return tf_internals.index_table_from_file(
        vocabulary_file,
        num_oov_buckets=num_oov_buckets,
        vocab_size=vocab_size,
        default_value=default_value,
        name=name,
        key_column_index=key_column_index,
        value_column_index=value_column_index,
        delimiter=delimiter,
        **_given(hasher_spec=hasher_spec, key_dtype=key_dtype),
    )


def index_table_from_tensor(
    mapping: object,
    num_oov_buckets: int = 0,
    default_value: int = -1,
    hasher_spec: object = None,
    dtype: object = None,
    name: str | None = None,
) -> Any:
    """String -> id table from a 1-D string tensor."""
    return tf_internals.index_table_from_tensor(
        mapping,
        num_oov_buckets=num_oov_buckets,
        default_value=default_value,
        name=name,
        **_given(hasher_spec=hasher_spec, dtype=dtype),
    )


def index_to_string_table_from_file(
    vocabulary_file: str,
    vocab_size: int | None = None,
    default_value: str = "UNK",
    name: str | None = None,
    key_column_index: int = -1,
    value_column_index: int = -2,
    delimiter: str = "\t",
) -> Any:
    """Id -> string table from a vocabulary file."""
    return tf_internals.index_to_string_table_from_file(
        vocabulary_file,
        vocab_size=vocab_size,
        default_value=default_value,
        name=name,
        key_column_index=key_column_index,
        value_column_index=value_column_index,
        delimiter=delimiter,
    )


def index_to_string_table_from_tensor(
    vocabulary_list: object, default_value: str = "UNK", name: str | None = None
) -> Any:
    """Id -> string table from a 1-D string tensor."""
    return tf_internals.index_to_string_table_from_tensor(
        vocabulary_list, default_value=default_value, name=name
    )


def index_to_string(tensor, mapping, default_value: str = "UNK", name=None):
    """Maps int64 ids to strings through `mapping`."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value)
    return table.lookup(tensor, name=name)
