"""Legacy `canned/optimizers.py`: optimizer instances from names, as canned estimators made them.

Example:
    >>> opt = get_optimizer_instance("Adagrad", learning_rate=0.1)  # doctest: +SKIP
"""

from __future__ import annotations

from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import OptimizerArg
from tfport.estimator._canned import optimizers

_LEARNING_RATE = 0.05
_OPTIMIZER_CLS_NAMES = optimizers.NAMES
_OPTIMIZER_CLS_NAMES_V2 = optimizers.NAMES


def get_optimizer_instance(opt: OptimizerArg, learning_rate: float | None = None) -> Any:
    """A `tf.compat.v1.train.Optimizer` from a name ('Adagrad', 'Adam', 'Ftrl', 'RMSProp',
    'SGD'; `learning_rate` required), an instance, or a callable returning one.

    Raises:
        ValueError: a name without `learning_rate`, an unknown name, or not an optimizer
            (as legacy).

    Example:
        >>> get_optimizer_instance("SGD", learning_rate=0.1)  # doctest: +SKIP
    """
    tf = import_tf()
    if isinstance(opt, str):
        if opt not in optimizers.NAMES:
            raise ValueError(
                f"Unsupported optimizer name: {opt}. Supported names are: "
                f"{tuple(sorted(optimizers.NAMES))}"
            )
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return optimizers.get_v1(opt, learning_rate)
    if callable(opt) and not isinstance(opt, tf.compat.v1.train.Optimizer):
        opt = opt()
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise ValueError(
            f"The given object is not an Optimizer instance. Given: {opt}. Received: {opt!r}"
        )
    return opt


def get_optimizer_instance_v2(opt: OptimizerArg, learning_rate: float | None = None) -> Any:
    """A Keras (legacy, graph-mode) optimizer from a name, class, instance or callable.

    A name without `learning_rate` uses the optimizer's own default learning rate.

    Example:
        >>> get_optimizer_instance_v2("Adam")  # doctest: +SKIP
    """
    if isinstance(opt, str) and opt not in optimizers.NAMES:
        raise ValueError(
            f"Unsupported optimizer name: {opt}. Supported names are: "
            f"{tuple(sorted(optimizers.NAMES))}"
        )
    return optimizers.get_v2(opt, learning_rate)


def _optimizer_has_default_learning_rate(opt: object) -> bool:
    """Whether optimizer class `opt` has a default `learning_rate`."""
    return optimizers._has_default_learning_rate(opt)
