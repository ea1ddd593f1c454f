"""Recurrent cells of a model_fn -> `layers.LSTM` / `layers.GRU` / `layers.SimpleRNN`.

The calls are recorded while the model_fn is traced (`_recurrent_trace`: each
`tf.compat.v1.nn.dynamic_rnn` with its cell, inputs, outputs and final state; each tf_keras
RNN layer call), rather than recognised in the graph: `dynamic_rnn` is a `While` loop over
TensorLists whose body is the cell's arithmetic, a tf_keras LSTM a function call choosing a
backend, and telling a known cell from a look-alike body there would be matching every
cell's ops; the recorded cell object says what it is and how it is configured. The ops a
call made (from its inputs, `sequence_length` and the variables to the outputs the
predictions read) are skipped by the walk and written as one Keras layer call at the last
of them; the cell's checkpoint values are converted to the layer's weights by
`_recurrent_cells` (`Plan.convert`). The layer returns what the model_fn read: every step
(`return_sequences`), the final state (`return_state`; an LSTM's `c` and `h`), or only the
last output. `sequence_length` becomes the layer's `mask` (steps at and past the length
masked, their outputs zeros: `zero_output_for_mask`), which is what dynamic_rnn computes;
an `initial_state` is the layer's `initial_state` (none where it is `cell.zero_state`'s). A Keras
mask on a tf_keras layer, its cell's constants, or a cell no Keras layer computes is
refused naming the op and the model_fn line.

Example:
    >>> plan_recurrent(walk)  # doctest: +SKIP
    >>> walk.plan.layers["lstm_rnn_lstm_cell"]  # doctest: +SKIP
    ['lstm/rnn/lstm_cell/kernel', 'lstm/rnn/lstm_cell/bias']
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import Refused, TfOp, TfTensor
from tfport.keras._modelfn._recurrent_cells import CellSpec, cell_spec
from tfport.keras._modelfn._recurrent_trace import RecurrentCall
from tfport.keras._modelfn._walk import Walk, scope

_LOOPS = ("While", "StatelessWhile")


def _is_tensor(value: object) -> bool:
    return hasattr(value, "op") and hasattr(value, "name")


def _state_parts(state: object) -> list[tuple[str, TfTensor]]:
    """(role, tensor) of a final state: an LSTM's `c` and `h`, else the `state`."""
    if _is_tensor(state):
        return [("state", state)]
    fields = getattr(state, "_fields", None)
    if fields == ("c", "h"):
        return list(zip(fields, state, strict=True))  # type: ignore[call-overload]
    raise Refused("its final state is not one tensor or an LSTM's (c, h)")


def _results(call: RecurrentCall) -> list[tuple[str, TfTensor]]:
    """(role, tensor) of what the call returned: `sequence` and state parts; for a tf_keras
    layer `output`, `h` and an LSTM's `c` (its return_state)."""
    if call.api == "keras":
        if isinstance(call.outputs, list | tuple):
            first, *states = call.outputs
            return [("output", first), *zip(("h", "c"), states, strict=False)]
        return [("output", call.outputs)]
    if call.api == "static_rnn":
        steps = [(f"step_{i}", t) for i, t in enumerate(_tensors(call.outputs))]
        return [*steps, *_state_parts(call.state)]
    return [("sequence", call.outputs), *_state_parts(call.state)]


def _region(
    walk: Walk, outputs: list[TfTensor], stops: list[TfTensor], anchor: TfOp | None
) -> list[TfOp]:
    """The ops computing `outputs` from the tensors `stops` (and variables), in graph
    order; refused when another input feeds them or another op reads what they compute."""
    stop = {t.name for t in stops}
    found: dict[str, TfOp] = {}
    stack = [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op.name in found:
            continue
        if op.type == "Placeholder":
            raise walk.refuse(anchor or op, f"it reads the input {op.name!r} besides its own")
        found[op.name] = op
        if op.type != "ReadVariableOp":
            stack.extend(t.op for t in _ops.data_inputs(op) if t.name not in stop)
    ops = [op for op in walk.traced.graph.get_operations() if op.name in found]
    inner = {op.name for op in ops}
    returned = {t.name for t in outputs}
    predictions = {t.name for t in walk.traced.predictions.values()}
    for op in ops:
        for t in op.outputs:
            if t.name in returned:
                continue
            if t.name in predictions or any(r.name not in inner for r in walk.readers(t)):
                raise walk.refuse(op, "another op reads a tensor inside the recurrent layer")
    return ops


def _anchor(call: RecurrentCall, walk: Walk, outputs: list[TfTensor]) -> TfOp:
    """The op a refusal names: the loop of a dynamic_rnn, else an output's op."""
    ops = walk.traced.graph.get_operations()
    names = {t.op.name for t in outputs}
    last = max(i for i, op in enumerate(ops) if op.name in names)
    if call.api == "dynamic_rnn":
        loops = [op for op in ops[: last + 1] if op.type in _LOOPS]
        if loops:
            return loops[-1]
    return ops[last]


def _tensors(value: object) -> list[TfTensor]:
    """[a tensor], or the tensors of a list (static_rnn's steps)."""
    return [value] if _is_tensor(value) or not isinstance(value, list | tuple) else list(value)


def _flat(value: object) -> list[TfTensor]:
    """The tensors in nested lists and tuples (a stacked cell's state)."""
    if _is_tensor(value):
        return [value]
    if isinstance(value, list | tuple):
        return [t for v in value for t in _flat(v)]
    return []


def _inputs(call: RecurrentCall) -> list[TfTensor]:
    """The input tensor, or static_rnn's list of steps."""
    return _tensors(call.inputs)


def _zeros(tensor: TfTensor) -> bool:
    """Whether a state tensor is zeros (`cell.zero_state`: a Fill of 0 to the batch size)."""
    op = tensor.op
    value = _ops.static(op.inputs[1]) if op.type == "Fill" else _ops.static(tensor)
    return value is not None and not np.any(value)


def _initial(call: RecurrentCall) -> list[TfTensor]:
    """The initial state in Keras's order (an LSTM's h, c); [] for zeros or none."""
    state = call.initial_state
    if state is None:
        return []
    if call.api == "keras":
        tensors = _flat(state)
        if not tensors:
            raise Refused("its initial_state is not a list of tensors")
    else:
        parts = dict(_state_parts(state))
        tensors = [parts[r] for r in ("h", "c") if r in parts] or [parts["state"]]
    return [] if all(_zeros(t) for t in tensors) else tensors


def _stops(call: RecurrentCall) -> list[TfTensor]:
    tensors = _inputs(call)
    if call.sequence_length is not None and _is_tensor(call.sequence_length):
        tensors.append(call.sequence_length)
    return tensors + _initial(call)


def _check(walk: Walk, call: RecurrentCall, spec: CellSpec, anchor: TfOp) -> None:
    if call.constants is not None:
        raise walk.refuse(anchor, "constants passed to its cell")
    try:
        initial = _initial(call)
    except Refused as err:
        raise walk.refuse(anchor, str(err)) from None
    if initial and len(initial) != (2 if spec.kind == "LSTM" else 1):
        raise walk.refuse(anchor, "its initial_state is an LSTM's c and h concatenated")
    if call.mask is not None:
        raise walk.refuse(anchor, "a Keras mask on its input (mask_zero, mask=)")
    if call.api == "static_rnn":
        steps = _inputs(call)
        if not all(
            _is_tensor(x) and x.shape.rank == 2 and x.dtype.name == "float32" for x in steps
        ):
            raise walk.refuse(anchor, "its inputs are not float32 [batch, features] tensors")
        return
    x: TfTensor = call.inputs
    if not _is_tensor(x) or x.shape.rank != 3 or x.dtype.name != "float32":
        raise walk.refuse(anchor, "its input is not one float32 [batch, time, features] tensor")
    if call.sequence_length is not None and not _is_tensor(call.sequence_length):
        raise walk.refuse(anchor, "its sequence_length is not a tensor")


def plan_recurrent(walk: Walk) -> None:
    """Defers the ops of each recorded recurrent call the predictions need: they are
    written as one Keras RNN layer at the last of them.

    Example:
        >>> plan_recurrent(walk)  # doctest: +SKIP
    """
    for call in walk.traced.recurrent:
        read = [t for t in _flat([call.outputs, call.state]) if walk.users.get(t.name)]
        if not read:
            continue
        try:
            spec = cell_spec(call)
            results = _results(call)
        except Refused as err:
            raise walk.refuse(_anchor(call, walk, read), str(err)) from None
        used = [(role, t) for role, t in results if walk.users.get(t.name)]
        anchor = _anchor(call, walk, [t for _, t in used])
        _check(walk, call, spec, anchor)
        region = _region(walk, [t for _, t in used], _stops(call), anchor)

        def write(
            call: RecurrentCall = call,
            spec: CellSpec = spec,
            used: list = used,
            region: list = region,
            anchor: TfOp = anchor,
        ) -> None:
            _write(walk, call, spec, used, region, anchor)

        walk.defer(region, write)


def _returned(call: RecurrentCall, spec: CellSpec, roles: set[str]) -> tuple[list[str], str]:
    """(the roles the layer call returns, in order, "_" for one not read; its flags)."""
    lstm = spec.kind == "LSTM"
    if call.api == "keras":  # as the model_fn's layer was configured
        layer = call.cell
        flags = [
            f"{flag}=True"
            for flag in ("return_sequences", "return_state", "go_backwards")
            if getattr(layer, flag, False)
        ]
        states = ["h", "c"] if lstm else ["h"]
        order = ["output"] + (states if getattr(layer, "return_state", False) else [])
    elif (
        "sequence" not in roles
        and roles <= ({"h"} if lstm else {"state"})
        and not (_initial(call) and call.sequence_length is not None)
    ):  # the last output is the final h (not where a length of 0 keeps the initial state)
        return [next(iter(roles))], ""
    else:
        if lstm and "state" in roles:  # state_is_tuple=False: concat([c, h])
            roles = roles | {"c", "h"}
        flags = (["return_sequences=True"] if "sequence" in roles else []) + ["return_state=True"]
        order = ["sequence", "h", "c"] if lstm else ["sequence", "state"]
    return [r if r in roles else "_" for r in order], ", ".join(flags)


def _scope(variables: list[str]) -> str:
    """The cell's scope: what its variables' names share (`gru/rnn/gru_cell`)."""
    parts = [v.split("/")[:-1] for v in variables]
    common = []
    for names in zip(*parts, strict=False):
        if len(set(names)) > 1:
            break
        common.append(names[0])
    return "/".join(common) or scope(variables[0])


def _mask(walk: Walk, call: RecurrentCall, x: str, layer: str, steps: int | None) -> str:
    """A `[batch, time]` bool mask of the steps before `sequence_length`."""
    length: TfTensor = call.sequence_length
    if length.name not in walk.expr:
        raise Refused("its sequence_length has no Keras form")
    value = walk.expr[length.name]
    if length.dtype.name != "int32":
        value = f'ops.cast({value}, "int32")'
    if steps is None:
        count = f'ops.cumsum(ops.ones_like({x}[:, :, 0], dtype="int32"), axis=1)'
        text = f"ops.less_equal({count}, ops.expand_dims({value}, -1))"
    else:
        text = f"ops.less(ops.arange({int(steps)}), ops.expand_dims({value}, -1))"
    var = walk.name(layer + "_mask")
    walk.plan.lines.append(f"{var} = {text}")
    return var


def _write(
    walk: Walk,
    call: RecurrentCall,
    spec: CellSpec,
    used: list[tuple[str, TfTensor]],
    region: list[TfOp],
    anchor: TfOp,
) -> None:
    inputs = _inputs(call)
    for tensor in inputs:
        if tensor.name not in walk.expr:
            raise walk.refuse(anchor, f"its input {tensor.name!r} has no Keras form")
    name = getattr(call.cell, "name", "") if call.api == "keras" else _scope(spec.variables)
    layer = walk.name(name)
    line = walk.comment(anchor)
    x = walk.expr[inputs[0].name]
    major = call.time_major or bool(getattr(call.cell, "time_major", False))
    steps = inputs[0].shape[0 if major else 1] if call.api != "static_rnn" else len(inputs)
    if call.api == "static_rnn":  # a list of steps
        x = walk.name(layer + "_inputs")
        stacked = ", ".join(walk.expr[t.name] for t in inputs)
        walk.plan.lines.append(f"{x} = ops.stack([{stacked}], axis=1)")
    elif major:
        x = walk.name(layer + "_inputs")
        walk.plan.lines.append(f"{x} = ops.transpose({walk.expr[inputs[0].name]}, (1, 0, 2))")
    roles = {"sequence" if r.startswith("step_") else r for r, _ in used}
    returned, flags = _returned(call, spec, roles)
    args = ", ".join([str(spec.units), *spec.args, *([flags] if flags else [])])
    given = x
    if call.sequence_length is not None:
        try:
            given += f", mask={_mask(walk, call, x, layer, steps)}"
        except Refused as err:
            raise walk.refuse(anchor, str(err)) from None
        if "return_sequences=True" in flags:
            args += ", zero_output_for_mask=True"
    initial = _initial(call)
    for tensor in initial:
        if tensor.name not in walk.expr:
            raise walk.refuse(anchor, f"its initial state {tensor.name!r} has no Keras form")
    if initial:
        given += f", initial_state=[{', '.join(walk.expr[t.name] for t in initial)}]"
    targets = [walk.name(f"{layer}_{r}") if r != "_" else "_" for r in returned]
    target = ", ".join(targets)
    walk.plan.lines.append(f"{target} = layers.{spec.kind}({args}, name={layer!r})({given})")
    made = dict(zip(returned, targets, strict=True))
    sequence = "output" if call.api == "keras" and "return_sequences" in flags else "sequence"
    if major and made.get(sequence, "_") != "_":
        var = walk.name(layer + "_steps")
        walk.plan.lines.append(f"{var} = ops.transpose({made[sequence]}, (1, 0, 2))")
        made[sequence] = var
    for role, _ in used:
        if role.startswith("step_"):
            var = walk.name(f"{layer}_{role}")
            walk.plan.lines.append(f"{var} = {made['sequence']}[:, {role[5:]}]")
            made[role] = var
    if spec.kind == "LSTM" and not spec.state_is_tuple and "state" in roles:
        var = walk.name(layer + "_state")
        walk.plan.lines.append(f"{var} = ops.concatenate([{made['c']}, {made['h']}], axis=1)")
        made["state"] = var
    for role, tensor in used:
        walk.expr[tensor.name] = made[role]
    walk.plan.layers[layer] = list(spec.variables)
    for variable, weight in zip(spec.variables, spec.roles, strict=True):
        walk.plan.assign(variable, layer, weight)
    walk.plan.convert[layer] = spec.convert
    for op in region:
        walk.record(op, f"layers.{spec.kind} {layer!r}", line)
