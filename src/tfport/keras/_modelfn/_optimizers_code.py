"""A TRAIN graph's subgraph (a learning rate, a variable's update) as `keras.ops` lines.

`Writer.write(tensor)` walks back from `tensor` to the leaves its `leaf` function names
(the gradient, the variable, a slot, the step), writing one `tN = ops...` line per op with
`_ops.expression`, constants inline, and a `# file:line: code` comment where the model_fn
line changes.

Example:
    >>> step = lambda t: "step" if t.name == "ReadVariableOp:0" else None  # doctest: +SKIP
    >>> writer = Writer(step, refuse)  # doctest: +SKIP
    >>> writer.write(lr)  # doctest: +SKIP
    't2'
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._static import PASS, Refused, TfOp, TfTensor, has_batch, literal, static

Leaf = Callable[[TfTensor], "str | None"]  # tensor -> its name in the code, or None
Refuse = Callable[[TfOp, str], Exception]


class Writer:
    """Writes the ops between leaves and a tensor as keras.ops lines, in dependency order."""

    def __init__(
        self,
        leaf: Leaf,
        refuse: Refuse,
        batch: frozenset[str] = frozenset(),
        forward: frozenset[str] = frozenset(),
    ) -> None:
        self.leaf = leaf
        self.refuse = refuse
        self.batch = batch  # ops whose value changes with the batch (or a random draw)
        self.forward = forward  # ops the loss needs: the model's forward pass
        self.derived: dict[str, bool] = {}  # tensor -> computed from a gradient leaf
        self.lines: list[str] = []
        self.rows: list[dict] = []
        self.expr: dict[str, str] = {}
        self.uses_numpy = False
        self._comment = _ops.Comments(self.lines)  # `# file:line` where it changes

    def write(self, tensor: TfTensor) -> str:
        """The expression of `tensor` (a name, a literal or a leaf), writing its lines."""
        if tensor.name in self.expr:
            return self.expr[tensor.name]
        text = self.leaf(tensor)
        if text is None:
            text = self._constant(tensor)
        else:  # a leaf: the gradient is the only one that changes with the batch
            self.derived[tensor.name] = tensor.op.name in self.batch
        if text is None:
            text = self._op(tensor)
        self.expr[tensor.name] = text
        return text

    def _constant(self, tensor: TfTensor) -> str | None:
        value = static(tensor)
        if value is None or has_batch(value):
            return None
        try:
            text = literal(tensor)
        except Refused as err:
            raise self.refuse(tensor.op, str(err)) from None
        self.uses_numpy |= text.startswith("np.")
        return (
            short_float(value) if np.ndim(value) == 0 and tensor.dtype.name == "float32" else text
        )

    def _op(self, tensor: TfTensor) -> str:
        op = tensor.op
        if op.type in PASS:
            return self.write(op.inputs[0])
        if op.name in self.forward:
            raise self.refuse(
                op, "the update reads the model's forward pass, not only its gradient"
            )
        if op.type in ("ReadVariableOp", "VarHandleOp", "VariableV2"):
            raise self.refuse(op, "the update reads a variable that is not its own state")
        inputs = _ops.data_inputs(op)
        args = [self.write(t) for t in inputs]
        derived = any(self.derived.get(t.name, False) for t in inputs)
        if op.name in self.batch and not derived:
            raise self.refuse(
                op, "the update reads a value of the batch that is not the loss's gradient"
            )
        self.derived[tensor.name] = derived
        try:
            text, to = _whole(op, args) or _ops.expression(op, args)
        except Refused as err:
            raise self.refuse(op, str(err)) from None
        self.uses_numpy |= "np." in text
        line = self._comment(op)
        name = f"t{len(self.rows)}"
        self.lines.append(f"{name} = {text}")
        self.rows.append({"op": op.name, "type": op.type, "to": to, "line": line})
        return name


def short_float(value: float | np.ndarray) -> str:
    """A float32 number as the shortest Python float that is the same float32 (`0.9`)."""
    return repr(float(str(np.float32(value))))


def _whole(op: TfOp, args: list[str]) -> tuple[str, str] | None:
    """A reduction over every axis (`axis=None`) and a squeeze of every axis of a size-1
    tensor (to a scalar), the ops of `tf.norm(x)`, written alike for every rank (so that
    variables of different ranks share one update)."""
    dims = op.inputs[0].shape.as_list() if op.inputs[0].shape.rank is not None else None
    if dims is None or None in dims:
        return None
    if op.type == "Squeeze" and not list(op.get_attr("squeeze_dims")) and set(dims) <= {1}:
        return f"ops.reshape({args[0]}, ())", "ops.reshape"
    if op.type in _ops.REDUCE:
        axes = static(op.inputs[1])
        if axes is None or not dims:
            return None
        every = sorted(int(a) % len(dims) for a in np.asarray(axes).reshape(-1))
        if every == list(range(len(dims))):
            keep = bool(op.get_attr("keep_dims"))
            return f"{_ops.REDUCE[op.type]}({args[0]}, axis=None, keepdims={keep})", "reduce"
    return None
