"""model_fn and first checkpoint for tf_keras (Keras 2) models.

The model is cloned into each mode's graph with tf_keras's own graph-mode
(`training_v1`) machinery, so the graph, the loss, the metric names and the
optimizer updates are those the legacy `model_to_estimator` built; the
optimizer's `iterations` is the Estimator's global step.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from tfport._common import keras_internals, replica_share, tf_internals
from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, KerasModel, Labels, Tensor, TFModule
from tfport.estimator import EstimatorSpec, ModeKeys
from tfport.keras import _inputs, _metrics, _optimizers, _saving

if TYPE_CHECKING:
    from tfport.estimator import RunConfig


def is_tf_keras_model(model: KerasModel) -> bool:
    """True for a tf_keras (Keras 2) model.

    Example:
        >>> is_tf_keras_model(object())
        False
    """
    try:
        import tf_keras
    except ImportError:  # pragma: no cover - tf_keras is a dependency
        return False
    return isinstance(model, tf_keras.Model)


def is_graph_network(model: KerasModel) -> bool:
    """True for Functional and Sequential models (object checkpoints work for them).

    Example:
        >>> is_graph_network(object())
        False
    """
    import tf_keras

    return keras_internals.is_graph_network(model) or isinstance(model, tf_keras.Sequential)


def check_subclassed(model: KerasModel, custom_objects: Mapping[str, object] | None) -> None:
    """A subclassed model must rebuild itself from its config (legacy rule)."""
    if is_graph_network(model):
        return
    import tf_keras

    try:
        with tf_keras.utils.custom_object_scope(custom_objects or {}):
            model.__class__.from_config(model.get_config())
    except NotImplementedError:
        raise TfportInputError(
            message(
                f"The subclassed Keras model {type(model).__name__} cannot be cloned into an "
                "Estimator graph",
                "Implement get_config() and from_config() on the model class",
                model=type(model).__name__,
            )
        ) from None


class ModelFn:
    """The Estimator model_fn of a tf_keras model (plain per-replica graph code).

    Example:
        >>> fn = ModelFn(model, None, save_object_ckpt=True)  # doctest: +SKIP
        >>> spec = fn(features, labels, "train")  # doctest: +SKIP
    """

    def __init__(
        self,
        model: KerasModel,
        custom_objects: Mapping[str, object] | None,
        save_object_ckpt: bool,
        metric_names_map: Mapping[str, str] | None = None,
        export_outputs: Mapping[str, type] | None = None,
    ):
        self._model = model
        self._custom_objects = custom_objects
        self._save_object_ckpt = save_object_ckpt
        self._metric_names_map = metric_names_map
        self._export_outputs = export_outputs
        self._opt_cls, self._opt_config = _optimizers.legacy_class_and_config(model.optimizer)
        # Read now: cloning in a graph swaps the model class's bases to graph-mode Keras.
        self._compile_args = keras_internals.compile_args(model)

    def after_graph(self) -> None:
        """Called by the Estimator once a graph is built: the eager model works again."""
        restore_eager_classes(self._model)

    def __call__(self, features: Features, labels: Labels, mode: str) -> EstimatorSpec:
        tf = import_tf()
        clone = clone_and_compile(self, mode, features, labels)
        names = _output_names(tf, clone)
        predictions = dict(zip(names, clone.outputs))
        loss = train_op = metric_ops = None
        if mode != ModeKeys.PREDICT:
            if mode == ModeKeys.TRAIN:
                keras_internals.make_train_function(clone)
                train_op = clone.train_function.updates_op
            else:
                with warnings.catch_warnings():  # tf_keras's own deprecation notice
                    warnings.filterwarnings("ignore", message=".*state_updates.*")
                    keras_internals.make_test_function(clone)
            loss = _reported_loss(tf, clone.total_loss)
            metric_ops = _metrics.keras2_metric_ops(clone, self._metric_names_map)
        self._restore_subclassed()
        scaffold = None
        if self._save_object_ckpt:
            scaffold = _saving.object_scaffold(clone, tf.compat.v1.train.get_global_step())
        return EstimatorSpec(
            mode=mode,
            predictions=predictions,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=metric_ops,
            export_outputs=_saving.export_outputs(predictions, self._export_outputs),
            scaffold=scaffold,
        )

    def _restore_subclassed(self) -> None:
        model = self._model
        if not is_graph_network(model) and keras_internals.has_subclassed_state(model):
            import tf_keras

            tf_keras.__internal__.models.in_place_subclassed_model_state_restoration(model)


def restore_eager_classes(model: KerasModel) -> None:
    """Makes the user's eager model usable again after cloning it into a graph.

    Building a tf_keras model in a graph swaps the bases of its (shared) classes
    to graph-mode Keras, which breaks the eager original ("invalid state" on
    predict/fit, a legacy limitation); this swaps them back.

    Example:
        >>> restore_eager_classes(model)  # doctest: +SKIP
    """
    keras_internals.restore_eager_classes(model)


def clone_and_compile(
    fn: ModelFn, mode: str, features: Features | None = None, labels: Labels = None
) -> Any:
    """Clones `fn`'s model into the current graph on the Estimator's tensors and compiles it.

    Example:
        >>> clone = clone_and_compile(fn, "train", features, labels)  # doctest: +SKIP
    """
    import tf_keras

    tf = import_tf()
    model = fn._model
    # the public set_learning_phase only adds a deprecation UserWarning to this call
    keras_internals.set_learning_phase(mode == ModeKeys.TRAIN)
    inputs, targets, weights = _to_keras_io(model, features, labels)
    compile_clone = mode != ModeKeys.PREDICT
    global_step = None
    args: dict = {}
    if compile_clone:
        args = dict(fn._compile_args)
        global_step = tf.compat.v1.train.get_or_create_global_step()
        tf_keras.__internal__.backend.track_variable(global_step)
    clone = tf_keras.__internal__.models.clone_and_build_model(
        model,
        inputs,
        None,
        fn._custom_objects,
        compile_clone=False,
        in_place_reset=not is_graph_network(model),
    )
    if compile_clone:
        args["optimizer"] = _optimizers.build(fn._opt_cls, fn._opt_config, global_step)
        args["metrics"] = keras_internals.clone_metrics(args["metrics"])
        args["weighted_metrics"] = keras_internals.clone_metrics(args["weighted_metrics"])
        if targets is not None:
            args["target_tensors"] = targets
        clone.compile(**args)
        if weights is not None:
            keras_internals.compile_sample_weights(
                clone, _standardize_weights(weights, clone.output_names)
            )
    return clone


def _to_keras_io(
    model: KerasModel, features: Features | None, labels: Labels
) -> tuple[Any, Any, Any]:
    features, weights = _inputs.split_sample_weights(features)
    graph_net = is_graph_network(model) and keras_internals.is_graph_network(model)
    in_names = list(model.input_names) if graph_net else None
    out_names = list(model.output_names) if graph_net else None
    inputs = _inputs.ordered(features, in_names, "features", "inputs")
    if in_names:
        _inputs.check_count(inputs, in_names, "features")
    targets = _inputs.ordered(labels, out_names, "labels", "outputs")
    if out_names and targets is not None:
        _inputs.check_count(targets, out_names, "labels")
    return inputs, targets, weights


def _reported_loss(tf: TFModule, total_loss: Tensor) -> Any:
    """The loss a replica reports: `total_loss` without tf_keras's distribution scaling.

    Under N replicas tf_keras scales the batch-mean losses and the regularization by the
    replica's share `b_r / B` of the global batch (1/N when it divides evenly; see
    `tfport._common.replica_share`) and leaves summed losses alone, so the summed
    gradients are one device's. Dividing the whole total by the share gives the value
    that the replicated step's share-weighted sum turns into one device's loss: the
    means' weighted mean, the sums' sum and the regularization once.
    """
    if _inputs.replicas_in_sync() <= 1:
        return total_loss
    # tf_keras leaves its own last reduction ("none") on the graph; the step must weight
    # this loss by the batch shares, never sum it.
    tf_internals.set_last_loss_reduction(tf.compat.v1.get_default_graph(), "sum_over_batch_size")
    return replica_share.unscaled(total_loss)


def _standardize_weights(weights: object, output_names: list[str]) -> list:
    if isinstance(weights, dict):
        return [weights.get(name) for name in output_names]
    if isinstance(weights, (list, tuple)):
        return list(weights)
    return [weights] + [None] * (len(output_names) - 1)


def _output_names(tf: TFModule, clone: KerasModel) -> list[str]:
    # Under a distribution strategy every replica's clone must use the same keys.
    if tf.distribute.has_strategy():
        return [re.sub(r"_\d$", "", name) for name in clone.output_names]
    return list(clone.output_names)


def save_first_checkpoint(fn: ModelFn, config: RunConfig) -> str:
    """Writes the model's current weights to `model_dir/keras/keras_model.ckpt` (once).

    Returns the checkpoint prefix the Estimator warm-starts from.

    Example:
        >>> save_first_checkpoint(fn, run_config)  # doctest: +SKIP
        '/m/keras/keras_model.ckpt'
    """
    tf = import_tf()
    keras_dir = os.path.join(config.model_dir, "keras")
    latest = tf.train.latest_checkpoint(keras_dir)
    if latest:
        return latest
    weights = fn._model.get_weights()
    tf.io.gfile.makedirs(keras_dir)
    path = os.path.join(keras_dir, "keras_model.ckpt")
    with tf.Graph().as_default():
        tf.compat.v1.random.set_random_seed(config.tf_random_seed)
        global_step = tf.compat.v1.train.create_global_step()
        clone = clone_and_compile(fn, ModeKeys.TRAIN)
        keras_internals.make_train_function(clone)
        with tf.compat.v1.Session(config=config.session_config) as session:
            if weights:
                clone.set_weights(weights)
            import tf_keras

            tf_keras.__internal__.backend.initialize_variables(session)
            if fn._save_object_ckpt:
                tf_internals.track_child(clone, global_step, "estimator_global_step")
                clone.save_weights(path)
            else:
                tf.compat.v1.train.Saver().save(session, path)
    restore_eager_classes(fn._model)
    return path
