"""`tf.cond` and `tf.while_loop` (the If / While ops of TF2 control flow) as a custom layer
whose `call` runs `ops.cond` / `ops.while_loop`, written into model.py.

A branch, a loop condition or a loop body is a function graph of its own; its ops are
written as `keras.ops` calls in a nested function of the layer's `call` (with the
model_fn line comments); the variables it reads are the layer's weights. A loop value
the body passes on unchanged (a `maximum_iterations`, a variable) is no loop variable:
the functions read it where it comes from; one no output, condition or other loop
variable reads is dropped. Control flow nested in a branch or body is refused.

Example:
    >>> loop(walk, graph.get_operation_by_name("while"))  # doctest: +SKIP
    True
"""

from __future__ import annotations

import os

from tfport._common import tf_internals
from tfport._common.types import FunctionGraph
from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import Refused, TfOp, TfTensor
from tfport.keras._modelfn._walk import RESERVED, Walk, needed_ops

_NESTED = ("If", "StatelessIf", "While", "StatelessWhile")
_INDENT = "    "


class _Layer:
    """The source of one control-flow layer class: names, weights, call arguments."""

    def __init__(self, walk: Walk, op: TfOp, layer: str) -> None:
        self.walk, self.op, self.layer = walk, op, layer
        self.names: set[str] = set(RESERVED) | {"self", "cond", "body", "true_fn", "false_fn"}
        self.weights: dict[str, tuple[str, tuple]] = {}  # variable -> (attribute, shape)
        self.params: list[str] = []  # call arguments
        self.args: list[str] = []  # what build_model passes them

    def name(self, hint: str) -> str:
        base = "".join(c if c.isalnum() else "_" for c in hint).strip("_").lower() or "t"
        base = "t_" + base if base[0].isdigit() else base
        candidate, i = base, 1
        while candidate in self.names:
            i += 1
            candidate = f"{base}_{i}"
        self.names.add(candidate)
        return candidate

    def outer(self, tensor: TfTensor) -> str:
        """The expression in `call` of an input of the op: a weight, a literal, an argument."""
        if tensor.dtype.name == "resource":
            return self.weight(tensor)
        if tensor.name in self.walk.expr:
            source = self.walk.expr[tensor.name]
            if source in self.args:
                return self.params[self.args.index(source)]
            param = self.name(source if source.isidentifier() else tensor.op.name)
            self.params.append(param)
            self.args.append(source)
            return param
        try:
            text = _ops.literal(tensor)
        except Refused as err:
            raise self.walk.refuse(self.op, f"its input {tensor.name!r}: {err}") from None
        self.walk.plan.uses_numpy |= text.startswith("np.")
        return text

    def weight(self, handle: TfTensor) -> str:
        source = handle.op
        while source.type == "Identity" and source.inputs:
            source = source.inputs[0].op
        if source.type != "VarHandleOp":
            raise self.walk.refuse(self.op, "it reads a variable that is not a resource variable")
        if source.name not in self.weights:
            shape = tuple(d.size for d in source.get_attr("shape").dim)
            if any(d < 0 for d in shape) or not source.get_attr("dtype").is_floating:
                raise self.walk.refuse(self.op, f"variable {source.name!r} is not float or sized")
            self.weights[source.name] = (self.name(source.name), shape)
        return "self." + self.weights[source.name][0]

    def function(
        self, fn: str, graph: FunctionGraph, inputs: list[str], params: list[str], pick: list[int]
    ) -> list[str]:
        """`def fn(params):` returning the function graph's outputs `pick`, `inputs[i]`
        being the expression of its i-th input."""
        expr = {t.name: e for t, e in zip(graph.inputs, inputs, strict=True)}
        outputs = [graph.outputs[i] for i in pick]
        lines, where = [f"def {fn}({', '.join(params)}):"], ("", 0)
        for op in needed_ops(graph, outputs):
            if op.type in ("Placeholder", "Const") or not op.outputs or op.outputs[0].name in expr:
                continue
            if op.type == "ReadVariableOp":
                expr[op.outputs[0].name] = expr[op.inputs[0].name]
                continue
            if op.type in _NESTED:
                raise self.walk.refuse(
                    op,
                    "control flow nested in a tf.cond branch or a "
                    "tf.while_loop body (only one level converts)",
                )
            args = [self._arg(op, t, expr) for t in _ops.data_inputs(op)]
            try:
                text, to = _ops.expression(op, args)
            except Refused as err:
                raise self.walk.refuse(op, str(err)) from None
            self.walk.plan.uses_numpy |= "np." in text
            path, number, code = _ops.source_line(op)
            line = f"{os.path.basename(path)}:{number}" if path else ""
            if path and (path, number) != where:
                where = (path, number)
                lines.append(f"{_INDENT}# {line}: {code}")
            if op.type in _ops.PASS:
                expr[op.outputs[0].name] = args[0]
            else:
                var = self.name(op.name.rpartition("/")[2])
                lines.append(f"{_INDENT}{var} = {text}")
                expr[op.outputs[0].name] = var
            self.walk.plan.ops.append(
                {"op": f"{self.op.name}/{fn}/{op.name}", "type": op.type, "to": to, "line": line}
            )
        results = [self._arg(self.op, t, expr) for t in outputs]
        comma = "," if len(results) == 1 and fn == "body" else ""  # loop vars: a tuple
        lines.append(f"{_INDENT}return {', '.join(results)}{comma}")
        return lines

    def _arg(self, op: TfOp, tensor: TfTensor, expr: dict[str, str]) -> str:
        if tensor.name in expr:
            return expr[tensor.name]
        try:
            text = _ops.literal(tensor)
        except Refused as err:
            raise self.walk.refuse(op, str(err)) from None
        self.walk.plan.uses_numpy |= text.startswith("np.")
        return text

    def write(self, call: list[str], outputs: list[str]) -> None:
        """Adds the class to model.py and `outputs = Class(name=...)(args)` to build_model."""
        walk = self.walk
        cls = "".join(p.capitalize() for p in self.layer.split("_")) + "Layer"
        init = ["def __init__(self, **kwargs):", f"{_INDENT}super().__init__(**kwargs)"]
        for attr, shape in self.weights.values():
            init.append(
                f"{_INDENT}self.{attr} = self.add_weight(shape={shape!r}, "
                f'initializer="zeros", name={attr!r})'
            )
        path, number, code = _ops.source_line(self.op)
        code = code.replace("\\", "\\\\").replace('"""', "'''")  # in a docstring
        origin = f" ({os.path.basename(path)}:{number}: {code})" if path else ""
        kind = "tf.while_loop" if "While" in self.op.type else "tf.cond"
        body = [
            f'"""`{kind}` of the model_fn{origin}."""',
            "",
            *init,
            "",
            f"def call(self, {', '.join(self.params)}):",
            *(_INDENT + line if line else "" for line in call),
        ]
        walk.plan.classes.append(
            f"\n\n@keras.saving.register_keras_serializable(package={_package(walk)!r})\n"
            f"class {cls}(layers.Layer):\n" + "\n".join(_INDENT + b if b else "" for b in body)
        )
        line = walk.comment(self.op)
        target = ", ".join(outputs) + ("," if len(outputs) == 1 and "While" in self.op.type else "")
        walk.plan.lines.append(f"{target} = {cls}(name={self.layer!r})({', '.join(self.args)})")
        walk.plan.layers[self.layer] = list(self.weights)
        for variable, (attr, _) in self.weights.items():
            walk.plan.assign(variable, self.layer, attr)
        call_name = "ops.while_loop" if "While" in self.op.type else "ops.cond"
        walk.record(self.op, f"{cls} {self.layer!r} ({call_name})", line)


def _package(walk: Walk) -> str:
    """The registered package of the model's layers: their names are the model_fn's own."""
    fn = walk.traced.model_fn
    return f"tfport_export.{getattr(fn, '__name__', type(fn).__name__)}"


def _reads(graph: FunctionGraph, tensor: TfTensor) -> set[int]:
    """The indices of the function graph's inputs that `tensor` is computed from."""
    names = {t.name: i for i, t in enumerate(graph.inputs)}
    return {
        names[t.name] for op in needed_ops(graph, [tensor]) for t in op.outputs if t.name in names
    }


def _function_graph(walk: Walk, op: TfOp, attr: str) -> FunctionGraph:
    return tf_internals.function_graph(walk.traced.graph, op.get_attr(attr).name)


def cond(walk: Walk, op: TfOp) -> bool:
    """`ops.cond(pred, true_fn, false_fn)` in a layer for an If / StatelessIf op."""
    layer = _Layer(walk, op, walk.name(op.name))
    pred = layer.outer(op.inputs[0])
    inputs = [layer.outer(t) for t in op.inputs[1:]]
    call = []
    for fn, attr in (("true_fn", "then_branch"), ("false_fn", "else_branch")):
        graph = _function_graph(walk, op, attr)
        pick = list(range(len(op.outputs)))
        call += [*layer.function(fn, graph, inputs, [], pick), ""]
    call.append(f"return ops.cond({pred}, true_fn, false_fn)")
    outputs = [
        walk.name(f"{layer.layer}_out") if walk.users.get(t.name) else "_" for t in op.outputs
    ]
    for tensor, var in zip(op.outputs, outputs, strict=True):
        walk.expr[tensor.name] = var
    layer.write(call, outputs)
    return True


def _passed_on(body: FunctionGraph, index: int) -> bool:
    """Whether the loop body returns its input `index` unchanged."""
    out: TfTensor = body.outputs[index]
    while out.op.type == "Identity":
        out = out.op.inputs[0]
    return out.name == body.inputs[index].name


def loop(walk: Walk, op: TfOp) -> bool:
    """`ops.while_loop(cond, body, loop_vars)` in a layer for a While / StatelessWhile op."""
    layer = _Layer(walk, op, walk.name(op.name + "_loop"))
    test, body = _function_graph(walk, op, "cond"), _function_graph(walk, op, "body")
    fixed = {i for i in range(len(op.inputs)) if _passed_on(body, i)}
    live = {i for i, t in enumerate(op.outputs) if walk.users.get(t.name)}
    live |= _reads(test, test.outputs[0])
    live -= fixed
    grown = True
    while grown:
        more = set().union(*(_reads(body, body.outputs[i]) for i in live)) - fixed - live
        grown, live = bool(more), live | more
    order = sorted(live)
    for i in order:
        before: TfTensor = body.inputs[i].shape
        after: TfTensor = body.outputs[i].shape
        if before.rank is None or before.as_list() != after.as_list():
            raise walk.refuse(op, "a loop variable changes shape from one iteration to the next")
    start = {i: layer.outer(op.inputs[i]) for i in order}
    passed = {layer.outer(op.inputs[i]) for i in fixed}
    names: dict[int, str] = {}
    for i in order:  # a loop variable is named after its start value, which it shadows
        if start[i].isidentifier() and start[i] not in passed and start[i] not in names.values():
            names[i] = start[i]
        else:
            names[i] = layer.name("i" if op.inputs[i].dtype.is_integer else "v")
        if not start[i].isidentifier():
            start[i] = f"ops.convert_to_tensor({start[i]}, dtype={op.inputs[i].dtype.name!r})"
    inputs = [
        names[i] if i in live else layer.outer(t) if i in fixed else "None"
        for i, t in enumerate(op.inputs)
    ]
    params = [names[i] for i in order]
    call = [*layer.function("cond", test, inputs, params, [0]), ""]
    call += [*layer.function("body", body, inputs, params, order), ""]
    loop_vars = ", ".join(start[i] for i in order) + ("," if len(order) == 1 else "")
    call.append(f"return ops.while_loop(cond, body, ({loop_vars}))")
    outputs = []
    for i, tensor in enumerate(op.outputs):
        if i in live:
            var = walk.name(f"{layer.layer}_{names[i]}") if walk.users.get(tensor.name) else "_"
            outputs.append(var)
            walk.expr[tensor.name] = var
        elif i in fixed and op.inputs[i].name in walk.expr:
            walk.expr[tensor.name] = walk.expr[op.inputs[i].name]
    layer.write(call, outputs)
    return True


PATTERNS = {"If": cond, "StatelessIf": cond, "While": loop, "StatelessWhile": loop}
