"""Optimizer resolution as the legacy canned estimators did it (v1 and Keras v2), and legacy
`canned/optimizers.py`'s functions over it.

v1 canned estimators take `tf.compat.v1.train` optimizers (names create them with the
estimator's default learning rate); v2 ones take `tf_keras` legacy optimizers (names
create them with the optimizer's own default learning rate).
"""

from __future__ import annotations

import inspect
import math
from typing import TYPE_CHECKING, Any

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf

if TYPE_CHECKING:
    from tfport._common.types import TFModule

DNN_LEARNING_RATE = 0.05
COMBINED_DNN_LEARNING_RATE = 0.001
LINEAR_LEARNING_RATE = 0.2
COMBINED_LINEAR_LEARNING_RATE = 0.005
BASELINE_LEARNING_RATE = 0.3
NAMES = ("Adagrad", "Adam", "Ftrl", "RMSProp", "SGD")


def linear_learning_rate(num_columns: int, cap: float = LINEAR_LEARNING_RATE) -> float:
    """`min(cap, 1/sqrt(num_columns))`, the legacy default for linear models.

    Example:
        >>> linear_learning_rate(2)
        0.2
    """
    return min(cap, 1.0 / math.sqrt(max(num_columns, 1)))


def _v1_classes(tf: TFModule) -> dict:
    train = tf.compat.v1.train
    return {
        "Adagrad": train.AdagradOptimizer,
        "Adam": train.AdamOptimizer,
        "Ftrl": train.FtrlOptimizer,
        "RMSProp": train.RMSPropOptimizer,
        "SGD": train.GradientDescentOptimizer,
    }


def _v2_classes(tf: TFModule) -> dict:
    legacy = tf.keras.optimizers.legacy
    return {
        "Adagrad": legacy.Adagrad,
        "Adam": legacy.Adam,
        "Ftrl": legacy.Ftrl,
        "RMSProp": legacy.RMSprop,
        "SGD": legacy.SGD,
    }


def _unknown(opt: Any, what: str) -> TfportInputError:
    return TfportInputError(
        message(
            f"optimizer must be one of {list(NAMES)}, {what} or a callable returning one",
            "Pass a supported name or an optimizer instance",
            optimizer=opt,
        )
    )


def get_v1(opt: Any, learning_rate: float) -> Any:
    """A `tf.compat.v1.train.Optimizer` from a name, instance or callable.

    Example:
        >>> get_v1("Adagrad", 0.05)  # doctest: +SKIP
    """
    tf = import_tf()
    if isinstance(opt, str):
        classes = _v1_classes(tf)
        if opt not in classes:
            raise _unknown(opt, "a tf.compat.v1.train.Optimizer")
        return classes[opt](learning_rate=learning_rate)
    if callable(opt) and not isinstance(opt, tf.compat.v1.train.Optimizer):
        opt = opt()
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise _unknown(opt, "a tf.compat.v1.train.Optimizer")
    return opt


def _has_default_learning_rate(cls: Any) -> bool:
    param = inspect.signature(cls.__init__).parameters.get("learning_rate")
    return param is not None and param.default is not inspect.Parameter.empty


def get_v2(opt: Any, learning_rate: float | None = None) -> Any:
    """A `tf_keras` legacy optimizer from a name, class, instance or callable.

    A name with no `learning_rate` uses the optimizer's own default (0.05 if it has none).

    Example:
        >>> get_v2("Adam")  # doctest: +SKIP
    """
    tf = import_tf()
    legacy_base = tf.keras.optimizers.legacy.Optimizer
    if isinstance(opt, str):
        classes = _v2_classes(tf)
        if opt not in classes:
            raise _unknown(opt, "a tf.keras.optimizers.legacy.Optimizer")
        cls = classes[opt]
        if learning_rate:
            return cls(learning_rate=learning_rate)
        return cls() if _has_default_learning_rate(cls) else cls(learning_rate=DNN_LEARNING_RATE)
    if isinstance(opt, type) and issubclass(opt, legacy_base):
        return opt(learning_rate=learning_rate) if learning_rate else opt()
    if callable(opt) and not isinstance(opt, legacy_base):
        opt = opt()
    if not isinstance(opt, legacy_base):
        if isinstance(opt, tf.keras.optimizers.Optimizer):
            raise TfportInputError(
                message(
                    "v2 canned estimators run in graph mode and need a legacy Keras optimizer",
                    f"Use tf.keras.optimizers.legacy.{type(opt).__name__}",
                    optimizer=opt,
                )
            )
        raise _unknown(opt, "a tf.keras.optimizers.legacy.Optimizer")
    return opt


# --- legacy `canned/optimizers.py`'s names, over the above ---
_LEARNING_RATE = 0.05
_OPTIMIZER_CLS_NAMES = NAMES
_OPTIMIZER_CLS_NAMES_V2 = NAMES


def get_optimizer_instance(opt: Any, learning_rate: float | None = None) -> Any:
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
        if opt not in NAMES:
            raise ValueError(
                f"Unsupported optimizer name: {opt}. Supported names are: {tuple(sorted(NAMES))}"
            )
        if not learning_rate:
            raise ValueError("learning_rate must be specified when opt is string.")
        return get_v1(opt, learning_rate)
    if callable(opt) and not isinstance(opt, tf.compat.v1.train.Optimizer):
        opt = opt()
    if not isinstance(opt, tf.compat.v1.train.Optimizer):
        raise ValueError(
            f"The given object is not an Optimizer instance. Given: {opt}. Received: {opt!r}"
        )
    return opt


def get_optimizer_instance_v2(opt: Any, learning_rate: float | None = None) -> Any:
    """A Keras (legacy, graph-mode) optimizer from a name, class, instance or callable.

    A name without `learning_rate` uses the optimizer's own default learning rate.

    Example:
        >>> get_optimizer_instance_v2("Adam")  # doctest: +SKIP
    """
    if isinstance(opt, str) and opt not in NAMES:
        raise ValueError(
            f"Unsupported optimizer name: {opt}. Supported names are: {tuple(sorted(NAMES))}"
        )
    return get_v2(opt, learning_rate)


def _optimizer_has_default_learning_rate(opt: Any) -> bool:
    """Whether optimizer class `opt` has a default `learning_rate`."""
    return _has_default_learning_rate(opt)
