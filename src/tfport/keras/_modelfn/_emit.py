"""The traced PREDICT graph -> the body of `build_model()` in `model.py`, plus the report.

The ops the predictions need are walked in graph order. A `MatMul` of a 2-D input by a
variable (then `BiasAdd` of a variable, then an activation, each the only user of the
last) is a `layers.Dense` named after the variable scope; every other op is a
`keras.ops` call (`_ops.expression`); a variable read anywhere else is a `Variable`
layer (defined in model.py) holding its checkpoint value.

Example:
    >>> plan = plan_model(traced)  # doctest: +SKIP
    >>> plan.layers["hidden"]  # doctest: +SKIP
    ['hidden/kernel', 'hidden/bias']
"""

from __future__ import annotations

import dataclasses
import os
import re

from tfport._common.errors import TfportInputError, message
from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import Refused, TfOp, TfTensor
from tfport.keras._modelfn._trace import Traced

VARIABLE_OPS = ("VarHandleOp", "VariableV2", "VarIsInitializedOp")
_KEYWORDS = {"keras", "layers", "ops", "np", "inputs", "outputs", "model"}


@dataclasses.dataclass
class Plan:
    """What model.py's `build_model()` does and where each weight comes from."""

    lines: list[str] = dataclasses.field(default_factory=list)
    inputs: dict[str, tuple[str, str]] = dataclasses.field(
        default_factory=dict
    )  # key -> (var, Input)
    outputs: dict[str, str] = dataclasses.field(default_factory=dict)  # key -> expression
    layers: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # name -> variables
    ops: list[dict] = dataclasses.field(default_factory=list)
    variables: dict[str, dict] = dataclasses.field(default_factory=dict)
    uses_numpy: bool = False
    uses_variable: bool = False


class _Walk:
    """State of one walk over the traced graph."""

    def __init__(self, traced: Traced) -> None:
        self.traced = traced
        self.plan = Plan()
        self.expr: dict[str, str] = {}  # tensor name -> Python expression
        self.names: set[str] = set(_KEYWORDS)
        self.done: set[str] = set()
        self.where = ("", 0)
        self.needed = self._needed()
        self.users = self._users()

    # ----------------------------------------------------------------- graph facts
    def _needed(self) -> list[TfOp]:
        seen: set[str] = set()
        stack = [t.op for t in self.traced.predictions.values()]
        while stack:
            op = stack.pop()
            if op.name in seen:
                continue
            seen.add(op.name)
            if op.type in ("Placeholder", "ReadVariableOp"):
                continue
            skip = _static_only(op)
            stack.extend(t.op for i, t in enumerate(op.inputs) if i not in skip)
        return [op for op in self.traced.graph.get_operations() if op.name in seen]

    def _users(self) -> dict[str, int]:
        count: dict[str, int] = {}
        for op in self.needed:
            for t in op.inputs:
                count[t.name] = count.get(t.name, 0) + 1
        for t in self.traced.predictions.values():
            count[t.name] = count.get(t.name, 0) + 1
        return count

    def only_user(self, tensor: TfTensor, kind: str | tuple) -> TfOp | None:
        """The single needed op of type `kind` reading `tensor`, if it is its only user."""
        if self.users.get(tensor.name) != 1:
            return None
        kinds = (kind,) if isinstance(kind, str) else kind
        for op in self.needed:
            if op.type in kinds and any(t.name == tensor.name for t in op.inputs):
                return op
        return None

    # ----------------------------------------------------------------- source
    def name(self, hint: str) -> str:
        base = re.sub(r"\W+", "_", hint).strip("_").lower() or "t"
        if base[0].isdigit():
            base = "t_" + base
        candidate, i = base, 1
        while candidate in self.names:
            i += 1
            candidate = f"{base}_{i}"
        self.names.add(candidate)
        return candidate

    def comment(self, op: TfOp) -> str:
        path, line, code = _ops.source_line(op)
        if (path, line) != self.where and path:
            self.where = (path, line)
            self.plan.lines.append(f"# {os.path.basename(path)}:{line}: {code}")
        return f"{os.path.basename(path)}:{line}" if path else ""

    def record(self, op: TfOp, to: str, line: str) -> None:
        self.plan.ops.append({"op": op.name, "type": op.type, "to": to, "line": line})

    def refuse(self, op: TfOp, reason: str) -> TfportInputError:
        path, line, code = _ops.source_line(op)
        where = f"{path}:{line} ({code})" if path else "a line outside user code"
        return TfportInputError(
            message(
                f"Cannot export the model_fn to Keras: op {op.name!r} ({op.type}) built at "
                f"{where}: {reason}",
                "Rewrite that part of the model_fn with ops keras.ops has (see "
                "docs/way-out.md), or export by hand with `tfport ckpt port`",
                op=op.name,
            )
        )


def _static_only(op: TfOp) -> tuple:
    if op.type == "ConcatV2":
        return (len(op.inputs) - 1,)
    return _ops.STATIC_INPUTS.get(op.type, ())


def _variable_name(read: TfOp) -> str:
    source = read.inputs[0].op if read.type == "ReadVariableOp" else read
    return source.name


def _scope(variable: str) -> str:
    return variable.rpartition("/")[0] or variable


def _dense(walk: _Walk, op: TfOp) -> bool:
    """Emits a Dense layer for MatMul(x, kernel) [+ bias] [+ activation]; False if not one."""
    a, b = op.inputs
    if (
        b.op.type != "ReadVariableOp"
        or a.op.type == "ReadVariableOp"
        or op.get_attr("transpose_a")
        or op.get_attr("transpose_b")
        or a.shape.rank != 2
        or a.name not in walk.expr
    ):
        return False
    kernel = _variable_name(b.op)
    weights, fused, last = [kernel], [op], op.outputs[0]
    bias_op = walk.only_user(last, ("BiasAdd", "AddV2", "Add"))
    if bias_op is not None:
        other = [t for t in bias_op.inputs if t.name != last.name]
        if len(other) == 1 and other[0].op.type == "ReadVariableOp" and other[0].shape.rank == 1:
            weights.append(_variable_name(other[0].op))
            fused.append(bias_op)
            last = bias_op.outputs[0]
    act_op = walk.only_user(last, tuple(_ops.ACTIVATIONS))
    activation = _ops.ACTIVATIONS[act_op.type] if act_op is not None else None
    if act_op is not None:
        fused.append(act_op)
        last = act_op.outputs[0]
    layer = walk.name(_scope(kernel))
    line = walk.comment(op)
    units = int(b.shape[-1])
    args = f"{units}, activation={activation!r}, use_bias={len(weights) == 2}, name={layer!r}"
    var = walk.name(layer + "_out")
    walk.plan.lines.append(f"{var} = layers.Dense({args})({walk.expr[a.name]})")
    walk.plan.layers[layer] = weights
    for i, w in enumerate(weights):
        walk.plan.variables[w] = {"layer": layer, "weight": ("kernel", "bias")[i]}
    for f in fused:
        walk.record(f, f"layers.Dense {layer!r}", line)
        walk.done.add(f.name)
    walk.expr[last.name] = var
    return True


def _variable(walk: _Walk, op: TfOp) -> None:
    variable = _variable_name(op)
    dtype = op.outputs[0].dtype
    if not dtype.is_floating:
        raise walk.refuse(op, f"a {dtype.name} variable (only float variables convert)")
    layer = walk.name(variable)
    line = walk.comment(op)
    anchor = next(iter(walk.plan.inputs.values()))[0]
    shape = tuple(op.outputs[0].shape.as_list())
    walk.plan.lines.append(
        f"{layer} = Variable({shape!r}, dtype={dtype.name!r}, name={layer!r})({anchor})"
    )
    walk.plan.layers[layer] = [variable]
    walk.plan.variables[variable] = {"layer": layer, "weight": "value"}
    walk.plan.uses_variable = True
    walk.record(op, f"Variable {layer!r}", line)
    walk.expr[op.outputs[0].name] = layer


def _generic(walk: _Walk, op: TfOp) -> None:
    if op.type == "Const":
        return  # written inline where used
    args = []
    for t in _ops.data_inputs(op):
        if t.op.type == "ReadVariableOp" and t.name not in walk.expr:
            _variable(walk, t.op)  # made where first used (a Dense's reads never are)
        if t.name in walk.expr:
            args.append(walk.expr[t.name])
        elif t.op.type == "Const" or _ops.static(t) is not None:
            try:
                args.append(_ops.literal(t))
            except Refused as err:
                raise walk.refuse(op, str(err)) from None
            walk.plan.uses_numpy |= args[-1].startswith("np.")
        else:
            raise walk.refuse(op, f"its input {t.name!r} has no Keras form")
    try:
        text, to = _ops.expression(op, args)
    except Refused as err:
        raise walk.refuse(op, str(err)) from None
    line = walk.comment(op)
    if op.type in _ops.PASS:
        walk.expr[op.outputs[0].name] = args[0]
    else:
        var = walk.name(op.name.rpartition("/")[2] if "/" in op.name else op.name)
        walk.plan.lines.append(f"{var} = {text}")
        walk.expr[op.outputs[0].name] = var
    walk.record(op, to, line)


def plan_model(traced: Traced) -> Plan:
    """Walks the PREDICT graph; returns the build_model body or raises the first refusal.

    Example:
        >>> plan_model(trace(estimator, "model_dir", {})).lines[0]  # doctest: +SKIP
        "# train.py:12: net = tf.compat.v1.layers.dense(features, 16, name='hidden')"
    """
    walk = _Walk(traced)
    for key, tensor in traced.features.items():
        var = walk.name(key)
        dims = tuple(tensor.shape.as_list()[1:])
        source = f"keras.Input(shape={dims!r}, dtype={tensor.dtype.name!r}, name={key!r})"
        walk.plan.inputs[key] = (var, source)
        walk.expr[tensor.name] = var
    for op in walk.needed:
        if op.name in walk.done or op.type in ("Placeholder", "ReadVariableOp"):
            continue
        if op.type in ("VariableV2", "VarHandleOp"):
            raise walk.refuse(op, "a reference variable read without ReadVariableOp")
        elif not (op.type == "MatMul" and _dense(walk, op)):
            _generic(walk, op)
    for key, tensor in traced.predictions.items():
        if tensor.op.type == "ReadVariableOp" and tensor.name not in walk.expr:
            _variable(walk, tensor.op)
        if tensor.name not in walk.expr:
            raise walk.refuse(tensor.op, f"the prediction {key!r} has no Keras form")
        walk.plan.outputs[key] = walk.expr[tensor.name]
    for op in traced.graph.get_operations():
        if op.type in ("VarHandleOp", "VariableV2") and op.name not in walk.plan.variables:
            walk.plan.variables[op.name] = {"refused": "not read in PREDICT mode (not exported)"}
    return walk.plan
