"""The model_fn's loss as `model_fn_loss(features, labels, outputs)` in `model.py`.

The TRAIN ops between the model's outputs (the cut), the labels, the features and the
loss are written as `keras.ops` calls (`_ops.expression`, plus the loss ops of
`tf.compat.v1.losses`/`tf.nn` below); the L2 terms are left out (they are the layers'
regularizers); values computed from constants alone are folded.

Example:
    >>> inputs = {"logits/BiasAdd:0": 'outputs["logits"]'}
    >>> lines, rows, _ = loss_lines(matched, inputs, single=True)  # doctest: +SKIP
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import Refused, TfOp, TfTensor
from tfport.keras._modelfn._training import Matched
from tfport.keras._modelfn._walk import RESERVED, refusal


def _target(t: TfTensor) -> list | None:
    """A shape value with the batch size as "batch" (`tf.shape(x)` sliced and joined, as
    `tf.nn.softmax_cross_entropy_with_logits` builds the shapes it reshapes to)."""
    op = t.op
    if op.type == "Slice":
        value = _target(op.inputs[0])
        begin, size = _ops.static(op.inputs[1]), _ops.static(op.inputs[2])
        if value is None or begin is None or size is None:
            return None
        b, n = int(np.ravel(begin)[0]), int(np.ravel(size)[0])
        return value[b:] if n == -1 else value[b : b + n]
    if op.type == "ConcatV2":
        joined: list = []
        for part in op.inputs[:-1]:
            dims = _target(part)
            if dims is None:
                return None
            joined.extend(dims)
        return joined
    value = _ops.static(t)
    return None if value is None else list(np.ravel(np.asarray(value, dtype=object)))


def _same_shape(op: TfOp) -> bool:
    """Whether a Reshape keeps its input's shape (batch first, other dims known)."""
    dims = op.inputs[0].shape.as_list() if op.inputs[0].shape.rank is not None else None
    target = _target(op.inputs[1])
    if dims is None or target is None or len(dims) != len(target) or None in dims[1:]:
        return False
    if dims and dims[0] is None and target[0] not in (-1, _ops.BATCH):
        return False
    return all(int(d) == int(t) for d, t in zip(dims[1:], target[1:], strict=True))


def _one(t: TfTensor) -> bool:
    value = _ops.static(t)
    return value is not None and np.ndim(value) == 0 and float(value) == 1.0


def _broadcasts(op: TfOp) -> bool:
    """Whether the op's output is not shaped as its input that is not the constant 1."""
    data = [t for t in op.inputs if not _one(t)]
    return len(data) != 1 or data[0].shape.as_list() != op.outputs[0].shape.as_list()


def _identity(op: TfOp) -> bool:
    """Ops that leave their data input as it is: a reshape to its own shape, a sum or mean
    over no axis, a product with or quotient by the constant 1."""
    if op.type == "Reshape":
        return _same_shape(op)
    if op.type in ("Sum", "Mean", "Max", "Min", "Prod"):
        axes = _ops.static(op.inputs[1])
        return axes is not None and np.size(axes) == 0
    if op.type in ("Mul", "RealDiv"):
        return (_one(op.inputs[1]) or (op.type == "Mul" and _one(op.inputs[0]))) and not (
            _broadcasts(op)
        )
    return False


def _special(op: TfOp, args: list[str]) -> str | None:
    """Loss ops `_ops` has no entry for; None when the op is not one of them."""
    kind = op.type
    if kind == "SoftmaxCrossEntropyWithLogits":
        logits, labels = args
        return f"ops.negative(ops.sum(ops.multiply({labels}, ops.log_softmax({logits})), axis=-1))"
    if kind == "SparseSoftmaxCrossEntropyWithLogits":
        logits, labels = args
        return f"ops.sparse_categorical_crossentropy({labels}, {logits}, from_logits=True)"
    if kind == "DivNoNan":
        return f"ops.divide_no_nan({args[0]}, {args[1]})"
    if kind in ("Select", "SelectV2"):
        return f"ops.where({args[0]}, {args[1]}, {args[2]})"
    if kind == "Log1p":
        return f"ops.log1p({args[0]})"
    if kind == "SquaredDifference":
        return f"ops.square(ops.subtract({args[0]}, {args[1]}))"
    if kind == "L2Loss":
        return f"ops.divide(ops.sum(ops.square({args[0]})), 2.0)"
    return None


class _LossWriter:
    """Writes the loss ops, in graph order, as lines of `model_fn_loss`."""

    def __init__(self, matched: Matched, outputs: dict[str, str], single: bool) -> None:
        self.matched = matched
        self.lines: list[str] = []
        self.rows: list[dict] = []
        self.expr: dict[str, str | None] = dict(outputs)
        self.names: set[str] = {"features", "labels", "outputs", *RESERVED}
        train = matched.train
        self.expr[train.labels.name] = "labels"
        for key, t in train.features.items():
            self.expr[t.name] = "features" if single else f"features[{key!r}]"
        for name in matched.regularized:
            self.expr[name] = None  # an L2 term: the layers' regularizers add it
        self.comment = _ops.Comments(self.lines)  # `# file:line` where it changes
        self.uses_numpy = False

    def _name(self, op: TfOp) -> str:
        base = "".join(c if c.isalnum() else "_" for c in op.name.rpartition("/")[2]).lower()
        base = base.strip("_") or "t"
        base = "t_" + base if base[0].isdigit() else base
        name, i = base, 1
        while name in self.names:
            i += 1
            name = f"{base}_{i}"
        self.names.add(name)
        return name

    def _arg(self, op: TfOp, t: TfTensor) -> str | None:
        if t.name in self.expr:
            return self.expr[t.name]
        if t.op.type == "Const" or _ops.static(t) is not None:
            try:
                text = _ops.literal(t)
            except Refused as err:
                raise refusal(op, str(err)) from None
        else:
            text = self._folded(op, t)
        self.uses_numpy |= text.startswith("np.")
        return text

    def _folded(self, op: TfOp, t: TfTensor) -> str:
        """A value computed from constants alone, run once in the TRAIN graph."""
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        if t.op.name in _data_ops(self.matched) or _stateful(t):
            raise refusal(op, f"its input {t.name!r} has no Keras form in the loss")
        with tf.compat.v1.Session(graph=t.graph) as session:
            value = np.asarray(session.run(t))
        if value.ndim == 0:
            return repr(value.item())
        if value.size > _ops.MAX_INLINE:
            raise refusal(op, f"a constant of {value.size} elements in the loss")
        return f"np.array({value.tolist()!r}, dtype={value.dtype.name!r})"

    def write(self, op: TfOp) -> None:
        kind = op.type
        if kind == "Fill" and op.inputs[0].op.type == "Shape":
            shaped = op.inputs[0].op.inputs[0]
            if shaped.name in self.expr and self.expr[shaped.name] is not None:
                value = self._arg(op, op.inputs[1])
                dtype = op.outputs[0].dtype.name
                self._emit(op, f"ops.full_like({self.expr[shaped.name]}, {value}, dtype={dtype!r})")
                return
        args = [self._arg(op, t) for t in _ops.data_inputs(op)]
        if kind in ("Add", "AddV2", "AddN") and None in args:
            kept: list[str] = [a for a in args if a is not None]
            self.expr[op.outputs[0].name] = _sum(kept)
            self.rows.append(self._row(op, "the L2 terms: layer regularizers"))
            return
        if None in args:
            raise refusal(op, "it reads an L2 term other than by adding it to the loss")
        given = [a for a in args if a is not None]
        if kind in ("Mul", "RealDiv") and _one(op.inputs[1]) and not _broadcasts(op):
            given = given[:1]  # `x * 1.0`, `x / 1.0` (unit loss weights): x
        elif kind == "Mul" and _one(op.inputs[0]) and not _broadcasts(op):
            given = given[1:]
        if kind in _ops.PASS or _identity(op):
            self.expr[op.outputs[0].name] = given[0]
            self.rows.append(self._row(op, "identity (nothing written)"))
            return
        text = _special(op, given)
        if text is None:
            try:
                text, _ = _ops.expression(op, given)
            except Refused as err:
                raise refusal(op, f"in the loss: {err}") from None
        self._emit(op, text)

    def _emit(self, op: TfOp, text: str) -> None:
        line = self.comment(op)
        var = self._name(op)
        self.lines.append(f"{var} = {text}")
        self.expr[op.outputs[0].name] = var
        self.uses_numpy |= "np." in text
        self.rows.append({"op": op.name, "type": op.type, "to": text.split("(")[0], "line": line})

    def _row(self, op: TfOp, to: str) -> dict:
        return {"op": op.name, "type": op.type, "to": to, "line": self.comment(op)}


def _sum(parts: list[str]) -> str | None:
    if not parts:
        return None
    text = parts[0]
    for part in parts[1:]:
        text = f"ops.add({text}, {part})"
    return text


def _data_ops(matched: Matched) -> set[str]:
    from tfport.keras._modelfn._training import _reach

    train = matched.train
    return _reach([*train.features.values(), train.labels])


def _stateful(t: TfTensor) -> bool:
    stack, seen = [t.op], set()
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen.add(op.name)
        if op.op_def.is_stateful or op.type in ("Placeholder", "ReadVariableOp"):
            return True
        stack.extend(i.op for i in op.inputs)
    return False


def loss_lines(
    matched: Matched, outputs: dict[str, str], single: bool
) -> tuple[list[str], list[dict], bool]:
    """(body lines of `model_fn_loss`, report rows, whether they use numpy).

    Args:
        matched: the TRAIN graph split by `match_training`.
        outputs: cut tensor name -> its expression in the loss (`outputs["logits"]`).
        single: the model_fn takes one features tensor (`features` is it).

    Raises:
        TfportInputError: the first loss op with no keras.ops form, with its line.
    """
    writer = _LossWriter(matched, outputs, single)
    for op in matched.loss_ops:
        writer.write(op)
    loss = writer.expr.get(matched.train.loss.name)
    if loss is None:
        raise refusal(matched.train.loss.op, "the loss is only L2 terms (nothing to fit)")
    writer.lines.append(f"return {loss}")
    return writer.lines, writer.rows, writer.uses_numpy
