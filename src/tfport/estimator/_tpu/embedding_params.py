"""Legacy `_tpu_estimator_embedding`'s column and optimizer tables and slot variable names.

TF 2.21 dropped the TF1 TPU embedding optimizer classes; `embedding.py` stands in for
the four TF 2.15 had in `tf.compat.v1.tpu.experimental` (Adagrad, Adam, Ftrl, SGD), and this
module for the other three legacy accepted (Momentum, RMSProp, ProximalAdagrad), so
`_SUPPORTED_OPTIMIZERS` holds the seven legacy listed.
`_get_slot_variable_names` names an embedding table's optimizer slots as a CPU run names
them (`scope/var/Adagrad`, `scope/var/Adam/m`, ...), through the slot table tfport's TPU
embedding internals keep (`tpu_embedding_internals`).

Example:
    >>> _get_slot_variable_names("scope", "emb", AdagradParameters(0.1))
    AdagradSlotVariableNames(accumulator='scope/emb/Adagrad')
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tfport._common import tf_internals
from tfport.estimator._tpu.embedding import (
    AdagradParameters,
    AdamParameters,
    FtrlParameters,
    StochasticGradientDescentParameters,
    _OptimizationParameters,
)
from tfport.estimator._tpu.legacy_helpers import _get_embedding_variable_name
from tfport.estimator._tpu.tpu_embedding_internals import _slot_names


class MomentumParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental`'s TF 1 TPU embedding Momentum parameters.

    Example:
        >>> MomentumParameters(0.1, momentum=0.9).momentum
        0.9
    """

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        momentum: float,
        use_nesterov: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **kwargs)
        self.momentum = momentum
        self.use_nesterov = use_nesterov


class RMSPropParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental`'s TF 1 TPU embedding RMSProp parameters.

    Example:
        >>> RMSPropParameters(0.1, rho=0.9, momentum=0.0, epsilon=1e-7).rho
        0.9
    """

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        rho: float,
        momentum: float,
        epsilon: float,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **kwargs)
        self.rho, self.momentum, self.epsilon = rho, momentum, epsilon


class ProximalAdagradParameters(_OptimizationParameters):
    """`tf.compat.v1.tpu.experimental`'s TF 1 TPU embedding proximal Adagrad parameters.

    Example:
        >>> ProximalAdagradParameters(0.1).initial_accumulator
        0.1
    """

    def __init__(
        self,
        learning_rate: float | Callable[..., object],
        initial_accumulator: float = 0.1,
        l1_regularization_strength: float = 0.0,
        l2_regularization_strength: float = 0.0,
        **kwargs: Any,
    ) -> None:
        super().__init__(learning_rate, **kwargs)
        self.initial_accumulator = initial_accumulator
        self.l1_regularization_strength = l1_regularization_strength
        self.l2_regularization_strength = l2_regularization_strength


def supported_optimizers() -> tuple:
    """Legacy `_SUPPORTED_OPTIMIZERS`: the optimization parameter classes, legacy's order."""
    return (
        ProximalAdagradParameters,
        AdagradParameters,
        AdamParameters,
        FtrlParameters,
        StochasticGradientDescentParameters,
        MomentumParameters,
        RMSPropParameters,
    )


def embedding_column_classes() -> tuple:
    """Legacy `_EMBEDDING_COLUMN_CLASSES`: the ordinary (non-TPU) embedding columns."""
    return tf_internals.core_embedding_column_classes()


def supported_feature_columns() -> tuple:
    """Legacy `_SUPPORTED_FEATURE_COLUMNS`: the numeric columns (v1 and v2)."""
    return tf_internals.core_numeric_column_classes()


def device_specific_embedding_columns() -> tuple:
    """Legacy `_TPU_DEVICE_SPECIFIC_EMBEDDING_COLUMNS` (TF's device-specific TPU columns)."""
    return tf_internals.tpu_device_specific_embedding_column_classes()


def _get_slot_variable_names(
    scope_name: str, var_name: str, optimization_parameters: object
) -> Any:
    """The slot variable names (a `<Optimizer>SlotVariableNames` tuple) of embedding variable
    `scope_name/var_name` trained with `optimization_parameters`; None for SGD (no slots).

    Raises:
        ValueError: for optimization parameters of no known optimizer.

    Example:
        >>> _get_slot_variable_names("", "emb", AdamParameters(0.1)).v
        'emb/Adam/v'
    """
    if not isinstance(optimization_parameters, supported_optimizers()) and type(
        optimization_parameters
    ).__name__ not in {cls.__name__ for cls in supported_optimizers()}:
        raise ValueError(
            "Support to infer full variable name for optimization_parameter "
            f"{optimization_parameters} has not been added."
        )
    full = _get_embedding_variable_name(scope_name, var_name)
    return _slot_names(full, optimization_parameters)
