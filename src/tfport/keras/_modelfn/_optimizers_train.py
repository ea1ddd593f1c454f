"""What a model_fn's train op runs: its variable writes, the loss's gradients, the
global step and its increment, and the one-line refusal of an optimizer update.

Example:
    >>> train = TrainGraph(graph, spec.train_op, spec.loss, tvars, step)  # doctest: +SKIP
    >>> train.increment().type  # doctest: +SKIP
    'AssignAddVariableOp'
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tfport._common.errors import TfportInputError
from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._optimizers_grads import Gradients, variable_of
from tfport.keras._modelfn._static import TfOp, TfTensor, static
from tfport.keras._modelfn._trace import TfGraph
from tfport.keras._modelfn._walk import refusal as walk_refusal

WRITES = (
    "AssignVariableOp",
    "AssignSubVariableOp",
    "AssignAddVariableOp",
    "Assign",
    "AssignSub",
    "AssignAdd",
)


def refusal(op: TfOp, reason: str) -> TfportInputError:
    """The one-line refusal naming the op and the model_fn line that built it."""
    return walk_refusal(
        op,
        reason,
        "the model_fn's optimizer",
        "Train with a tf.compat.v1.train or Keras optimizer, or write the optimizer's "
        "update with ops keras.ops has (see docs/way-out.md)",
    )


class TrainGraph:
    """What a train op runs: its variable writes, the gradients, the global step.

    The step a Keras optimizer's `iterations` stands for is the counter the learning rate
    (and Adam's bias correction) reads: the global step, or a tf_keras optimizer's own
    `iterations` (`step_of`). A variable the train op reads but never writes (a tf_keras
    optimizer's hyperparameters) is the constant it was initialized with (`constant`).
    """

    def __init__(
        self, graph: TfGraph, train_op: object, loss: TfTensor, trainable: list, step: object
    ) -> None:
        self.graph = graph
        self.top: TfOp = getattr(train_op, "op", train_op)
        self.ran = ancestors([self.top])
        self.grads = Gradients(graph, loss, trainable)
        self.params = list(self.grads.names)
        self.forward = frozenset(ancestors([loss.op]))
        step_op: TfOp = getattr(step, "op", step)
        self.step = variable_of(getattr(step, "handle", step)) or step_op.name
        self.global_step = self.step
        self.writes: dict[str, list[TfOp]] = {}
        self.initial: dict[str, TfTensor] = {}  # variable -> its initializer's value
        for op in self.graph.get_operations():
            if op.type in WRITES and op.name in self.ran:
                self.writes.setdefault(variable_of(op.inputs[0]), []).append(op)
            elif op.type in ("AssignVariableOp", "Assign"):
                self.initial.setdefault(variable_of(op.inputs[0]), op.inputs[1])
        self.counters = {self.step}
        for name, ops in self.writes.items():
            if len(ops) == 1 and _adds_one(ops[0], _reader_of(name)):
                self.counters.add(name)

    def constant(self, tensor: TfTensor) -> np.ndarray | None:
        """The value of a constant, or of a variable the train op never writes (the
        value it was initialized with)."""
        value = static(tensor)
        if value is not None:
            return np.asarray(value)
        variable = _reads(tensor)
        if not variable or variable in self.writes or variable in self.counters:
            return None
        init = self.initial.get(variable)
        value = None if init is None else static(init)
        return None if value is None else np.asarray(value)

    def step_of(self, tensors: list[TfTensor]) -> str:
        """The counter `tensors` read (the step Keras's `iterations` stands for): the
        global step where they read none; refused where they read two."""
        used = ancestors([t.op for t in tensors]) if tensors else set()
        read = {
            _reads(op.outputs[0])
            for op in self.graph.get_operations()
            if op.name in used and op.type in ("ReadVariableOp", "VariableV2")
        }
        found = sorted(read & self.counters)
        if len(found) > 1:
            raise refusal(tensors[0].op, f"a learning rate of two step counters {found}")
        self.step = found[0] if found else self.global_step
        return self.step

    def is_step(self, tensor: TfTensor) -> bool:
        """Whether `tensor` is a read of a step counter (the global step, a tf_keras
        optimizer's iterations)."""
        return _reads(tensor) in self.counters

    def increment(self) -> TfOp | None:
        """The train op's `global_step += 1`; refused when it updates the step otherwise."""
        ops = self.writes.get(self.step, [])
        if not ops:
            return None
        op = ops[0]
        if len(ops) == 1 and _adds_one(op, _reader_of(self.step)):
            return op
        raise refusal(op, "the global step changes other than by one per step")

    def increment_row(self, increment: TfOp, reads: list[TfTensor]) -> dict:
        """The report row of the step's increment; it says so when the model_fn reads the
        step for `reads` (the learning rate) without ordering the read before the
        increment (LAMB's `tf.group(train_op, global_step.assign(...))`): Keras reads
        `iterations` before incrementing it, as one inter-op thread runs the model_fn."""
        before = ancestors([increment])
        used = ancestors([t.op for t in reads]) if reads else set()
        unordered = any(
            op.name in used and op.name not in before and self.is_step(op.outputs[0])
            for op in self.graph.get_operations()
            if op.type in ("ReadVariableOp", "Identity")
        )
        to = "optimizer.iterations"
        if unordered:
            to += " (the learning rate reads the step unordered with this increment; Keras: before)"
        return {
            "op": increment.name,
            "type": increment.type,
            "to": to,
            "line": _ops.line_of(increment),
        }

    def check_clip(self, clip: float | None, op: TfOp) -> None:
        """Refuses a global-norm clip over a sparse gradient (not Keras's norm)."""
        if clip is not None and self.grads.sparse:
            raise refusal(
                op,
                f"gradients clipped by global norm, one sparse ({self.grads.sparse[0]!r}, "
                "a gather's): TensorFlow's norm counts a repeated row's pieces apart, "
                "Keras's global_clipnorm the summed row",
            )

    def gradient(self, tensor: TfTensor, variable: str, op: TfOp) -> float | None:
        """The clip norm of `tensor`, the (clipped) gradient of `variable`; else refused."""
        found = self.grads.match(tensor)
        if found is None or found[0] != variable:
            raise refusal(
                op,
                f"its gradient {tensor.name!r} is not the loss's gradient of {variable!r} "
                "(tf.gradients of the EstimatorSpec's loss, optionally clipped by global norm)",
            )
        return found[1]


def ancestors(tops: list[TfOp], stop: frozenset[str] | set[str] = frozenset()) -> set[str]:
    """Names of the ops running `tops` runs (data and control inputs), not walking past
    the ops named in `stop` (they are included)."""
    seen: set[str] = set()
    stack = list(tops)
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.name in stop:
            continue
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return seen


def _reads(tensor: TfTensor) -> str:
    """The variable `tensor` reads (through Identity ops), or ''."""
    op = tensor.op
    while op.type == "Identity" and op.inputs:
        op = op.inputs[0].op
    if op.type == "ReadVariableOp":
        return variable_of(op.inputs[0])
    return op.name if op.type == "VariableV2" else ""


def _reader_of(variable: str) -> Callable[[TfTensor], bool]:
    def reads(tensor: TfTensor) -> bool:
        return _reads(tensor) == variable

    return reads


def _adds_one(op: TfOp, is_step: Callable[[TfTensor], bool]) -> bool:
    value = op.inputs[1]
    if op.type in ("AssignAddVariableOp", "AssignAdd"):
        number = static(value)
        return number is not None and float(number) == 1.0
    if value.op.type not in ("AddV2", "Add"):
        return False
    a, b = value.op.inputs
    for x, y in ((a, b), (b, a)):
        number = static(y)
        if is_step(x) and number is not None and float(number) == 1.0:
            return True
    return False
