"""A model_fn traced in TRAIN mode, in its own `tf.Graph`, next to the PREDICT trace.

The features are placeholders of the PREDICT trace's dtypes and shapes (same keys); the
labels one placeholder of the dtype and per-example shape the training graph's
`IteratorGetNext` gave after the features (`_trace.training_inputs`).

Example:
    >>> train = trace_training(estimator, traced, "model_dir")  # doctest: +SKIP
    >>> train.loss.name  # doctest: +SKIP
    'add:0'
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from tfport._common.errors import TfportInputError, message
from tfport.keras._modelfn._static import TfOp
from tfport.keras._modelfn._trace import TENSOR_KEY, TfGraph, TfTensor, Traced

if TYPE_CHECKING:
    from tfport.estimator import Estimator


@dataclasses.dataclass
class TrainTraced:
    """The TRAIN graph: its feature and label placeholders, loss, train op, global step."""

    graph: TfGraph
    features: dict[str, TfTensor]  # same keys as the PREDICT trace
    labels: TfTensor
    loss: TfTensor
    train_op: TfOp  # a tf.Operation (or a tensor whose op is the train op)
    global_step: TfTensor


def trace_training(estimator: Estimator, traced: Traced, model_dir: str) -> TrainTraced:
    """Calls the model_fn in TRAIN mode with placeholders shaped as the PREDICT trace's.

    Raises:
        TfportInputError: the input_fn gave no labels or several label tensors, the
            model_fn returned no loss or train op in TRAIN mode.

    Example:
        >>> trace_training(est, trace(est, "model_dir", {}), "model_dir").labels  # doctest: +SKIP
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    flat = traced.given  # read from MODEL_DIR's training graph by the PREDICT trace
    if len(flat) != len(traced.features) + 1:
        raise TfportInputError(
            message(
                "--training needs an input_fn that yields (features, labels) with one labels "
                f"tensor; the training graph has {len(flat) - len(traced.features)}",
                "Train with labels as one tensor (a dict of labels has no Keras `fit` form here)",
                model_dir=model_dir,
            )
        )
    dtype, shape = flat[-1]
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        feats = {
            k: tf.compat.v1.placeholder(t.dtype, t.shape, name=k)
            for k, t in traced.features.items()
        }
        labels = tf.compat.v1.placeholder(dtype, (None, *shape), name="labels")
        given = feats[TENSOR_KEY] if traced.single else feats
        spec = estimator.model_fn(given, labels, "train", estimator.config)
    if spec.loss is None or spec.train_op is None:
        raise TfportInputError(
            message(
                "The model_fn returned no loss or train_op in TRAIN mode",
                "Export without --training",
            )
        )
    return TrainTraced(graph, feats, labels, spec.loss, spec.train_op, step)


def run_by(train_op: TfOp) -> list[TfOp]:
    """The ops a train op (or a tensor of it) runs: its data and control inputs, all the
    way back, in graph order.

    Example:
        >>> [op.type for op in run_by(train.train_op)][-1]  # doctest: +SKIP
        'AssignAddVariableOp'
    """
    target: TfOp = train_op.op if hasattr(train_op, "op") else train_op
    seen: dict[str, TfOp] = {}
    stack: list[TfOp] = [target]
    while stack:
        op = stack.pop()
        if op.name in seen:
            continue
        seen[op.name] = op
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return [op for op in target.graph.get_operations() if op.name in seen]
