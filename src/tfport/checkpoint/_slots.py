"""Optimizer slot naming, TF1 (`tf.compat.v1.train.*Optimizer`) <-> Keras optimizers.

TF1 names a slot `<var>/<Opt>` for the first slot the optimizer creates and
`<var>/<Opt>_k` for the k-th next one (creation order below). Keras (v2
estimators' name-based checkpoints) names it `training/<KerasOpt>/<var>/<slot>`
and keeps hyperparameters as `training/<KerasOpt>/<name>` scalars.

Adam's bookkeeping differs: TF1 stores `beta1_power = beta_1 ** (step + 1)`
(multiplied once per step in float32, starting from `beta_1`), Keras stores
`beta_1`. `beta_from_power` recovers `beta_1` and checks it by recomputing the
float32 product, so TF1 -> Keras -> TF1 is bit-exact.

Example:
    >>> v1_slot_name("dense/kernel", "Adam", 1)
    'dense/kernel/Adam_1'
"""

from __future__ import annotations

import numpy as np

# Slot creation order of each TF1 optimizer -> the Keras slot name.
V1_SLOTS: dict[str, tuple[str, ...]] = {
    "Adam": ("m", "v"),
    "Adagrad": ("accumulator",),
    "Ftrl": ("accumulator", "linear"),
    "RMSProp": ("rms", "momentum"),  # centered: ("rms", "mg", "momentum")
    "Momentum": ("momentum",),
}
RMSPROP_CENTERED = ("rms", "mg", "momentum")
V1_TO_KERAS = {
    "Adam": "Adam",
    "Adagrad": "Adagrad",
    "Ftrl": "Ftrl",
    "RMSProp": "RMSprop",
    "Momentum": "SGD",
    "GradientDescent": "SGD",
}
KERAS_TO_V1 = {"Adam": "Adam", "Adagrad": "Adagrad", "Ftrl": "Ftrl", "RMSprop": "RMSProp"}
KERAS_SLOTS: dict[str, tuple[str, ...]] = {
    "Adam": ("m", "v", "vhat"),
    "Adagrad": ("accumulator",),
    "Ftrl": ("accumulator", "linear"),
    "RMSprop": ("rms", "mg", "momentum"),
    "SGD": ("momentum",),
}
# Hyperparameters a Keras optimizer keeps in a name-based checkpoint, with Keras defaults.
KERAS_HYPER: dict[str, dict[str, float]] = {
    "Adam": {"beta_1": 0.9, "beta_2": 0.999, "decay": 0.0, "learning_rate": 0.001},
    "Adagrad": {"decay": 0.0, "learning_rate": 0.001},
    "Ftrl": {
        "beta": 0.0,
        "decay": 0.0,
        "l1_regularization_strength": 0.0,
        "l2_regularization_strength": 0.0,
        "learning_rate": 0.001,
        "learning_rate_power": -0.5,
    },
    "RMSprop": {"decay": 0.0, "learning_rate": 0.001, "momentum": 0.0, "rho": 0.9},
    "SGD": {"decay": 0.0, "learning_rate": 0.01, "momentum": 0.0},
}


def v1_slot_name(var: str, v1_opt: str, index: int) -> str:
    """`<var>/<Opt>` for the first slot, `<var>/<Opt>_<index>` after."""
    return f"{var}/{v1_opt}" if index == 0 else f"{var}/{v1_opt}_{index}"


def v1_slot_index(slot_suffix: str) -> int:
    """0 for `Adam`, 1 for `Adam_1`, ..."""
    _, _, tail = slot_suffix.rpartition("_")
    return int(tail) if "_" in slot_suffix and tail.isdigit() else 0


def keras_slot_for_v1(v1_opt: str, index: int, count: int) -> str | None:
    """The Keras slot name of the `index`-th of `count` TF1 slots of `v1_opt`."""
    order = RMSPROP_CENTERED if v1_opt == "RMSProp" and count == 3 else V1_SLOTS.get(v1_opt, ())
    return order[index] if index < len(order) else None


def v1_index_for_keras(keras_opt: str, slot: str, slots_present: set[str]) -> tuple[str, int]:
    """(TF1 optimizer, slot index) for a Keras slot."""
    if keras_opt == "SGD":
        return "Momentum", 0
    v1_opt = KERAS_TO_V1[keras_opt]
    centered = keras_opt == "RMSprop" and "mg" in slots_present
    order: tuple[str, ...] = RMSPROP_CENTERED if centered else V1_SLOTS[v1_opt]
    return v1_opt, order.index(slot)


def beta_power(beta: np.float32, step: int) -> np.float32:
    """TF1's `beta_power` after `step` steps: float32 `beta`, times `beta` `step` times."""
    beta = np.float32(beta)
    if step <= 0:
        return beta
    if step > 50_000_000:
        return np.float32(np.float64(beta) ** (step + 1))
    return np.multiply.accumulate(np.full(step + 1, beta, np.float32))[-1]


def beta_from_power(power: np.generic, step: int) -> tuple[np.float32, bool]:
    """Recovers float32 `beta` from TF1's `beta_power`; returns (beta, exact).

    `exact` is True when `beta_power(beta, step)` reproduces `power` bit for bit.
    """
    power = np.float32(power)
    guess = np.float32(np.float64(power) ** (1.0 / (max(step, 0) + 1)))
    candidates, up, down = [guess], guess, guess
    for _ in range(4):
        up, down = np.nextafter(up, np.float32(2)), np.nextafter(down, np.float32(0))
        candidates += [up, down]
    for beta in candidates:
        if beta_power(beta, step) == power:
            return np.float32(beta), True
    return guess, False
