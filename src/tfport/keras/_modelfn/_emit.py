"""The traced PREDICT graph -> the body of `build_model()` in `model.py`, plus the report.

The ops the predictions need are walked in graph order. A `MatMul` of a 2-D input by a
variable (then `BiasAdd` of a variable, then an activation, each the only user of the
last) is a `layers.Dense` named after the variable scope, and so on for the patterns of
`_layers` and `_convs` (`PATTERNS`, matched at their first op; `tf.cond`/`tf.while_loop`:
`_control`); layers whose first ops
come before the walk may write them (layer normalization, Conv1D: `REGIONS`) are matched
before the walk and written at their last op. Every other op is a `keras.ops` call
(`_ops.expression`); a variable read anywhere else is a `Variable` layer (defined in
model.py) holding its checkpoint value.

Example:
    >>> plan = plan_model(traced)  # doctest: +SKIP
    >>> plan.layers["hidden"]  # doctest: +SKIP
    ['hidden/kernel', 'hidden/bias']
"""

from __future__ import annotations

from tfport.keras._modelfn import (
    _control,
    _convs,
    _features,
    _layers,
    _lookups,
    _norms,
    _ops,
    _tables,
)
from tfport.keras._modelfn._ops import Refused, TfOp, TfTensor
from tfport.keras._modelfn._recurrent import plan_recurrent
from tfport.keras._modelfn._trace import Traced
from tfport.keras._modelfn._walk import Plan, Walk, variable_name

PATTERNS = {**_layers.PATTERNS, **_convs.PATTERNS, **_control.PATTERNS, **_lookups.PATTERNS}
REGIONS = {**_layers.REGIONS, **_norms.REGIONS, **_convs.REGIONS, **_tables.REGIONS}  # pre-walk


def _variable(walk: Walk, op: TfOp) -> None:
    variable = variable_name(op)
    if walk.tie and variable in walk.tied_layers:
        walk.expr[op.outputs[0].name] = walk.tied_layers[variable]  # one weight, shared
        return
    handle = op.type == "VarHandleOp"  # a ResourceGather's table
    dtype = op.get_attr("dtype") if handle else op.outputs[0].dtype
    if not dtype.is_floating:
        raise walk.refuse(op, f"a {dtype.name} variable (only float variables convert)")
    layer = walk.name(variable)
    line = walk.comment(op)
    anchor = next(iter(walk.plan.inputs.values()))[0]
    if handle:
        shape = tuple(d.size for d in op.get_attr("shape").dim)
    else:
        shape = tuple(op.outputs[0].shape.as_list())
    walk.plan.lines.append(
        f"{layer} = Variable({shape!r}, dtype={dtype.name!r}, name={layer!r})({anchor})"
    )
    walk.tied_layers[variable] = layer
    walk.plan.layers[layer] = [variable]
    walk.plan.assign(variable, layer, "value")
    walk.plan.uses_variable = True
    walk.record(op, f"Variable {layer!r}", line)
    walk.expr[op.outputs[0].name] = layer


def _generic(walk: Walk, op: TfOp) -> None:
    if op.type == "Const":
        return  # written inline where used
    args = []
    for t in _ops.data_inputs(op):
        shared_table = walk.tie and t.op.type == "VarHandleOp" and op.type == "ResourceGather"
        if (_layers.is_variable(t) or shared_table) and t.name not in walk.expr:
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
    walk.plan.uses_numpy |= text.startswith("np.")
    if op.type in _ops.PASS:
        walk.expr[op.outputs[0].name] = args[0]
    else:
        var = walk.name(op.name.rpartition("/")[2] if "/" in op.name else op.name)
        walk.plan.lines.append(f"{var} = {text}")
        walk.expr[op.outputs[0].name] = var
    walk.record(op, to, line)


def _dropout(walk: Walk, tensor: TfTensor, site: tuple[float, TfOp]) -> None:
    """`layers.Dropout` on `tensor` (read through a dropout in TRAIN mode, `site`: its rate
    and op there): its readers get the dropout's output, the same tensor at inference."""
    rate, train_op = site
    line = walk.comment(train_op)
    layer = walk.name("dropout")
    var = walk.name(layer + "_out")
    walk.plan.lines.append(
        f"{var} = layers.Dropout({rate!r}, name={layer!r})({walk.expr[tensor.name]})"
    )
    walk.plan.ops.append(
        {
            "op": train_op.name,
            "type": train_op.type,
            "to": f"layers.Dropout {layer!r}",
            "line": line,
        }
    )
    walk.expr[tensor.name] = var


def plan_model(
    traced: Traced, dropouts: dict[str, tuple[float, TfOp]] | None = None, tie: bool = False
) -> Plan:
    """Walks the PREDICT graph; returns the build_model body or raises the first refusal.

    `dropouts` (PREDICT tensor -> (rate, the TRAIN graph's dropout op)) puts a
    `layers.Dropout` where its readers read that tensor. With `tie` (a training export), a
    variable several ops read is one `Variable` layer they all read, so that `fit` trains
    one weight with all its gradients; without, each reading layer holds a copy.

    Example:
        >>> plan_model(trace(estimator, "model_dir", {})).lines[0]  # doctest: +SKIP
        "# train.py:12: net = tf.compat.v1.layers.dense(features, 16, name='hidden')"
    """
    walk = Walk(traced)
    walk.tie = tie
    for key, tensor in traced.features.items():
        var = walk.name(key)
        dims = tuple(tensor.shape.as_list()[1:])
        source = f"keras.Input(shape={dims!r}, dtype={tensor.dtype.name!r}, name={key!r})"
        walk.plan.inputs[key] = (var, source)
        walk.expr[tensor.name] = var
        if tensor.op.type != "Placeholder":
            walk.done.add(tensor.op.name)  # its parsing is preprocess.py's (`_parsing`)
    _features.plan_input_layers(walk)  # feature columns: Keras preprocessing
    plan_recurrent(walk)  # dynamic_rnn, tf_keras RNN layers: Keras RNN layers
    for op in walk.needed:  # layers whose ops start before their input is written
        if op.type in REGIONS and op.name not in walk.done:
            REGIONS[op.type](walk, op)
    pending = dict(dropouts or {})
    for op in walk.needed:
        _walk_op(walk, op)
        for t in op.outputs:
            if t.name in pending and t.name in walk.expr:
                _dropout(walk, t, pending.pop(t.name))
    if pending:
        name = next(iter(pending))
        op = traced.graph.get_tensor_by_name(name).op
        raise walk.refuse(op, "a dropout reads it inside a layer (no Keras Dropout form)")
    for key, tensor in traced.predictions.items():
        if _layers.is_variable(tensor) and tensor.name not in walk.expr:
            _variable(walk, tensor.op)
        if tensor.name not in walk.expr:
            raise walk.refuse(tensor.op, f"the prediction {key!r} has no Keras form")
        walk.plan.outputs[key] = walk.expr[tensor.name]
    for op in traced.graph.get_operations():
        if op.type in ("VarHandleOp", "VariableV2") and op.name not in walk.plan.variables:
            walk.plan.variables[op.name] = {"refused": "not read in PREDICT mode (not exported)"}
    walk.plan.tensors = dict(walk.expr)
    return walk.plan


def _walk_op(walk: Walk, op: TfOp) -> None:
    if op.name in walk.deferred:
        walk.deferred.pop(op.name)()
        return
    if op.name in walk.done or op.type in ("Placeholder", "ReadVariableOp"):
        return
    if op.type in ("VariableV2", "VarHandleOp"):
        return  # read by a layer pattern, or refused as its reader's input
    if not (op.type in PATTERNS and PATTERNS[op.type](walk, op)):
        _generic(walk, op)
