"""The state of one walk over a traced PREDICT graph: the plan being written, the names
used, which ops are done, and the model_fn line each op came from.

Example:
    >>> walk = Walk(traced)  # doctest: +SKIP
    >>> walk.name("hidden/kernel")  # doctest: +SKIP
    'hidden_kernel'
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import keyword
import re
from collections.abc import Callable, Collection

from tfport._common.errors import TfportInputError, message
from tfport._common.types import Graph
from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._trace import Traced

VARIABLE_OPS = ("VarHandleOp", "VariableV2", "VarIsInitializedOp")
_KEYWORDS = {"keras", "layers", "ops", "np", "inputs", "outputs", "model", *dir(builtins)}
_KEYWORDS |= set(keyword.kwlist)  # an op named `while`
RESERVED = frozenset(_KEYWORDS)  # names model.py's code must not take


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
    classes: list[str] = dataclasses.field(default_factory=list)  # control-flow layers
    uses_numpy: bool = False
    uses_variable: bool = False
    needs_tensorflow: bool = False  # string preprocessing layers (feature columns)
    # layer -> its checkpoint values as its Keras weights, where they differ (TF1 RNN cells)
    convert: dict[str, Callable[[list], list]] = dataclasses.field(default_factory=dict)
    tensors: dict[str, str] = dataclasses.field(default_factory=dict)  # tensor -> its variable

    def reorder_rows(self, layer: str, order: list[int]) -> None:
        """The layer's first weight is the checkpoint's rows taken in `order` (a table
        partitioned by id modulo its parts: the checkpoint holds them part by part)."""
        self.convert[layer] = functools.partial(_rows_in_order, order=order)

    def assign(self, variable: str, layer: str, weight: str) -> None:
        """Records that `layer` holds `variable` as `weight`; a variable read by several
        layers (a word table tied to an output projection) lists the others as `also`.
        The parts of a partitioned `variable` (`add_part`) are mapped with it."""
        entries = [self.variables.setdefault(variable, {})]
        entries += [e for e in self.variables.values() if e.get("part_of") == variable]
        for entry in entries:
            if "layer" not in entry:
                entry.update(layer=layer, weight=weight)
            else:
                entry.setdefault("also", []).append({"layer": layer, "weight": weight})

    def add_part(self, part: str, whole: str, rows: list[int], shape: list[int]) -> None:
        """Records `part` of the partitioned variable `whole`: the rows of `whole` it holds
        (`_parts.row_spec`) and its shape; it maps to the layers that `whole` maps to."""
        self.variables.setdefault(part, {"part_of": whole, "rows": rows, "shape": shape})


def _rows_in_order(values: list, order: list[int]) -> list:
    return [values[0][order], *values[1:]]


class Walk:
    """State of one walk over the traced graph."""

    def __init__(self, traced: Traced) -> None:
        self.traced = traced
        self.plan = Plan()
        self.expr: dict[str, str] = {}  # tensor name -> Python expression
        self.names: set[str] = set(_KEYWORDS)
        self.done: set[str] = set()
        self.comment = _ops.Comments(self.plan.lines)  # `# file:line` where it changes
        self.needed = self._needed()
        self.users = self._users()
        self.deferred: dict[str, Callable[[], object]] = {}  # op name -> writes its layer
        self.tie = False  # one Keras weight per variable however many ops read it (`fit`)
        self._tied: set[str] | None = None
        self.tied_layers: dict[str, str] = {}  # variable -> its Variable layer

    # ----------------------------------------------------------------- graph facts
    def _needed(self) -> list[TfOp]:
        outputs = list(self.traced.predictions.values())
        inputs = {t.op.name for t in self.traced.features.values()}  # parsed ones: not Placeholder
        return needed_ops(self.traced.graph, outputs, _ops.data_inputs, _LEAVES, inputs)

    def _users(self) -> dict[str, int]:
        count: dict[str, int] = {}
        for op in self.needed:
            for t in op.inputs:
                count[t.name] = count.get(t.name, 0) + 1
        for t in self.traced.predictions.values():
            count[t.name] = count.get(t.name, 0) + 1
        return count

    def tied(self) -> set[str]:
        """The variables more than one needed op reads (a word table that is also the
        output projection): with `tie`, one `Variable` layer feeds them all."""
        if self._tied is None:
            readers: dict[str, set[str]] = {}
            for op in self.needed:
                for t in op.inputs:
                    if t.op.type == "ReadVariableOp" or (
                        t.op.type == "VarHandleOp" and op.type == "ResourceGather"
                    ):
                        readers.setdefault(variable_name(t.op), set()).add(op.name)
            self._tied = {v for v, ops in readers.items() if len(ops) > 1}
        return self._tied

    def only_user(self, tensor: TfTensor, kind: str | tuple) -> TfOp | None:
        """The single needed op of type `kind` reading `tensor`, if it is its only user."""
        if self.users.get(tensor.name) != 1:
            return None
        kinds = (kind,) if isinstance(kind, str) else kind
        for op in self.needed:
            if op.type in kinds and any(t.name == tensor.name for t in op.inputs):
                return op
        return None

    def readers(self, tensor: TfTensor) -> list[TfOp]:
        """The needed ops reading `tensor` (None of them when it is also a prediction)."""
        if any(t.name == tensor.name for t in self.traced.predictions.values()):
            return []
        return [op for op in self.needed if any(t.name == tensor.name for t in op.inputs)]

    def region(self, start: TfTensor, last: TfOp) -> list[TfOp] | None:
        """The ops computing `last` from `start` (constants and variable reads aside), in
        graph order; None when another input feeds them or an output of theirs other than
        `last`'s is read elsewhere (then they are not one layer)."""
        found: dict[str, TfOp] = {}
        stack = [last]
        while stack:
            op = stack.pop()
            if op.name in found or op.type in ("Const", "ReadVariableOp"):
                continue
            if op.type in ("Placeholder", *VARIABLE_OPS):
                return None
            found[op.name] = op
            stack.extend(t.op for t in op.inputs if t.name != start.name)
        predictions = {t.name for t in self.traced.predictions.values()}
        for op in found.values():
            if op.name == last.name:
                continue
            for t in op.outputs:
                if t.name in predictions or any(r.name not in found for r in self.readers(t)):
                    return None
        return [op for op in self.traced.graph.get_operations() if op.name in found]

    def defer(self, ops: list[TfOp], write: Callable[[], object]) -> None:
        """Skips `ops` in the walk; `write` makes their layer where the last one was."""
        self.done.update(op.name for op in ops[:-1])
        self.deferred[ops[-1].name] = write

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

    def record(self, op: TfOp, to: str, line: str) -> None:
        self.plan.ops.append({"op": op.name, "type": op.type, "to": to, "line": line})

    def refuse(self, op: TfOp, reason: str) -> TfportInputError:
        return refusal(op, reason)


_FIX = (
    "Rewrite that part of the model_fn with ops keras.ops has (see docs/way-out.md), or "
    "export by hand with `tfport ckpt port`"
)


def refusal(op: TfOp, reason: str, what: str = "the model_fn", fix: str = _FIX) -> TfportInputError:
    """The one-line refusal of `op` (exporting `what`), naming the model_fn line that
    built it.

    Example:
        >>> raise refusal(op, "no Keras form")  # doctest: +SKIP
    """
    path, line, code = _ops.source_line(op)
    where = f"{path}:{line} ({code})" if path else "a line outside user code"
    return TfportInputError(
        message(
            f"Cannot export {what} to Keras: op {op.name!r} ({op.type}) built at {where}: {reason}",
            fix,
            op=op.name,
        )
    )


_LEAVES = ("Placeholder", "ReadVariableOp")  # where the model's inputs and weights enter


def needed_ops(
    graph: Graph,
    outputs: list[TfTensor],
    inputs: Callable[[TfOp], list[TfTensor]] = lambda op: list(op.inputs),
    leaves: tuple[str, ...] = (),
    stops: Collection[str] = (),
) -> list[TfOp]:
    """The ops of `graph` that `outputs` need, in graph order: walked back along `inputs`,
    not past an op whose type is in `leaves` or whose name is in `stops`.

    Example:
        >>> needed_ops(graph, [logits], _ops.data_inputs, _LEAVES)  # doctest: +SKIP
    """
    seen: set[str] = set()
    stack = [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.type not in leaves and op.name not in stops:
            stack.extend(t.op for t in inputs(op))
    return [op for op in graph.get_operations() if op.name in seen]


def variable_name(read: TfOp) -> str:
    source = read.inputs[0].op if read.type == "ReadVariableOp" else read
    return source.name


def scope(variable: str) -> str:
    return variable.rpartition("/")[0] or variable
