"""Which tensors of a TRAIN graph are the gradients a Keras optimizer would be given.

Keras hands its optimizer the gradients of the model's loss with respect to its trainable
weights (clipped by global norm when `global_clipnorm` is set). A model_fn's update ops read
some tensor as "the gradient"; it is the loss's gradient only if it is computed the way
`tf.gradients(loss, trainable)` computes it. So the graph is copied, the gradients (and
their `tf.clip_by_global_norm`) are built afresh in the copy, and a tensor the updates read
is compared with them op by op (type, attributes, inputs; `Identity` ops skipped, as the
gradient gating of `Optimizer.minimize` adds them).

Example:
    >>> grads = Gradients(graph, loss, trainable)  # doctest: +SKIP
    >>> grads.match(graph.get_tensor_by_name("gradients/AddN_7:0"))  # doctest: +SKIP
    ('conv1/kernel', None)
"""

from __future__ import annotations

import numpy as np

from tfport.keras._modelfn._static import TfOp, TfTensor, static
from tfport.keras._modelfn._trace import TfGraph

_RANDOM = ("RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt")
_BATCH_SOURCES = ("Placeholder", "IteratorGetNext", "PlaceholderWithDefault", *_RANDOM)


def variable_of(tensor: TfTensor) -> str:
    """The variable op's name a variable tensor, handle or read comes from ('' if none)."""
    op = tensor.op
    while op.type in ("Identity", "ReadVariableOp") and op.inputs:
        op = op.inputs[0].op
    return op.name if op.type in ("VarHandleOp", "VariableV2") else ""


class Gradients:
    """The loss's gradients of a TRAIN graph, rebuilt in a copy to compare tensors with."""

    def __init__(self, graph: TfGraph, loss: TfTensor, trainable: list) -> None:
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        self.names = [variable_of(getattr(v, "handle", v)) or v.op.name for v in trainable]
        self.copy = tf.Graph()
        with self.copy.as_default():
            tf.graph_util.import_graph_def(graph.as_graph_def(), name="")
            xs = [self.copy.get_tensor_by_name(f"{name}:0") for name in self.names]
            loss_copy = self.copy.get_tensor_by_name(loss.name)
            self.raw = tf.gradients(loss_copy, xs)  # IndexedSlices for a gather's table
            self.fresh = self._dense(self.raw)
        # variables whose gradient is sparse (IndexedSlices): clip_by_global_norm's norm
        # counts a repeated row's pieces apart, Keras's the summed dense row
        self.sparse = [
            n for n, g in zip(self.names, self.raw, strict=True) if hasattr(g, "indices")
        ]
        self._clipped: dict[float, list] = {}
        self._same: set[tuple[str, str]] = set()
        self.batch = frozenset(_batch_dependent(graph))
        found = {_clip_norm(op) for op in graph.get_operations() if op.type == "AddV2"}
        self.clip_norms = sorted(c for c in found if c is not None)

    def _clip(self, clip_norm: float) -> list:
        if clip_norm not in self._clipped:
            from tfport._common.tfenv import import_tf

            tf = import_tf()
            with self.copy.as_default():
                grads = [g for g in self.raw if g is not None]
                clipped, _ = tf.clip_by_global_norm(grads, clip_norm)
            it = iter(clipped)
            self._clipped[clip_norm] = self._dense([g if g is None else next(it) for g in self.raw])
        return self._clipped[clip_norm]

    def _dense(self, grads: list) -> list:
        """The gradients as the dense tensors an update reading them converts them to."""
        from tfport._common.tfenv import import_tf

        tf = import_tf()
        with self.copy.as_default():
            return [
                g if g is None or not hasattr(g, "indices") else tf.convert_to_tensor(g)
                for g in grads
            ]

    def match(self, tensor: TfTensor) -> tuple[str, float | None] | None:
        """(variable, clip norm or None) when `tensor` is that variable's gradient (clipped
        by the global norm of all of them), else None."""
        mine = self.copy.get_tensor_by_name(tensor.name)
        kind = _skip_identity(mine).op.type
        for clip_norm in [None, *self.clip_norms]:
            candidates = self.fresh if clip_norm is None else self._clip(clip_norm)
            for name, grad in zip(self.names, candidates, strict=True):
                if grad is not None and _skip_identity(grad).op.type == kind:
                    if self._equal(mine, grad):
                        return name, clip_norm
        return None

    def _equal(self, a: TfTensor, b: TfTensor) -> bool:
        """Whether two tensors of the copy are computed by the same ops from the same
        tensors (Identity ops skipped)."""
        stack = [(a, b)]
        seen: set[tuple[str, str]] = set()
        while stack:
            x, y = (_skip_identity(t) for t in stack.pop())
            if x.name == y.name or (x.name, y.name) in self._same | seen:
                continue
            seen.add((x.name, y.name))
            if _same_shape(x, y):
                continue
            if not _same_node(x, y):
                return False
            stack.extend(zip(x.op.inputs, y.op.inputs, strict=True))
        self._same |= seen
        return True


def _skip_identity(tensor: TfTensor) -> TfTensor:
    """The tensor an `Identity` (output i of an `IdentityN`: its input i) passes on."""
    while tensor.op.type in ("Identity", "IdentityN") and tensor.op.inputs:
        tensor = tensor.op.inputs[tensor.value_index if tensor.op.type == "IdentityN" else 0]
    return tensor


def _same_shape(x: TfTensor, y: TfTensor) -> bool:
    """A shape written as a constant in one graph and read (`Shape`) in the other: the
    model_fn's graph knew a tensor's shape statically where the re-imported copy does not
    (Python-side shapes do not survive `import_graph_def`), so `tf.gradients` wrote it
    either way. Equal when the constant agrees with every dimension the copy knows."""
    kinds = {x.op.type, y.op.type}
    if kinds != {"Const", "Shape"}:
        return False
    const, shape = (x, y) if x.op.type == "Const" else (y, x)
    value, dims = static(const), shape.op.inputs[0].shape
    if value is None or dims.rank is None or np.ndim(value) != 1 or len(value) != dims.rank:
        return False
    return all(d is None or d == int(v) for d, v in zip(dims.as_list(), value, strict=True))


def _same_node(x: TfTensor, y: TfTensor) -> bool:
    a, b = x.op, y.op
    if a.type != b.type or x.value_index != y.value_index or len(a.inputs) != len(b.inputs):
        return False
    if a.type == "Const":
        va, vb = static(x), static(y)
        return va.dtype == vb.dtype and va.shape == vb.shape and bool(np.all(va == vb))
    attrs = {k for k in a.node_def.attr if not k.startswith("_")}
    if attrs != {k for k in b.node_def.attr if not k.startswith("_")}:
        return False
    return all(a.node_def.attr[k] == b.node_def.attr[k] for k in attrs)


def _clip_norm(op: TfOp) -> float | None:
    """The `clip_norm` of a `tf.clip_by_global_norm` scale op: `clip_norm * minimum(1 /
    norm, 1 / clip_norm) + (norm - norm)`."""
    if op.type != "AddV2" or len(op.inputs) != 2:
        return None
    finite, nan = (t.op for t in op.inputs)
    if nan.type != "Sub" or nan.inputs[0].name != nan.inputs[1].name or finite.type != "Mul":
        return None
    value = static(finite.inputs[0])
    return float(value) if value is not None and np.ndim(value) == 0 else None


def _batch_dependent(graph: TfGraph) -> set[str]:
    """Names of the ops whose value changes with the batch (or a random draw)."""
    users: dict[str, list[TfOp]] = {}
    for op in graph.get_operations():
        for t in op.inputs:
            users.setdefault(t.op.name, []).append(op)
    stack = [op for op in graph.get_operations() if op.type in _BATCH_SOURCES]
    found: set[str] = set()
    while stack:
        op = stack.pop()
        if op.name in found:
            continue
        found.add(op.name)
        stack.extend(users.get(op.name, ()))
    return found
