"""model_fn and first checkpoint for Keras 3 models (TensorFlow backend).

Design (see `_keras3_graph`): the model runs in the Estimator's graph on graph
variables through `stateless_call`; the optimizer is the graph-mode (tf_keras
legacy) optimizer of the same name and hyperparameters, its `iterations` the
global step. Checkpoints: `checkpoint_format="checkpoint"` writes tf_keras's
object-based layout (`layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE`,
`.OPTIMIZER_SLOT/optimizer/<slot>`, `estimator_global_step`); `"saver"` writes
name-based keys, the Keras variable paths (`sequential/hidden/kernel`).
`load_estimator_weights` reads either back into the Keras 3 model.
Subclassed models (built) take the features as given and name their
predictions by the keys of the dict `call()` returns, else `output_1`, ....
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tfport._common import keras_internals, replica_share, tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, KerasModel, Labels
from tfport.estimator import EstimatorSpec, ModeKeys, WarmStartSettings
from tfport.keras import _inputs, _metrics, _optimizers, _saving
from tfport.keras._keras3_graph import GraphModel, compiled_loss, metric_ops
from tfport.keras._keras3_layout import layout

if TYPE_CHECKING:
    from tfport.estimator import RunConfig


def is_keras3_model(model: KerasModel) -> bool:
    """True for a Keras 3 model.

    Example:
        >>> is_keras3_model(object())
        False
    """
    try:
        import keras
    except ImportError:  # pragma: no cover - keras is a dependency
        return False
    return isinstance(getattr(keras, "Model", None), type) and isinstance(model, keras.Model)


def input_names(model: KerasModel) -> list[str]:
    """Feature keys the model accepts, in its flat input order.

    Example:
        >>> input_names(model)  # doctest: +SKIP
        ['hidden_input']
    """
    from keras import tree

    struct = keras_internals.inputs_struct(model)
    if isinstance(struct, dict):
        return sorted(struct)
    inputs = getattr(model, "inputs", None) or []
    return [keras_internals.producing_layer_name(t) for t in tree.flatten(inputs)]


def output_names(model: KerasModel) -> list[str]:
    """Prediction keys, in the model's flat output order (made unique).

    Example:
        >>> output_names(model)  # doctest: +SKIP
        ['probs']
    """
    from keras import tree

    struct = keras_internals.outputs_struct(model)
    if isinstance(struct, dict):
        return sorted(struct)
    outputs = getattr(model, "outputs", None) or []
    names: list[str] = []
    for t in tree.flatten(outputs):
        name, n = keras_internals.producing_layer_name(t), 0
        while (name if n == 0 else f"{name}_{n}") in names:
            n += 1
        names.append(name if n == 0 else f"{name}_{n}")
    return names


class ModelFn:
    """The Estimator model_fn of a Keras 3 model (plain per-replica graph code).

    Example:
        >>> spec = ModelFn(model, True)(features, labels, "train")  # doctest: +SKIP
    """

    def __init__(
        self,
        model: KerasModel,
        save_object_ckpt: bool,
        metric_names_map: Mapping[str, str] | None = None,
        export_outputs: Mapping[str, type] | None = None,
    ) -> None:
        if not getattr(model, "built", False) or not model.variables:
            raise TfportInputError(
                message(
                    f"The Keras 3 model {model.name} is not built (it has no weights yet)",
                    "Build it with keras.Input(...) (Sequential / Functional), or call a "
                    "subclassed model once on a batch, before model_to_estimator()",
                    model=type(model).__name__,
                )
            )
        self.model = model
        self.save_object_ckpt = save_object_ckpt
        self._names_map = metric_names_map
        self._export_outputs = export_outputs
        self.opt_cls, self.opt_config = _optimizers.legacy_class_and_config(model.optimizer)
        # None for subclassed models: features go to call() as given, outputs are named
        # from what call() returns (dict keys, else output_1, output_2, ...).
        graph_net = bool(getattr(model, "inputs", None))
        self.input_names = input_names(model) if graph_net else None
        self.output_names = output_names(model) if graph_net else None
        self.graph_names = [s.graph_name for s in layout(model)]

    def after_graph(self) -> None:
        """Nothing to undo: the Keras 3 model is never changed by graph building."""

    def __call__(self, features: Features, labels: Labels, mode: str) -> EstimatorSpec:
        tf = import_tf()
        gm = GraphModel(self.model)
        features, weights = _inputs.split_sample_weights(features)
        inputs = self._inputs(features)
        training = mode == ModeKeys.TRAIN
        outputs, updates, reg_losses = gm.call(inputs, training=training)
        predictions = dict(zip(self._output_names(outputs), _flat(outputs)))
        loss = replica_loss = train_op = metrics = None
        if mode != ModeKeys.PREDICT:
            replica_loss, loss, metrics = self._loss_and_metrics(
                gm, labels, outputs, weights, reg_losses
            )
        global_step = tf.compat.v1.train.get_global_step()
        optimizer = None
        if training:
            optimizer = _optimizers.build(self.opt_cls, self.opt_config, global_step)
            apply = optimizer.get_updates(replica_loss, gm.of(self.model.trainable_variables))
            train_op = tf.group(*apply, *updates)
        scaffold = None
        if self.save_object_ckpt:
            root = gm.trackable_root(optimizer, global_step)
            scaffold = _saving.object_scaffold(root, global_step)
        return EstimatorSpec(
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=metrics,
            scaffold=scaffold,
            export_outputs=_saving.export_outputs(predictions, self._export_outputs),
        )

    def _loss_and_metrics(
        self, gm: GraphModel, labels: Labels, outputs: object, weights: object, reg_losses: list
    ) -> tuple[Any, Any, dict]:
        """(loss for the gradients, loss to report, eval metric ops)."""
        y_true = self._targets(labels, outputs)
        # Under replicas Keras scales the batch-mean losses and the regularization by the
        # replica's batch share b_r / B (1/N on even batches; gradients are summed across
        # replicas). The Estimator reports the unscaled loss, which the step weights by
        # the same share (see tfport.keras._tfkeras._reported_loss).
        replica_loss = compiled_loss(gm, y_true, outputs, weights, reg_losses)
        loss = replica_loss
        if _inputs.replicas_in_sync() > 1:
            loss = replica_share.unscaled(replica_loss)
            tf_internals.set_last_loss_reduction(
                import_tf().compat.v1.get_default_graph(), "sum_over_batch_size"
            )
        metrics = _metrics.rename(metric_ops(gm, y_true, outputs, weights), self._names_map)
        return replica_loss, loss, metrics

    def _output_names(self, outputs: object) -> list[str]:
        if self.output_names is not None:
            return self.output_names
        if isinstance(outputs, dict):
            return sorted(outputs)
        return [f"output_{i + 1}" for i in range(len(_flat(outputs)))]

    def _inputs(self, features: object) -> Any:
        from keras import tree

        names = self.input_names
        if names is None:  # subclassed: call() takes the features as they come
            return features
        if isinstance(features, dict):
            aliases = _sequential_aliases(self.model, names)
            features = {aliases.get(k, k): v for k, v in features.items()}
        flat = _inputs.ordered(features, names, "features", "inputs") or []
        _inputs.check_count(flat, names, "features")
        struct = keras_internals.inputs_struct(self.model)
        if struct is None or not tree.is_nested(struct):
            return flat[0]
        return tree.pack_sequence_as(struct, flat)

    def _targets(self, labels: Labels, outputs: object) -> Any:
        from keras import tree

        if labels is None:
            raise TfportInputError(
                message(
                    "The input_fn gave no labels for training/evaluation",
                    "Return (features, labels) from the input_fn",
                    labels=None,
                )
            )
        names = self._output_names(outputs)
        flat = _inputs.ordered(labels, names, "labels", "outputs") or []
        _inputs.check_count(flat, names, "labels")
        if not tree.is_nested(outputs):
            return flat[0]
        return tree.pack_sequence_as(outputs, flat)


def _flat(outputs: object) -> list:
    from keras import tree

    return tree.flatten(outputs)


def _sequential_aliases(model: KerasModel, names: list[str]) -> dict[str, str]:
    """Also accept tf_keras's Sequential key `<first layer>_input`."""
    import keras

    if isinstance(model, keras.Sequential) and len(names) == 1 and model.layers:
        return {f"{model.layers[0].name}_input": names[0]}
    return {}


def save_first_checkpoint(fn: ModelFn, config: RunConfig) -> WarmStartSettings:
    """Writes the model's current weights to `model_dir/keras/keras_model.ckpt` (once).

    Returns the WarmStartSettings that start the Estimator from it (every
    model variable, trainable or not).

    Example:
        >>> save_first_checkpoint(fn, run_config)  # doctest: +SKIP
    """
    tf = import_tf()
    keras_dir = os.path.join(config.model_dir, "keras")
    path = tf.train.latest_checkpoint(keras_dir)
    if not path:
        path = _write_first_checkpoint(fn, config, keras_dir)
    names = [re.escape(name) + "(:0)?$" for name in fn.graph_names]
    return WarmStartSettings(path, vars_to_warm_start=names)


def _write_first_checkpoint(fn: ModelFn, config: RunConfig, keras_dir: str) -> str:
    tf = import_tf()
    values = {id(s.variable): s.variable.numpy() for s in layout(fn.model)}
    tf.io.gfile.makedirs(keras_dir)
    path = os.path.join(keras_dir, "keras_model.ckpt")
    with tf.Graph().as_default():
        global_step = tf.compat.v1.train.create_global_step()
        gm = GraphModel(fn.model)
        optimizer = _optimizers.build(fn.opt_cls, fn.opt_config, global_step)
        keras_internals.create_optimizer_variables(optimizer, gm.of(fn.model.trainable_variables))
        assigns = [var.assign(values[key]) for key, var in gm.graph_vars.items()]
        if fn.save_object_ckpt:
            saver = _saving.object_scaffold(
                gm.trackable_root(optimizer, global_step), global_step
            ).saver
        else:
            saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session(config=config.session_config) as session:
            session.run(tf.compat.v1.global_variables_initializer())
            session.run(assigns)
            saver.save(session, path, write_meta_graph=False)
    return path
