"""Optimizer hyperparameters from a TF1 `graph.pbtxt`, read as text (no TensorFlow).

TF1 checkpoints hold no optimizer hyperparameters; the training graph does, as
scalar inputs of the `Apply*` ops (`ResourceApplyAdagrad`, `ResourceSparseApplyFtrl`,
...). This module parses protobuf text format generically, finds each slot
variable's `Apply*` op and evaluates its scalar inputs (Const, Identity, Cast and
simple arithmetic), never executing the graph.

Example:
    >>> parse_text('node { name: "a" op: "Const" }')["node"][0]["name"]
    ['a']
"""

from __future__ import annotations

import re

from tfport._common.errors import message
from tfport.checkpoint._errors import CheckpointError

_TOKEN = re.compile(
    rb'\s*(?:#[^\n]*\n\s*)*(?:([A-Za-z_][\w.]*)|("(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')'
    rb"|([-+]?[\w.+-]+)|([{}:<>\[\],;]))"
)

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


def parse_text(text: str | bytes) -> dict:
    """Parses protobuf text format into nested dicts of lists (values stay strings)."""
    data = text.encode() if isinstance(text, str) else text
    tokens = [m.group(m.lastindex) for m in _TOKEN.finditer(data) if m.lastindex]
    pos = 0

    def message_body(end: bytes | None) -> dict:
        nonlocal pos
        out: dict = {}
        while pos < len(tokens):
            tok = tokens[pos]
            if tok == end:
                pos += 1
                return out
            key = tok.decode()
            pos += 1
            if tokens[pos] == b":":
                pos += 1
            if tokens[pos] in (b"{", b"<"):
                close = b"}" if tokens[pos] == b"{" else b">"
                pos += 1
                out.setdefault(key, []).append(message_body(close))
            else:
                out.setdefault(key, []).append(_scalar(tokens[pos]))
                pos += 1
            if pos < len(tokens) and tokens[pos] in (b",", b";"):
                pos += 1
        if end is not None:
            raise ValueError("unbalanced braces")
        return out

    return message_body(None)


def _scalar(tok: bytes) -> str:
    if tok[:1] in (b'"', b"'"):
        return tok[1:-1].decode("unicode_escape")
    return tok.decode()


def _const_value(node: dict) -> float | None:
    for attr in node.get("attr", []):
        if attr["key"] == ["value"]:
            tensor = attr["value"][0].get("tensor", [{}])[0]
            for field in ("float_val", "double_val", "int_val", "int64_val", "half_val"):
                if tensor.get(field):
                    return float(tensor[field][0])
            return 0.0 if "tensor_content" not in tensor else None
    return None


_BINARY = {
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
                tree = parse_text(f.read())
        except (OSError, ValueError, IndexError, UnicodeDecodeError) as err:
            raise _bad(path, str(err)) from None
        self.nodes = {n["name"][0]: n for n in tree.get("node", []) if n.get("name")}
        if not self.nodes:
            raise _bad(path, "no nodes found")

    def evaluate(self, name: str, depth: int = 0) -> float | None:
        """The value of a scalar node, or None when it is not constant."""
        node = self.nodes.get(name.split(":")[0].lstrip("^"))
        if node is None or depth > 20:
            return None
        op = node.get("op", [""])[0]
        inputs = [i for i in node.get("input", []) if not i.startswith("^")]
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
        for node in self.nodes.values():
            op = node.get("op", [""])[0].removeprefix("Resource")
            inputs = node.get("input", [])
            if op not in _INPUTS or not inputs:
                continue
            target = _PART.sub("", inputs[0].split(":")[0])
            if target != var:
                continue
            return self._hyper(op, inputs)
        return {}

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
        if node is None or node.get("op", [""])[0] not in ("Add", "AddV2"):
            return {}
        raw = self.evaluate(node["input"][0])
        scope = l2_input.split(":")[0].rpartition("/")[0]
        beta = self.evaluate(scope + "/beta")
        out = {}
        if raw is not None:
            out["l2_regularization_strength"] = raw
        if beta is not None:
            out["beta"] = beta
        return out
