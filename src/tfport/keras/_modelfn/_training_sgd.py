"""TEMPORARY fallback optimizer mapper: plain `GradientDescentOptimizer` with a constant
learning rate as `keras.optimizers.SGD`, used only while `_optimizers.plan_optimizer` (the
optimizer mappers: momentum, Adam, Adagrad, RMSProp, schedules, user-written optimizers)
is not in this checkout. Everything else is refused by name.

Example:
    >>> plan_optimizer(graph, train_op, loss, trainable, step).expression  # doctest: +SKIP
    'keras.optimizers.SGD(learning_rate=0.1)'
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._optimizer_plan import OptimizerPlan
from tfport.keras._modelfn._training_trace import run_by
from tfport.keras._modelfn._walk import refusal

_UPDATES = ("ResourceApply", "Apply", "ResourceSparseApply", "SparseApply")


def plan_optimizer(
    graph: object,
    train_op: TfOp,
    loss: TfTensor,
    trainable: list[TfOp],
    global_step: TfTensor,
) -> OptimizerPlan:
    """`keras.optimizers.SGD(learning_rate=lr)` for constant-lr gradient descent.

    Raises:
        TfportInputError: any other optimizer (named by its update op).
    """
    updates = [op for op in run_by(train_op) if op.type.startswith(_UPDATES)]
    rates = set()
    for op in updates:
        if op.type != "ResourceApplyGradientDescent":
            raise refusal(op, f"{op.type}: no optimizer mapper in this checkout")
        rate = _ops.static(op.inputs[1])
        if rate is None:
            raise refusal(op, "a learning rate that changes (no schedule mapper here)")
        rates.add(float(str(np.float32(rate))))
    if len(rates) != 1:
        raise refusal(run_by(train_op)[-1], "no single gradient-descent rate")
    (rate,) = rates
    report = [
        {"op": op.name, "type": op.type, "to": "keras.optimizers.SGD", "line": ""} for op in updates
    ]
    return OptimizerPlan(
        source=[],
        expression=f"keras.optimizers.SGD(learning_rate={rate!r})",
        iterations=global_step.op.name if global_step is not None else None,
        report=report,
    )
