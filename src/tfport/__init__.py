"""tfport: legacy TensorFlow Estimator code and artifacts on TensorFlow 2.21.

Example:
    >>> import tfport
    >>> tfport.install()  # `tf.estimator` now resolves to `tfport.estimator`
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["__version__", "install", "to_accelerator"]


def install() -> None:
    """Makes `tf.estimator`, `tf.compat.v1.estimator` and `tf.keras.estimator` resolve to tfport.

    Also arranges what `tf.compat.v1.layers` needs on TF 2.21. Safe to call twice.

    Example:
        >>> import tfport
        >>> tfport.install()
    """
    from tfport._src.install import install as _install

    _install()


def to_accelerator(estimator: Any, strategy: Any = "auto") -> Any:
    """Returns a copy of `estimator` that trains and evaluates on `strategy`.

    Args:
        estimator: a `tfport.estimator.Estimator`.
        strategy: a strategy spec (`"auto"`, `"mirrored:2"`, `"tpu"`, ...) or object.

    Example:
        >>> est = tfport.to_accelerator(est, "mirrored:2")  # doctest: +SKIP
    """
    from tfport._src.engine.strategies import to_accelerator as _to_accelerator

    return _to_accelerator(estimator, strategy)
