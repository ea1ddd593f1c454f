"""How the boundary modules reach one TensorFlow internal: by its module and its name.

Each module of `tfport._common.tf_internals` reads `tensorflow.python.<module>.<name>` with
`tf_symbol` and replaces it with `set_tf_symbol` / `tf_symbol_replaced`, every pair listed
in that module's `SYMBOLS` (`tests/test_boundary.py` checks). No function here, or anywhere
in the boundary, hands out a module: a caller gets the one symbol it uses.

Importing this module does not import TensorFlow.

Example:
    >>> from tfport._common.tf_internals._access import tf_symbol
    >>> tf_symbol("training.evaluation", "_StopAfterNEvalsHook").__name__
    '_StopAfterNEvalsHook'
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Iterator
from typing import Any


def tf_symbol(module: str, name: str) -> Any:
    """`tensorflow.python.<module>.<name>` (TensorFlow imported the tfport way first).

    Example:
        >>> tf_symbol("ops.lookup_ops", "index_table_from_file").__name__
        'index_table_from_file'
    """
    from tfport._common.tfenv import import_tf

    import_tf()
    return getattr(importlib.import_module(f"tensorflow.python.{module}"), name)


def set_tf_symbol(module: str, name: str, value: object) -> Any:
    """Sets `tensorflow.python.<module>.<name>` to `value`; returns the value it replaced.

    For the module globals TensorFlow looks up at each call (`random_seed.get_seed`, ...).

    Example:
        >>> previous = set_tf_symbol("ops.lookup_ops", "index_table_from_file", None)
        >>> _ = set_tf_symbol("ops.lookup_ops", "index_table_from_file", previous)
    """
    from tfport._common.tfenv import import_tf

    import_tf()
    owner = importlib.import_module(f"tensorflow.python.{module}")
    previous = getattr(owner, name)
    setattr(owner, name, value)
    return previous


@contextlib.contextmanager
def tf_symbol_replaced(module: str, name: str, value: object) -> Iterator[Any]:
    """Within it, `tensorflow.python.<module>.<name>` is `value` (it yields the value
    replaced); restored on exit.

    Example:
        >>> with tf_symbol_replaced("ops.lookup_ops", "index_table_from_file", None):
        ...     pass
    """
    previous = set_tf_symbol(module, name, value)
    try:
        yield previous
    finally:
        set_tf_symbol(module, name, previous)
