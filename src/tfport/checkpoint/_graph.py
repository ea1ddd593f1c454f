"""Optimizer hyperparameters from a TF1 `graph.pbtxt`, read without TensorFlow.

TF1 checkpoints hold no optimizer hyperparameters; the training graph does, as
scalar inputs of the `Apply*` ops (`ResourceApplyAdagrad`, `ResourceSparseApplyFtrl`,
...). The graph is parsed into a GraphDef by the shared proto layer
(`tfport._common.protos`: protobuf's `text_format`, or the binary parser for `.pb`);
this module finds each slot variable's `Apply*` op and evaluates its scalar inputs
(Const, Identity, Cast and simple arithmetic), never executing the graph.

Example:
    >>> GraphHyperparameters("model_dir/graph.pbtxt").for_variable("dense/kernel")  # doctest: +SKIP
    {'learning_rate': 0.05}
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from tfport._common import protos
from tfport._common.errors import TfportInputError, message
from tfport._common.messages import NodeDef
from tfport.checkpoint._errors import CheckpointError

# op -> {hyperparameter: input position}; negative positions count from the end.
_INPUTS = {
    "ApplyAdagrad": {"learning_rate": 2},
    "ApplyAdagradV2": {"learning_rate": 2},
    "SparseApplyAdagrad": {"learning_rate": 2},
    "SparseApplyAdagradV2": {"learning_rate": 2},
    "ApplyFtrl": {"learning_rate": 4, "l1": 5, "l2": 6, "learning_rate_power": -1},
    "ApplyFtrlV2": {"learning_rate": 4, "l1": 5, "l2": 6, "learning_rate_power": -1},
    "SparseApplyFtrl": {"learning_rate": 5, "l1": 6, "l2": 7, "learning_rate_power": -1},
    "SparseApplyFtrlV2": {"learning_rate": 5, "l1": 6, "l2": 7, "learning_rate_power": -1},
    "ApplyAdam": {"learning_rate": 5, "beta_1": 6, "beta_2": 7, "epsilon": 8},
    "ApplyRMSProp": {"learning_rate": 3, "rho": 4, "momentum": 5, "epsilon": 6},
    "SparseApplyRMSProp": {"learning_rate": 3, "rho": 4, "momentum": 5, "epsilon": 6},
    "ApplyCenteredRMSProp": {"learning_rate": 4, "rho": 5, "momentum": 6, "epsilon": 7},
    "ApplyMomentum": {"learning_rate": 2, "momentum": 4},
    "SparseApplyMomentum": {"learning_rate": 2, "momentum": 5},
    "ApplyGradientDescent": {"learning_rate": 1},
}
_KERAS_NAMES = {"l1": "l1_regularization_strength", "l2": "l2_regularization_strength"}
_PART = re.compile(r"/part_\d+$")


def _bad(path: str, what: str) -> CheckpointError:
    return CheckpointError(
        message(f"Cannot read graph {path}: {what}", "Pass the model_dir's graph.pbtxt", path=path)
    )


_FIELDS = ("float_val", "double_val", "int_val", "int64_val")


def _const_value(node: NodeDef) -> float | None:
    if "value" not in node.attr:
        return None
    tensor = node.attr["value"].tensor
    for field in _FIELDS:
        values = getattr(tensor, field)
        if values:
            return float(values[0])
    if tensor.half_val:  # float16 bit patterns
        return float(np.array([tensor.half_val[0]], np.uint16).view(np.float16)[0])
    return 0.0 if not tensor.tensor_content else None


_BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "Add": lambda a, b: a + b,
    "AddV2": lambda a, b: a + b,
    "Sub": lambda a, b: a - b,
    "Mul": lambda a, b: a * b,
    "RealDiv": lambda a, b: a / b,
    "Maximum": max,
    "Minimum": min,
}


class GraphHyperparameters:
    """Scalar hyperparameters of the optimizer ops in a `graph.pbtxt`."""

    def __init__(self, path: str) -> None:
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError as err:
            raise _bad(path, err.strerror or type(err).__name__) from None
        cls = protos.graph_def_class()
        try:
            if path.endswith(".pb"):
                graph = protos.parse_binary(data, cls, path)
            else:
                graph = protos.parse_text(data, cls, path)
        except TfportInputError as err:
            raise CheckpointError(str(err)) from None
        self.nodes = {n.name: n for n in graph.node if n.name}
        if not self.nodes:
            raise _bad(path, "no nodes found")
        # One pass: the first optimizer op updating each variable (linear in the graph).
        self._updates: dict[str, tuple[str, list[str]]] = {}
        for node in self.nodes.values():
            op = node.op.removeprefix("Resource")
            if op in _INPUTS and node.input:
                target = _PART.sub("", node.input[0].split(":")[0])
                self._updates.setdefault(target, (op, list(node.input)))
        self._values: dict[str, float | None] = {}

    def evaluate(self, name: str, depth: int = 0) -> float | None:
        """The value of a scalar node, or None when it is not constant."""
        key = name.split(":")[0].lstrip("^")
        if key not in self._values:
            self._values[key] = self._evaluate(key, depth)
        return self._values[key]

    def _evaluate(self, key: str, depth: int) -> float | None:
        node = self.nodes.get(key)
        if node is None or depth > 20:
            return None
        op = node.op
        inputs = [i for i in node.input if not i.startswith("^")]
        if op == "Const":
            return _const_value(node)
        if op in ("Identity", "Cast") and inputs:
            return self.evaluate(inputs[0], depth + 1)
        if op in _BINARY and len(inputs) == 2:
            a, b = (self.evaluate(i, depth + 1) for i in inputs)
            return None if a is None or b is None else _BINARY[op](a, b)
        return None

    def for_variable(self, var: str) -> dict[str, float]:
        """Keras-named hyperparameters of the optimizer op updating checkpoint variable `var`."""
        found = self._updates.get(var)
        return self._hyper(*found) if found else {}

    def _hyper(self, op: str, inputs: list[str]) -> dict[str, float]:
        out = {}
        for key, index in _INPUTS[op].items():
            value = self.evaluate(inputs[index]) if -len(inputs) <= index < len(inputs) else None
            if value is None:
                continue
            out[_KERAS_NAMES.get(key, key)] = value
        if "l2_regularization_strength" in out and op.endswith(("Ftrl", "FtrlV2")):
            out.update(self._ftrl_l2(inputs[_INPUTS[op]["l2"]]))
        return out

    def _ftrl_l2(self, l2_input: str) -> dict[str, float]:
        # TF1 Ftrl feeds l2 + beta / (2 * max(lr, eps)); Keras keeps l2 and beta apart.
        node = self.nodes.get(l2_input.split(":")[0])
        if node is None or node.op not in ("Add", "AddV2") or not node.input:
            return {}
        raw = self.evaluate(node.input[0])
        scope = l2_input.split(":")[0].rpartition("/")[0]
        beta = self.evaluate(scope + "/beta")
        out = {}
        if raw is not None:
            out["l2_regularization_strength"] = raw
        if beta is not None:
            out["beta"] = beta
        return out
