"""A Keras 3 model's computation inside a `tf.compat.v1` graph, on graph variables.

Keras 3 keeps its variables eager, so they cannot live in an Estimator's
graph. Each mode's graph gets one resource variable per Keras variable (see
`_keras3_layout`) and runs the model with `stateless_call`, the compiled loss
and the compiled metrics inside a `keras.StatelessScope` that maps every
Keras variable to its graph variable. Metric state lives in graph local
variables; nothing eager is created or changed while building the graph.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tfport._common import keras_internals, tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import KerasModel, TFModule, Variable
from tfport.keras._keras3_layout import Slot, layout


class GraphModel:
    """Graph variables and a trackable tree (object-based keys) for a Keras 3 model.

    Example:
        >>> gm = GraphModel(model)  # doctest: +SKIP
        >>> outputs, updates, losses = gm.call(inputs, training=True)  # doctest: +SKIP
    """

    def __init__(self, model: KerasModel) -> None:
        tf = import_tf()
        self.model = model
        self.slots: list[Slot] = layout(model)
        self.graph_vars: dict[int, Any] = {}
        for slot in self.slots:
            var = slot.variable
            self.graph_vars[id(var)] = tf.compat.v1.get_variable(
                slot.graph_name,
                shape=tuple(var.shape),
                dtype=tf.as_dtype(var.dtype),
                initializer=tf.compat.v1.zeros_initializer(),
                trainable=var.trainable,
                use_resource=True,
            )

    def of(self, variables: Iterable[Variable]) -> list:
        """The graph variables of some Keras variables."""
        return [self.graph_vars[id(v)] for v in variables]

    def mapping(self) -> list[tuple[Any, Any]]:
        """(Keras variable, graph variable) pairs for a `keras.StatelessScope`."""
        return [(s.variable, self.graph_vars[id(s.variable)]) for s in self.slots]

    def call(self, inputs: object, training: bool) -> tuple[Any, list, list]:
        """Runs the model; returns (outputs, non-trainable update ops, regularization losses)."""
        tf = import_tf()
        model = self.model
        trainable = self.of(model.trainable_variables)
        non_trainable = self.of(model.non_trainable_variables)
        kwargs = {"training": training} if keras_internals.call_has_training_arg(model) else {}
        outputs, new_values, losses = model.stateless_call(
            trainable, non_trainable, inputs, return_losses=True, **kwargs
        )
        updates = []
        if training:
            for var, value in zip(non_trainable, new_values):
                if value is not var:
                    updates.append(var.assign(tf.convert_to_tensor(value)))
        return outputs, updates, list(losses)

    def trackable_root(self, optimizer: object, global_step: object) -> Any:
        """An object tree with tf_keras's checkpoint layout over the graph variables."""
        root = tf_internals.auto_trackable()
        for slot in self.slots:
            node = root
            for part in slot.object_path[:-1]:
                child = getattr(node, part, None)
                if child is None:
                    child = tf_internals.auto_trackable()
                    setattr(node, part, child)
                node = child
            setattr(node, slot.object_path[-1], self.graph_vars[id(slot.variable)])
        if optimizer is not None:
            root.optimizer = optimizer
        if global_step is not None:
            root.estimator_global_step = global_step
        return root


def compiled_loss(
    gm: GraphModel, y_true: object, y_pred: object, sample_weight: object, reg_losses: list
) -> Any:
    """The compiled total loss (per-output losses x loss_weights + regularization).

    Under N replicas it is, like every Keras 3 loss, scaled by 1/N.
    """
    import keras

    tf = import_tf()
    loss_fn = keras_internals.compiled_loss(gm.model)
    if loss_fn is None:
        raise TfportInputError(
            message(
                "The Keras 3 model was compiled without a loss",
                "Pass loss=... to model.compile()",
                model=gm.model.name,
            )
        )
    _build_eagerly(loss_fn, y_true, y_pred, call=True)
    with keras.StatelessScope(state_mapping=gm.mapping() + _zeros_for(loss_fn.variables)):
        loss = loss_fn(y_true, y_pred, sample_weight)
    for value in reg_losses:
        loss = loss + keras_internals.keras3_scale_loss_for_distribution(tf.cast(value, loss.dtype))
    return loss


def metric_ops(gm: GraphModel, y_true: object, y_pred: object, sample_weight: object) -> dict:
    """{compiled metric name: (value, update_op)} on graph local variables."""
    tf = import_tf()
    metrics = keras_internals.compiled_metrics(gm.model)
    if metrics is None:
        return {}
    _build_eagerly(metrics, y_true, y_pred, call=False)
    state = _metric_state(tf, metrics.variables)
    import keras

    with keras.StatelessScope(state_mapping=gm.mapping()):
        new_values = metrics.stateless_update_state(state, y_true, y_pred, sample_weight)
    update = tf.group(*[v.assign(tf.convert_to_tensor(n)) for v, n in zip(state, new_values)])
    # CompileMetrics.result() names them as Keras 3 does (`<output>_<metric>` on
    # multi-output models, `_1` suffixes, `weighted_` prefixes).
    values = _result(tf, metrics, state)
    return {name: (value, update) for name, value in values.items()}


_AGGREGATION = {"sum": "SUM", "mean": "MEAN", "only_first_replica": "ONLY_FIRST_REPLICA"}


def _metric_state(tf: TFModule, variables: list) -> list:
    """Local, sync-on-read graph variables (like tf.compat.v1.metrics') for metric state."""
    v1 = tf.compat.v1
    state = []
    with v1.variable_scope("keras_metrics"):
        for i, var in enumerate(variables):
            aggregation = _AGGREGATION.get(str(getattr(var, "aggregation", "sum")), "SUM")
            state.append(
                v1.get_variable(
                    f"{var.path.replace('/', '_')}_{i}",
                    shape=tuple(var.shape),
                    dtype=tf.as_dtype(var.dtype),
                    initializer=v1.zeros_initializer(),
                    trainable=False,
                    use_resource=True,
                    collections=[v1.GraphKeys.LOCAL_VARIABLES, v1.GraphKeys.METRIC_VARIABLES],
                    synchronization=tf.VariableSynchronization.ON_READ,
                    aggregation=getattr(tf.VariableAggregation, aggregation),
                )
            )
    return state


def _result(tf: TFModule, metric: Any, state: list) -> Any:
    """The metric's result; across replicas it reads the aggregated state (cross-replica)."""
    from tfport.keras._inputs import replicas_in_sync

    if replicas_in_sync() == 1:
        return metric.stateless_result(state)

    def merged(_: object, *aggregated: object) -> Any:
        return metric.stateless_result([tf.convert_to_tensor(v) for v in aggregated])

    return tf.distribute.get_replica_context().merge_call(merged, args=tuple(state))


def _zeros_for(variables: Iterable[Variable]) -> list:
    tf = import_tf()
    return [(v, tf.zeros(tuple(v.shape), tf.as_dtype(v.dtype))) for v in variables]


def _build_eagerly(obj: Any, y_true: object, y_pred: object, call: bool) -> None:
    """Builds a CompileLoss / CompileMetrics outside the graph (its state is eager)."""
    if getattr(obj, "built", False):
        return
    import numpy as np

    from keras import tree

    def example(t: Any) -> Any:
        shape = [1 if d is None else d for d in t.shape.as_list()]
        return np.zeros([1] + shape[1:], t.dtype.as_numpy_dtype)

    yt, yp = tree.map_structure(example, y_true), tree.map_structure(example, y_pred)
    try:
        with tf_internals.eager_mode():
            if call:
                obj(yt, yp)
                for metric in getattr(obj, "metrics", []):
                    metric.reset_state()
            else:
                obj.build(yt, yp)
    except (ValueError, TypeError) as err:
        what = "loss" if call else "metrics"
        raise TfportInputError(
            message(
                f"The Keras 3 model's compiled {what} do not fit its outputs and the labels: "
                + str(err).splitlines()[0],
                f"Fix model.compile({what}=...) (Keras 3 wants one entry per output on "
                "multi-output models) or the labels the input_fn returns",
                labels=tree.map_structure(lambda t: str(t.shape), y_true),
            )
        ) from err
