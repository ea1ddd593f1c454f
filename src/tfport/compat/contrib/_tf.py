"""The lazily imported TensorFlow module (`tf.compat.v1` view) for the contrib stand-ins."""

from __future__ import annotations

from types import ModuleType


def v1() -> ModuleType:
    """Returns `tf.compat.v1`, importing TensorFlow with tfport's environment on first use.

    Example:
        >>> v1().get_variable.__name__
        'get_variable'
    """
    from tfport._common.tfenv import import_tf

    return import_tf().compat.v1
