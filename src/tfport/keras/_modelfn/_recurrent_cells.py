"""A recurrent cell of a model_fn -> the Keras 3 RNN layer computing the same numbers:
its class, constructor arguments, variables and how their checkpoint values become the
layer's weights.

TF1 cells (`tf.compat.v1.nn.rnn_cell`) hold one kernel over `[inputs, state]`; Keras holds
`kernel` (inputs rows) and `recurrent_kernel` (state rows):

- `BasicRNNCell` -> `SimpleRNN`: the kernel's rows split; the bias as is.
- `BasicLSTMCell` / `LSTMCell` -> `LSTM`: gates `i, j, f, o` reordered to Keras's
  `i, f, c, o`, and the cell's `forget_bias` (added to `f` at each step) added to the
  forget gate's bias.
- `GRUCell` -> `GRU(reset_after=False)`: `gates/kernel` holds `r, u`, `candidate/kernel`
  the candidate; Keras's order is `z (= u), r, h`.

tf_keras `LSTM` / `GRU` / `SimpleRNN` (or `RNN` of their cells) have Keras 3's weights and
arguments already. What no Keras layer computes (peepholes, projections, cell clipping,
other cells, a hard sigmoid Keras 3 defines differently) raises `Refused`.

Example:
    >>> spec = cell_spec(call)  # doctest: +SKIP
    >>> spec.kind, spec.args  # doctest: +SKIP
    ('LSTM', ['6'])
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np

from tfport._common.types import KerasLayer
from tfport.keras._modelfn._ops import Refused
from tfport.keras._modelfn._recurrent_trace import RecurrentCall

Convert = Callable[[list[np.ndarray]], list[np.ndarray]]

# activations whose Keras 3 function is the TF one (tf_keras's hard_sigmoid is not)
_ACTIVATIONS = {
    "tanh": "tanh",
    "sigmoid": "sigmoid",
    "relu": "relu",
    "elu": "elu",
    "selu": "selu",
    "softsign": "softsign",
    "softplus": "softplus",
    "linear": "linear",
    "identity": "linear",
}
_TF1_CELLS = ("BasicRNNCell", "BasicLSTMCell", "LSTMCell", "GRUCell")
_KERAS_CELLS = {"LSTMCell": "LSTM", "GRUCell": "GRU", "SimpleRNNCell": "SimpleRNN"}


@dataclasses.dataclass
class CellSpec:
    """The Keras layer of a recurrent call, and where its weights come from."""

    kind: str  # "LSTM", "GRU" or "SimpleRNN"
    units: int
    args: list[str]  # Keras constructor arguments after `units` (the cell's own)
    variables: list[str]  # graph variable names, in `convert`'s order
    roles: list[str]  # the Keras weight(s) each variable becomes (for the report)
    convert: Convert  # checkpoint values -> the layer's `set_weights` values
    state_is_tuple: bool = True  # an LSTM's state: (c, h), or the two concatenated


def _activation(function: object, default: str, what: str) -> str | None:
    """The Keras name of a cell's activation; None when it is the Keras default."""
    name = function if isinstance(function, str) else getattr(function, "__name__", "")
    module = "" if isinstance(function, str) else getattr(function, "__module__", "") or ""
    if not isinstance(function, str) and not module.startswith(("tensorflow", "tf_keras")):
        name = ""
    if name not in _ACTIVATIONS:
        shown = name or type(function).__name__
        raise Refused(f"its {what} {shown!r} has no exact Keras 3 activation")
    keras_name = _ACTIVATIONS[name]
    return None if keras_name == default else keras_name


def _variable(value: object, what: str) -> str:
    op = getattr(value, "op", None)
    if op is None or op.type not in ("VarHandleOp", "VariableV2"):
        raise Refused(f"its {what} is not one variable (a partitioned variable?)")
    return str(op.name)


def _split_rows(kernel: np.ndarray, units: int) -> list[np.ndarray]:
    """[kernel over the inputs, recurrent kernel] of a kernel over `[inputs, state]`."""
    inputs = kernel.shape[0] - units
    return [kernel[:inputs], kernel[inputs:]]


def _simple(units: int, values: list[np.ndarray]) -> list[np.ndarray]:
    kernel, bias = values
    return [*_split_rows(kernel, units), bias]


def _lstm(units: int, forget_bias: float, values: list[np.ndarray]) -> list[np.ndarray]:
    kernel, bias = values
    i, j, f, o = np.split(kernel, 4, axis=1)
    bi, bj, bf, bo = np.split(bias, 4)
    bf = bf + np.asarray(forget_bias, bias.dtype)
    return [*_split_rows(np.concatenate([i, f, j, o], 1), units), np.concatenate([bi, bf, bj, bo])]


def _gru(units: int, values: list[np.ndarray]) -> list[np.ndarray]:
    gates, gates_bias, candidate, candidate_bias = values
    r, u = np.split(gates, 2, axis=1)
    br, bu = np.split(gates_bias, 2)
    kernel = np.concatenate([u, r, candidate], 1)
    return [*_split_rows(kernel, units), np.concatenate([bu, br, candidate_bias])]


def _same(values: list[np.ndarray]) -> list[np.ndarray]:
    return values


def _weights(cell: KerasLayer, roles: tuple[str, ...]) -> list[str]:
    """The cell's variables in creation order (kernel, bias; a GRU's gates then its
    candidate), one per role; a sharded or partitioned kernel is refused."""
    weights = list(cell.weights)
    if len(weights) != len(roles):
        raise Refused(f"its cell holds {len(weights)} variables, not {len(roles)} (sharded?)")
    return [_variable(w, role) for w, role in zip(weights, roles, strict=True)]


def _tf1_spec(cell: KerasLayer) -> CellSpec:
    name = type(cell).__name__
    config = cell.get_config()  # what the cell was made with (its public serialization)
    units = int(str(config["num_units"]))
    args = []
    activation = _activation(config.get("activation"), "tanh", "activation")
    if activation:
        args.append(f"activation={activation!r}")
    if name == "LSTMCell":
        for key, what in (
            ("use_peepholes", "peepholes (use_peepholes=True)"),
            ("cell_clip", "cell clipping (cell_clip)"),
            ("num_proj", "a projection (num_proj)"),
        ):
            if config.get(key):
                raise Refused(f"its LSTMCell has {what}, which no Keras LSTM has")
    if name in ("LSTMCell", "BasicLSTMCell"):
        variables = _weights(cell, ("kernel", "bias"))
        forget_bias = float(str(config["forget_bias"]))
        return CellSpec(
            "LSTM",
            units,
            args,
            variables,
            ["kernel, recurrent_kernel", "bias"],
            functools.partial(_lstm, units, forget_bias),
            bool(config.get("state_is_tuple", True)),
        )
    if name == "GRUCell":
        variables = _weights(
            cell, ("gate_kernel", "gate_bias", "candidate_kernel", "candidate_bias")
        )
        roles = ["kernel, recurrent_kernel", "bias", "kernel, recurrent_kernel", "bias"]
        return CellSpec(
            "GRU",
            units,
            [*args, "reset_after=False"],
            variables,
            roles,
            functools.partial(_gru, units),
        )
    variables = _weights(cell, ("kernel", "bias"))
    roles = ["kernel, recurrent_kernel", "bias"]
    return CellSpec("SimpleRNN", units, args, variables, roles, functools.partial(_simple, units))


def _keras_spec(layer: object) -> CellSpec:
    import tf_keras

    cell = getattr(layer, "cell", None)
    name = type(cell).__name__
    kind = _KERAS_CELLS.get(name)
    base = getattr(tf_keras.layers, name, None) if kind else None
    if cell is None or kind is None or base is None or type(cell).call is not base.call:
        raise Refused(f"its cell {name} has no Keras 3 layer (LSTM, GRU, SimpleRNN cells map)")
    if getattr(layer, "stateful", False):
        raise Refused("a stateful RNN layer (its state outlives a batch)")
    args = []
    activation = _activation(cell.activation, "tanh", "activation")
    if activation:
        args.append(f"activation={activation!r}")
    if kind != "SimpleRNN":
        recurrent = _activation(cell.recurrent_activation, "sigmoid", "recurrent_activation")
        if recurrent:
            args.append(f"recurrent_activation={recurrent!r}")
    if not cell.use_bias:
        args.append("use_bias=False")
    if kind == "GRU" and not cell.reset_after:
        args.append("reset_after=False")
    for attr in ("dropout", "recurrent_dropout"):  # no effect on predictions; kept
        if getattr(cell, attr, 0):
            args.append(f"{attr}={float(getattr(cell, attr))!r}")
    attrs = ["kernel", "recurrent_kernel"] + (["bias"] if cell.use_bias else [])
    variables = [_variable(getattr(cell, a), a) for a in attrs]
    return CellSpec(kind, int(cell.units), args, variables, attrs, _same)


def cell_spec(call: RecurrentCall) -> CellSpec:
    """The Keras layer of a recorded recurrent call; raises `Refused` when there is none.

    Example:
        >>> cell_spec(call).kind  # doctest: +SKIP
        'GRU'
    """
    from tfport._common.tfenv import import_tf

    if call.api == "keras":
        return _keras_spec(call.cell)
    cells = import_tf().compat.v1.nn.rnn_cell
    name = type(call.cell).__name__
    if name not in _TF1_CELLS or type(call.cell) is not getattr(cells, name, None):
        raise Refused(
            f"its cell {name} has no Keras 3 layer (BasicRNNCell, BasicLSTMCell, LSTMCell "
            "and GRUCell map)"
        )
    return _tf1_spec(call.cell)
