"""tfport: legacy TensorFlow Estimator code and artifacts on TensorFlow 2.21.

Example:
    >>> import tfport
    >>> handle = tfport.install()  # `tf.estimator` now resolves to `tfport.estimator`
    >>> tfport.uninstall()
    True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tfport._version import __version__

if TYPE_CHECKING:
    from tfport.estimator import Estimator

__all__ = ["__version__", "install", "to_accelerator", "uninstall"]


def install() -> Any:
    """Makes `tf.estimator`, `tf.compat.v1.estimator` and `tf.keras.estimator` resolve to tfport.

    Also arranges what `tf.compat.v1.layers` needs on TF 2.21. Safe to call twice.

    Returns:
        The installation handle (`uninstall()` undoes it).

    Example:
        >>> import tfport
        >>> handle = tfport.install()
        >>> tfport.uninstall()
        True
    """
    from tfport._install import install as _install

    return _install()


def uninstall() -> bool:
    """Undoes `install()`; returns whether tfport was installed.

    Example:
        >>> import tfport
        >>> handle = tfport.install()
        >>> tfport.uninstall(), tfport.uninstall()
        (True, False)
    """
    from tfport._install import uninstall as _uninstall

    return _uninstall()


def to_accelerator(estimator: Estimator, strategy: object = "auto") -> Any:
    """Returns a copy of `estimator` that trains and evaluates on `strategy`.

    Args:
        estimator: a `tfport.estimator.Estimator`.
        strategy: a strategy spec (`"auto"`, `"mirrored:2"`, `"tpu"`, ...) or object.

    Example:
        >>> est = tfport.to_accelerator(est, "mirrored:2")  # doctest: +SKIP
    """
    import copy

    from tfport import distribute

    obj = distribute.resolve(strategy)
    new = copy.copy(estimator)
    new._config = estimator.config.replace(train_distribute=obj, eval_distribute=obj)
    return new
