"""`tf.contrib.lookup` table builders (TF 2.21 keeps them outside its public API).

Example:
    >>> index_table_from_file.__name__
    'index_table_from_file'
"""

from __future__ import annotations

from typing import Any


def _ops():
    from tfport._common import tf_internals

    return tf_internals.lookup_ops()


def index_table_from_file(vocabulary_file=None, *args: Any, **kwargs: Any):
    """String -> id table from a vocabulary file (one token per line)."""
    return _ops().index_table_from_file(vocabulary_file, *args, **kwargs)


def index_table_from_tensor(mapping, *args: Any, **kwargs: Any):
    """String -> id table from a 1-D string tensor."""
    return _ops().index_table_from_tensor(mapping, *args, **kwargs)


def index_to_string_table_from_file(vocabulary_file, *args: Any, **kwargs: Any):
    """Id -> string table from a vocabulary file."""
    return _ops().index_to_string_table_from_file(vocabulary_file, *args, **kwargs)


def index_to_string_table_from_tensor(vocabulary_list, *args: Any, **kwargs: Any):
    """Id -> string table from a 1-D string tensor."""
    return _ops().index_to_string_table_from_tensor(vocabulary_list, *args, **kwargs)


def index_to_string(tensor, mapping, default_value: str = "UNK", name=None):
    """Maps int64 ids to strings through `mapping`."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value)
    return table.lookup(tensor, name=name)
