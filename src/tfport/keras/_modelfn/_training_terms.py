"""The variable terms of a model_fn's loss (`c * tf.nn.l2_loss(v)`, `c * sum(v ** 2)`,
summed and added to the loss): Keras L2 regularizers on the layers holding the variables
(`L2(l2)` adds `l2 * sum(v ** 2)`, so `c * l2_loss(v)` is `L2(c / 2)`).

Example:
    >>> regularizers(train, {"mul:0": term}, loss_ops)  # doctest: +SKIP
    {'logits/kernel': 5e-05}
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._training_trace import TrainTraced
from tfport.keras._modelfn._walk import refusal, variable_name

_ADDS = ("Add", "AddV2", "AddN", "Identity")


def _l2_terms(t: TfTensor) -> dict[str, float] | None:
    """{variable: c} when `t` is `sum(c * sum(v ** 2))` (l2_loss is sum(v ** 2) / 2)."""
    op = t.op
    if op.type == "Identity":
        return _l2_terms(op.inputs[0])
    if op.type == "L2Loss" and op.inputs[0].op.type == "ReadVariableOp":
        return {variable_name(op.inputs[0].op): 0.5}
    if op.type == "Sum" and op.inputs[0].op.type == "Square":
        read = op.inputs[0].op.inputs[0]
        rank = read.shape.rank
        axes = _ops.static(op.inputs[1])
        if read.op.type == "ReadVariableOp" and rank is not None and axes is not None:
            if sorted(int(a) % rank for a in np.ravel(axes)) == list(range(rank)):
                return {variable_name(read.op): 1.0}
        return None
    if op.type == "Mul":
        for i in (0, 1):
            scale = _ops.static(op.inputs[i])
            if scale is not None and np.ndim(scale) == 0:
                inner = _l2_terms(op.inputs[1 - i])
                if inner is None:
                    return None
                return {k: float(scale) * v for k, v in inner.items()}
        return None
    if op.type in ("Add", "AddV2", "AddN"):
        total: dict[str, float] = {}
        for part in op.inputs:
            terms = _l2_terms(part)
            if terms is None:
                return None
            for k, v in terms.items():
                total[k] = total.get(k, 0.0) + v
        return total
    return None


def variables_read(t: TfTensor) -> list[str]:
    """The variables `t`'s value reads, by name.

    Example:
        >>> variables_read(graph.get_tensor_by_name("mul:0"))  # doctest: +SKIP
        ['conv1/kernel', 'logits/bias']
    """
    stack, seen, found = [t.op], set(), set()
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type in ("ReadVariableOp", "VariableV2"):
            found.add(variable_name(op))
        stack.extend(i.op for i in op.inputs)
    return sorted(found)


def regularizers(
    train: TrainTraced, regularized: dict[str, TfTensor], loss_ops: dict[str, TfOp]
) -> dict[str, float]:
    """{variable: Keras L2 coefficient} of the variable terms, each added to the loss.

    Raises:
        TfportInputError: a term that is not `c * l2_loss(v)` sums added to the loss.

    Example:
        >>> regularizers(train, matched.regularized, loss_ops)  # doctest: +SKIP
        {'logits/kernel': 5e-05}
    """
    l2: dict[str, float] = {}
    for t in regularized.values():
        terms = _l2_terms(t)
        readers = [op for op in loss_ops.values() if any(i.name == t.name for i in op.inputs)]
        if terms is None:
            raise refusal(
                t.op,
                f"the loss reads {', '.join(variables_read(t))} outside the model and not as "
                "an L2 term (c * tf.nn.l2_loss(v)); it has no Keras fit form",
            )
        if not _only_added(readers, train.loss, loss_ops):
            raise refusal(t.op, "an L2 term that is not added to the loss (no regularizer form)")
        for k, v in terms.items():
            l2[k] = l2.get(k, 0.0) + v
    return {k: float(str(np.float32(v))) for k, v in l2.items()}


def _only_added(readers: list[TfOp], loss: TfTensor, loss_ops: dict[str, TfOp]) -> bool:
    """Whether the way from each reader to the loss is additions only (coefficient 1)."""
    stack = list(readers)
    while stack:
        op = stack.pop()
        if op.type not in _ADDS:
            return False
        if any(t.name == loss.name for t in op.outputs):
            continue
        users = [u for u in loss_ops.values() if any(i.op.name == op.name for i in u.inputs)]
        if not users:
            return False
        stack.extend(users)
    return True
