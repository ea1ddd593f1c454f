"""TensorFlow's fused optimizer ops (`ResourceApply*`) as the Keras 3 optimizer doing the
same update, with the checkpoint's slots.

| op (v1 optimizer) | Keras 3 | slots |
| --- | --- | --- |
| ApplyGradientDescent | `SGD(lr)` | - |
| ApplyKerasMomentum (tf_keras SGD) | `SGD(lr, momentum, nesterov)` | `momentums` |
| ApplyMomentum (`MomentumOptimizer`) | `V1Momentum` (written in model.py) | `_accumulations` |
| ApplyAdam (`AdamOptimizer`) | `Adam(lr, beta_1, beta_2, epsilon)` | `_momentums`, `_velocities` |
| ApplyAdagrad (`AdagradOptimizer`) | `Adagrad(lr, epsilon=0)` | `_accumulators` |
| ApplyRMSProp, ApplyCenteredRMSProp | `RMSprop(lr, rho, momentum, epsilon, centered)` | (below) |

RMSprop's slots: `_velocities`, `_momentums` (when momentum > 0), `_average_gradients`
(centered).

v1 Momentum keeps `accumulation = momentum * accumulation + gradient` and steps by
`learning_rate * accumulation`; Keras's SGD keeps `-learning_rate * accumulation`, which
is the same only while the rate is constant, so v1 Momentum is a small subclass keeping
TensorFlow's slot. v1 Adam's bias correction comes from its `beta1_power`/`beta2_power`
variables, Keras's from `iterations`: the plan sets `iterations` to the global step and
`beta_powers` makes `restore_state` check that the checkpoint's powers are
`beta ** (step + 1)`.

Example:
    >>> KERAS["ResourceApplyAdam"].keras  # doctest: +SKIP
    'keras.optimizers.Adam'
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from tfport.keras._modelfn._optimizer_plan import OptimizerPlan
from tfport.keras._modelfn._optimizers_code import short_float
from tfport.keras._modelfn._optimizers_grads import variable_of
from tfport.keras._modelfn._static import TfOp, TfTensor, static

V1_MOMENTUM = '''

@keras.saving.register_keras_serializable(package="tfport_export")
class V1Momentum(keras.optimizers.Optimizer):
    """`tf.compat.v1.train.MomentumOptimizer`'s update: `accumulation = momentum *
    accumulation + gradient`, `variable -= learning_rate * accumulation` (Keras's SGD keeps
    `-learning_rate * accumulation`, not the same once the learning rate changes)."""

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, **kwargs):
        kwargs.setdefault("name", "v1_momentum")
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.nesterov = nesterov

    def build(self, variables):
        if self.built:
            return
        super().build(variables)
        self._accumulations = [
            self.add_variable_from_reference(v, "momentum") for v in variables
        ]

    def update_step(self, gradient, variable, learning_rate):
        learning_rate = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        accumulation = self._accumulations[self._get_variable_index(variable)]
        new = ops.add(ops.multiply(accumulation, self.momentum), gradient)
        if self.nesterov:
            step = ops.add(
                ops.multiply(gradient, learning_rate),
                ops.multiply(ops.multiply(new, self.momentum), learning_rate),
            )
        else:
            step = ops.multiply(new, learning_rate)
        self.assign(accumulation, new)
        self.assign_sub(variable, step)

    def get_config(self):
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config
'''


@dataclasses.dataclass(frozen=True)
class Fused:
    """Where a fused op keeps its inputs, and its Keras 3 optimizer."""

    keras: str
    lr: int  # input index of the learning rate
    grad: int
    slots: dict[str, int]  # Keras optimizer attribute -> input index of the slot variable
    hyper: dict[str, int]  # Keras argument -> input index of its (constant) value


_SGD = Fused("keras.optimizers.SGD", 1, 2, {}, {})
_MOMENTUM = Fused("V1Momentum", 2, 3, {"_accumulations": 1}, {"momentum": 4})
_KERAS_MOMENTUM = Fused("keras.optimizers.SGD", 2, 3, {"momentums": 1}, {"momentum": 4})
_ADAM = Fused(
    "keras.optimizers.Adam",
    5,
    9,
    {"_momentums": 1, "_velocities": 2},
    {"beta_1": 6, "beta_2": 7, "epsilon": 8},
)
_ADAGRAD = Fused("keras.optimizers.Adagrad", 2, 3, {"_accumulators": 1}, {})
_RMSPROP = Fused(
    "keras.optimizers.RMSprop",
    3,
    7,
    {"_velocities": 1, "_momentums": 2},
    {"rho": 4, "momentum": 5, "epsilon": 6},
)
_CENTERED = Fused(
    "keras.optimizers.RMSprop",
    4,
    8,
    {"_average_gradients": 1, "_velocities": 2, "_momentums": 3},
    {"rho": 5, "momentum": 6, "epsilon": 7},
)
KERAS = {
    "ApplyGradientDescent": _SGD,
    "ApplyMomentum": _MOMENTUM,
    "ApplyKerasMomentum": _KERAS_MOMENTUM,
    "ApplyAdam": _ADAM,
    "ApplyAdagrad": _ADAGRAD,
    "ApplyRMSProp": _RMSPROP,
    "ApplyCenteredRMSProp": _CENTERED,
}
KERAS |= {f"Resource{k}": v for k, v in list(KERAS.items())}
REFUSED = {
    "ApplyAdagradV2": "tf_keras Adagrad (g / (sqrt(acc) + eps); Keras 3: g / sqrt(acc + eps))",
    "ApplyAdagradDA": "Adagrad dual averaging (no Keras 3 optimizer)",
    "ApplyProximalAdagrad": "proximal Adagrad (no Keras 3 optimizer)",
    "ApplyProximalGradientDescent": "proximal gradient descent (no Keras 3 optimizer)",
    "ApplyFtrl": "Ftrl (its v1 and Keras 3 updates are not compared here yet)",
    "ApplyFtrlV2": "Ftrl (its v1 and Keras 3 updates are not compared here yet)",
    "ApplyAdaMax": "AdaMax (its bias correction differs)",
    "ApplyAdadelta": "Adadelta (its epsilon placement differs)",
    "ApplyPowerSign": "PowerSign (no Keras 3 optimizer)",
    "ApplyAddSign": "AddSign (no Keras 3 optimizer)",
}
REFUSED |= {f"Resource{k}": v for k, v in list(REFUSED.items())}
REFUSED |= {
    f"{p}Sparse{k}": "a sparse (embedding) update (Keras 3 updates every row)"
    for p in ("", "Resource")
    for k in KERAS
}


def hyperparameters(
    op: TfOp, fused: Fused, constant: Callable[[TfTensor], np.ndarray | None] = static
) -> dict[str, float | bool | None]:
    """The op's constant Keras arguments (momentum, betas, ...); None for one that is not
    a constant (refused by the caller)."""
    found: dict[str, float | bool | None] = {}
    for name, index in fused.hyper.items():
        value = constant(op.inputs[index])
        found[name] = None if value is None else _number(value, op.inputs[index])
    if "use_nesterov" in op.node_def.attr:
        found["nesterov"] = bool(op.get_attr("use_nesterov"))
    return found


def _number(value: np.ndarray, tensor: TfTensor) -> float:
    return float(short_float(value)) if tensor.dtype.name == "float32" else float(value)


def keras_arguments(
    op_type: str, hyper: dict[str, float | bool | None]
) -> tuple[str, dict[str, float | bool | None]]:
    """(constructor, arguments besides the learning rate); Adam's `nesterov` (the caller
    refuses it) dropped."""
    kind = op_type.removeprefix("Resource")
    fused = KERAS[op_type]
    args = dict(hyper)
    if kind == "ApplyAdam":
        args.pop("nesterov", None)
    elif kind == "ApplyAdagrad":
        args["epsilon"] = 0.0  # v1: g / sqrt(acc); Keras 3: g / sqrt(acc + epsilon)
    elif kind in ("ApplyRMSProp", "ApplyCenteredRMSProp"):
        args["centered"] = kind == "ApplyCenteredRMSProp"
    elif kind == "ApplyGradientDescent":
        args = {}
    return fused.keras, args


def slot_keys(op: TfOp, fused: Fused, hyper: dict[str, float | bool | None]) -> dict[str, str]:
    """{Keras attribute: checkpoint key} of the op's slot variables."""
    keys = {attr: variable_of(op.inputs[i]) for attr, i in fused.slots.items()}
    if fused.keras.endswith("RMSprop") and not hyper.get("momentum"):
        keys.pop("_momentums")  # v1 keeps a momentum slot even at momentum 0; Keras none
    return keys


def plan_fused(
    kind: str, lr: str, hyper: dict[str, float | bool | None], clipnorm: float | None
) -> OptimizerPlan:
    """The plan's `expression` and `source` (slots, iterations: the caller's).

    Example:
        >>> plan_fused("ResourceApplyAdagrad", "0.1", {}, None).expression
        'keras.optimizers.Adagrad(learning_rate=0.1, epsilon=0.0)'
    """
    constructor, args = keras_arguments(kind, hyper)
    parts = [f"learning_rate={lr}"] + [f"{k}={v!r}" for k, v in args.items()]
    if clipnorm is not None:
        parts.append(f"global_clipnorm={clipnorm!r}")
    source = [V1_MOMENTUM] if constructor == "V1Momentum" else []
    return OptimizerPlan(source=source, expression=f"{constructor}({', '.join(parts)})")
