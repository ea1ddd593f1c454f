"""TensorFlow internals of v1 (`tf.compat.v1.train`) optimizers: the hyperparameters they
keep as private fields and the per-replica loss scaling of `Optimizer`.

Example:
    >>> from tfport._common.tf_internals import optimizers
    >>> ("training.optimizer", "Optimizer") in optimizers.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

from tfport._common.tf_internals._access import tf_symbol

# (module under `tensorflow.python`, attribute): the internal symbols used here.
SYMBOLS: tuple[tuple[str, str], ...] = (("training.optimizer", "Optimizer"),)
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("training.optimizer", "Optimizer", "_scale_loss"),
    ("training.adam", "AdamOptimizer", "_beta1"),
    ("training.adam", "AdamOptimizer", "_beta2"),
    ("training.adam", "AdamOptimizer", "_epsilon"),
    ("training.adam", "AdamOptimizer", "_lr"),
    ("training.gradient_descent", "GradientDescentOptimizer", "_learning_rate"),
    ("training.adagrad", "AdagradOptimizer", "_initial_accumulator_value"),
    ("training.ftrl", "FtrlOptimizer", "_learning_rate_power"),
    ("training.ftrl", "FtrlOptimizer", "_l1_regularization_strength"),
    ("training.ftrl", "FtrlOptimizer", "_l2_regularization_strength"),
    ("training.ftrl", "FtrlOptimizer", "_l2_shrinkage_regularization_strength"),
    ("training.ftrl", "FtrlOptimizer", "_beta"),
)


def v1_optimizer_hyperparameters(opt: Any) -> dict[str, Any]:
    """The constructor arguments a `tf.compat.v1.train` optimizer keeps as private fields.

    `_learning_rate` (`_lr` before TF 1.x's rename), `_initial_accumulator_value`,
    `_beta1`, `_beta2`, `_epsilon`, `_learning_rate_power`, `_l1/_l2_regularization_strength`,
    `_l2_shrinkage_regularization_strength`, `_beta` (each present on its optimizer).
    """
    names = (
        "initial_accumulator_value",
        "beta1",
        "beta2",
        "epsilon",
        "learning_rate_power",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "l2_shrinkage_regularization_strength",
        "beta",
    )
    out = {name: getattr(opt, "_" + name) for name in names if hasattr(opt, "_" + name)}
    out["learning_rate"] = getattr(opt, "_learning_rate", getattr(opt, "_lr", None))
    return out


@contextlib.contextmanager
def v1_optimizer_loss_scaling(scale: Callable[[Any], Any]) -> Iterator[None]:
    """v1 optimizers scale each replica's loss with `scale` in the block.

    Replaces the static `training.optimizer.Optimizer._scale_loss` (TF >= 1.14).
    """
    optimizer = tf_symbol("training.optimizer", "Optimizer")
    original = optimizer.__dict__["_scale_loss"]
    optimizer._scale_loss = staticmethod(scale)
    try:
        yield
    finally:
        optimizer._scale_loss = original
