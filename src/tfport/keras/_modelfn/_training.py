"""What `fit` needs from the TRAIN graph, matched to the PREDICT model (`--training`).

Walked back from the loss, the TRAIN graph splits into: the tensors the loss reads from
the model (the "cut": TRAIN tensors whose whole forward pass equals the PREDICT graph's
same-named tensor, op by op and variable by variable, apart from dropout and batch
normalization in training mode), the loss's own ops (from the cut, the labels and the
features), and per-variable terms added to it (`c * l2_loss(v)`: Keras L2 regularizers).
Matching the forward passes finds the dropout sites (`tf.nn.dropout`,
`tf.compat.v1.layers.dropout`: Keras `Dropout` layers) and the batch normalizations
in training mode with the momentum of their moving-average updates.

Example:
    >>> found = match_training(traced, train)  # doctest: +SKIP
    >>> found.dropouts  # doctest: +SKIP
    {'dropout/Identity:0': 0.5}
"""

from __future__ import annotations

import dataclasses

import numpy as np

from tfport.keras._modelfn import _ops
from tfport.keras._modelfn._ops import TfOp, TfTensor
from tfport.keras._modelfn._optimizer_plan import OptimizerPlan
from tfport.keras._modelfn._trace import TfGraph, Traced
from tfport.keras._modelfn._training_norms import (
    TrainingNorm,
    momenta,
    moments_input,
    report_rows,
)
from tfport.keras._modelfn._training_terms import regularizers, variables_read
from tfport.keras._modelfn._training_trace import TrainTraced, run_by
from tfport.keras._modelfn._walk import refusal, variable_name


@dataclasses.dataclass
class Matched:
    """The TRAIN graph as `fit` needs it, in PREDICT-graph terms."""

    train: TrainTraced
    cut: list[str]  # tensor names (the same in both graphs) the loss reads from the model
    loss_ops: list[TfOp]  # TRAIN ops from the cut, labels and features to the loss
    features_read: list[str]  # feature keys the loss reads itself
    regularized: dict[str, TfTensor]  # TRAIN tensors of the variable terms (left out)
    l2: dict[str, float]  # variable -> Keras L2 coefficient
    dropouts: dict[str, tuple[float, TfOp]]  # PREDICT tensor read through a dropout ->
    # (rate, the TRAIN dropout's output op)
    norms: list[TrainingNorm]  # batch normalizations in training mode
    report: list[dict]  # train-only ops: {"op", "type", "to", "line"}


def _reach(starts: list[TfTensor]) -> set[str]:
    """Names of the ops whose value depends on one of `starts` (data edges)."""
    graph = starts[0].graph if starts else None
    if graph is None:
        return set()
    names = {t.op.name for t in starts}
    for op in graph.get_operations():
        if op.name not in names and any(t.op.name in names for t in op.inputs):
            names.add(op.name)
    return names


def dropout(tensor: TfTensor) -> tuple[TfTensor, float, list[TfOp]] | None:
    """(input, rate, ops) when `tensor` is TF 2's dropout output: `SelectV2(RandomUniform(
    shape(x)) >= rate, x * 1 / (1 - rate), 0)`."""
    op = tensor.op
    if op.type != "SelectV2":
        return None
    keep, scaled, zero = op.inputs
    if keep.op.type != "GreaterEqual" or scaled.op.type != "Mul":
        return None
    noise, rate = keep.op.inputs
    if noise.op.type != "RandomUniform" or _ops.static(zero) is None:
        return None
    x = scaled.op.inputs[0]
    shape = noise.op.inputs[0]
    if shape.op.type != "Shape" or shape.op.inputs[0].name != x.name:
        return None  # a noise_shape other than the input's
    value = _ops.static(rate)
    if value is None or np.ndim(value) != 0 or np.any(_ops.static(zero) != 0):
        return None
    ops = [op, keep.op, scaled.op, noise.op, shape.op]
    return x, float(str(np.float32(value))), ops


class _Matcher:
    """Compares the forward pass of a TRAIN tensor with the PREDICT tensor of its name."""

    def __init__(self, traced: Traced, train: TrainTraced) -> None:
        self.traced = traced
        self.train = train
        self.dropouts: dict[str, tuple[float, TfOp]] = {}
        self.batch_norms: list[TfOp] = []  # fused, in training mode
        self.moments: dict[str, TfTensor] = {}  # moving variable -> TRAIN batch statistic
        self.report: list[dict] = []
        self.plain: set[str] = set()  # PREDICT tensors some TRAIN op reads without dropout
        self.why = ""
        self.where: TfOp | None = None  # the TRAIN op where the last match failed

    def same(self, t: TfTensor, p: TfTensor) -> bool:
        """Whether TRAIN's `t` is PREDICT's `p` (dropout and training-mode batch norm
        aside); on success the dropout sites and batch norms met are kept."""
        saved = (
            dict(self.dropouts),
            list(self.batch_norms),
            dict(self.moments),
            list(self.report),
            set(self.plain),
        )
        stack, seen = [(t, p, False)], set()
        while stack:
            a, b, through = stack.pop()
            if (a.name, b.name) in seen:
                continue
            seen.add((a.name, b.name))
            if not through and dropout(a) is None:
                self.plain.add(b.name)
            pairs = self._step(a, b)
            if pairs is None or set(self.dropouts) & self.plain:
                self.where = a.op
                if pairs is not None:
                    self.why = "a tensor read both through a dropout and without one"
                self.dropouts, self.batch_norms, self.moments, self.report, self.plain = saved
                return False
            stack.extend((x, y, dropout(a) is not None) for x, y in pairs)
        return True

    def _step(self, a: TfTensor, b: TfTensor) -> list[tuple] | None:
        found = dropout(a)
        if found is not None:
            x, rate, ops = found
            if self.dropouts.get(b.name, (rate,))[0] != rate:
                self.why = f"{b.name} read through dropouts of two rates"
                return None
            self.dropouts[b.name] = (rate, a.op)
            self.report.extend(
                {
                    "op": op.name,
                    "type": op.type,
                    "to": f"layers.Dropout({rate})",
                    "line": _ops.line_of(op),
                }
                for op in ops
            )
            while b.op.type in _ops.PASS:
                b = b.op.inputs[0]
            return [(x, b)]
        x, y = a.op, b.op
        if y.type == "ReadVariableOp" and x.type == "ReadVariableOp":  # a read is a read
            same = variable_name(x) == variable_name(y)
            self.why = "" if same else f"{a.name} reads another variable"
            return [] if same else None
        if y.type == "ReadVariableOp" and moments_input(a) is not None:
            self.moments[variable_name(y)] = a  # batch statistics in place of moving ones
            return []
        if x.name != y.name or x.type != y.type or a.value_index != b.value_index:
            self.why = f"TRAIN computes {a.name} ({x.type}), PREDICT {b.name} ({y.type})"
            return None
        if x.type == "Placeholder":
            return []
        if x.type == "Const":
            same = np.array_equal(_ops.static(a), _ops.static(b))
            self.why = "" if same else f"constant {a.name} differs"
            return [] if same else None
        if x.type in ("ReadVariableOp", "VarHandleOp", "VariableV2"):
            if variable_name(x) != variable_name(y):
                self.why = f"{a.name} reads another variable"
                return None
            return []
        skip = {"is_training", "exponential_avg_factor"} if x.type == "FusedBatchNormV3" else set()
        keys = (set(x.node_def.attr) | set(y.node_def.attr)) - skip
        if any(x.node_def.attr[k] != y.node_def.attr[k] for k in keys):
            self.why = f"{x.name} ({x.type}) has other attributes in TRAIN mode"
            return None
        if x.type == "FusedBatchNormV3" and x.get_attr("is_training"):
            if x.name not in [op.name for op in self.batch_norms]:
                self.batch_norms.append(x)
            if len(x.inputs) != len(y.inputs):
                return None
            pairs = list(zip(x.inputs[:3], y.inputs[:3], strict=True))
            return pairs + [
                (s, r)
                for s, r in zip(x.inputs[3:], y.inputs[3:], strict=True)
                if s.op.type != "Const"  # training mode may feed empty statistics
            ]
        if len(x.inputs) != len(y.inputs):
            return None
        return list(zip(x.inputs, y.inputs, strict=True))


def _train_closure(train: TrainTraced) -> set[str]:
    """Names of the ops the train op runs."""
    return {op.name for op in run_by(train.train_op)}


def match_training(traced: Traced, train: TrainTraced) -> Matched:
    """Splits the TRAIN graph's loss into model outputs, loss ops and L2 terms.

    Raises:
        TfportInputError: the first op with no Keras training form, with its model_fn line.

    Example:
        >>> match_training(traced, trace_training(est, traced, "model_dir")).cut  # doctest: +SKIP
        ['logits/BiasAdd:0']
    """
    graph, predict = train.graph, traced.graph
    placeholders = [*train.features.values(), train.labels]
    data = _reach(placeholders)
    labelled = _reach([train.labels])
    feature_ops = {t.op.name: k for k, t in train.features.items()}
    matcher = _Matcher(traced, train)
    cut: list[str] = []
    loss_ops: dict[str, TfOp] = {}
    regularized: dict[str, TfTensor] = {}
    read: list[str] = []
    stack = [train.loss]
    seen: set[str] = set()
    while stack:
        t = stack.pop()
        if t.name in seen:
            continue
        seen.add(t.name)
        op = t.op
        if op.name == train.labels.op.name or op.type == "Const":
            continue
        if op.name in feature_ops:
            read.append(feature_ops[op.name])
            continue
        if op.name not in data:  # no input: a constant expression or a variable term
            if variables_read(t):
                regularized[t.name] = t
            continue
        if op.name not in labelled and _in(predict, t.name) and matcher.same(t, _get(predict, t)):
            cut.append(t.name)
            continue
        model_op = any(i.op.type == "ReadVariableOp" for i in op.inputs) and op.name not in labelled
        if model_op or op.type in ("RandomUniform", "RandomStandardNormal", "FusedBatchNormV3"):
            reason = matcher.why or "the loss reads it outside the model"
            raise refusal(
                matcher.where or op,
                "the TRAIN-mode forward pass has no Keras training form here: it is not the "
                f"PREDICT model's ({reason})",
            )
        loss_ops[op.name] = op
        stack.extend(_ops.data_inputs(op))
    norms = momenta(train, matcher.batch_norms, matcher.moments, _train_closure(train))
    matcher.report.extend(report_rows(norms))
    l2 = regularizers(train, regularized, loss_ops)
    ordered = [op for op in graph.get_operations() if op.name in loss_ops]
    return Matched(
        train,
        sorted(cut),
        ordered,
        sorted(set(read)),
        regularized,
        l2,
        matcher.dropouts,
        norms,
        matcher.report,
    )


def _in(graph: TfGraph, name: str) -> bool:
    try:
        graph.get_tensor_by_name(name)
    except (KeyError, ValueError):
        return False
    return True


def _get(graph: TfGraph, t: TfTensor) -> TfTensor:
    return graph.get_tensor_by_name(t.name)


def plan_optimizer_of(train: TrainTraced) -> OptimizerPlan:
    """The optimizer mappers' plan for the train op (`_optimizers.plan_optimizer`).

    Example:
        >>> plan_optimizer_of(train).expression  # doctest: +SKIP
        'keras.optimizers.SGD(learning_rate=0.1)'
    """
    from tfport.keras._modelfn._optimizers import plan_optimizer

    graph = train.graph
    trainable = list(graph.get_collection("trainable_variables"))  # the variables
    return plan_optimizer(graph, train.train_op, train.loss, trainable, train.global_step)
