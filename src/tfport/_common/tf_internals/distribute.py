"""The one place tfport touches TensorFlow's internals.

Every `tensorflow.python.*` import and every read or write of a private attribute of a
TensorFlow object lives here, behind a named function saying what it relies on and since
which TensorFlow version it has held (all of them hold on 2.16 - 2.21, the tested range).
Everything else in tfport uses these functions or TensorFlow's public API
(`tests/test_boundary.py` checks; `tests/test_tf_canary.py` touches every symbol listed in
`SYMBOLS` and every private attribute read here, so a TensorFlow release that moves one
breaks one test naming it).

Importing this module does not import TensorFlow: each function imports what it needs.

Example:
    >>> from tfport._common import tf_internals
    >>> ("training.evaluation", "_StopAfterNEvalsHook") in tf_internals.SYMBOLS
    True
"""

from __future__ import annotations

import contextlib
import importlib
import re
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

# (module under `tensorflow.python`, attribute): every internal symbol tfport uses.
SYMBOLS: tuple[tuple[str, str], ...] = (
    ("ops.lookup_ops", "index_table_from_file"),
    ("ops.clustering_ops", "KMeans"),
    ("saved_model.model_utils.export_output", "ExportOutput"),
    ("saved_model.model_utils.export_utils", "get_timestamped_export_dir"),
    ("feature_column.feature_column", "_NumericColumn"),
    ("feature_column.feature_column_v2", "SharedEmbeddingColumn"),
    ("tpu.feature_column", "_TPUEmbeddingColumn"),
    ("tpu.feature_column_v2", "_TPUEmbeddingColumnV2"),
    ("tpu.tpu_function", "get_tpu_context"),
    ("tpu.tpu_optimizer", "CrossShardOptimizer"),
    ("training.saving.saveable_object", "SaveableObject"),
    ("training.saving.saveable_object", "SaveSpec"),
    ("training.saving.saveable_object_util", "op_list_to_dict"),
    ("training.saving.saveable_object_util", "saveable_objects_from_trackable"),
    ("trackable.base", "VARIABLE_VALUE_KEY"),
    ("trackable.autotrackable", "AutoTrackable"),
    ("distribute.values", "DistributedValues"),
    ("distribute.values", "PerReplica"),
    ("distribute.mirrored_strategy", "MirroredExtended"),
    ("distribute.cross_device_ops", "CollectiveAllReduce"),
    ("distribute.cross_device_ops", "ReductionToOneDevice"),
    ("distribute.distribute_utils", "get_loss_reduction"),
    ("distribute.reduce_util", "ReduceOp"),
    ("training.optimizer", "Optimizer"),
    ("training.training_util", "GLOBAL_STEP_READ_KEY"),
    ("training.evaluation", "_get_or_create_eval_step"),
    ("training.evaluation", "_StopAfterNEvalsHook"),
    ("training.checkpoint_utils", "_init_from_checkpoint"),
    ("checkpoint.checkpoint", "frozen_saver"),
    ("checkpoint.graph_view", "ObjectGraphView"),
    ("eager.context", "context"),
    ("eager.context", "eager_mode"),
    ("saved_model.loader_impl", "SavedModelLoader"),
    ("saved_model.loader_impl", "_get_main_op_tensor"),
    ("saved_model.loader_impl", "get_asset_tensors"),
    ("ops.summary_ops_v2", "_SUMMARY_WRITER_INIT_COLLECTION_NAME"),
    ("ops.resource_variable_ops", "ResourceVariable"),
    ("framework.random_seed", "get_seed"),
    ("framework.random_seed", "_graph_to_seed_dict"),
    ("ops.gen_random_ops", "random_uniform"),
    ("ops.gen_random_ops", "random_standard_normal"),
    ("ops.gen_random_ops", "truncated_normal"),
    ("ops.control_flow_ops", "XLAControlFlowContext"),
    ("util.tf_should_use", "_add_should_use_warning"),
    ("ops.summary_ops_v2", "_summary_state"),
    ("summary.writer.writer", "FileWriter"),
    ("summary.writer.writer_cache", "FileWriter"),
    ("ops.variable_scope", "with_variable_store"),
    ("ops.variable_scope", "_VariableStore"),
    ("ops.variable_scope", "_VariableScopeStore"),
    ("ops.variable_scope", "_VARSCOPESTORE_KEY"),
    ("tpu.feature_column", "_TPU_FC_TO_SCOPE"),
    ("tpu.feature_column", "_TPUSharedEmbeddingColumn"),
    ("tpu.feature_column_v2", "_TPUSharedEmbeddingColumnV2"),
    ("tpu.feature_column_v2", "pad_sparse_embedding_lookup_indices"),
    ("tpu.feature_column_v2", "_TENSOR_CORE_MASK_KEY_SUFFIX"),
    # issue 41, TPU computation builders: legacy TPUEstimator's train/eval/predict programs
    ("tpu.tpu", "split_compile_and_shard"),
    ("tpu.tpu", "prune_unconnected_ops_from_xla"),
    ("tpu.training_loop", "while_loop"),
    ("tpu.training_loop", "repeat"),
    ("tpu.tpu_function", "on_device_training_loop"),
    ("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2"),
    ("tpu.feature_column_v2", "_TPUSharedDeviceSpecificEmbeddingColumnV2"),
    ("feature_column.feature_column", "_EmbeddingColumn"),
    ("feature_column.feature_column", "_SharedEmbeddingColumn"),
    ("feature_column.feature_column_v2", "EmbeddingColumn"),
    ("feature_column.feature_column_v2", "NumericColumn"),
)

# (module under `tensorflow.python`, class or None for the module, attribute): every
# private attribute of a TensorFlow object read or written here. The class has it (a
# method) or sets it on its instances (`self.<attribute> = ...` in its source).
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2", "_tensor_core_shape"),
    ("ops.variables", "Variable", "_save_slice_info"),
    ("ops.variables", "PartitionedVariable", "_get_variable_list"),
    (
        "distribute.collective_all_reduce_strategy",
        "CollectiveAllReduceExtended",
        "_in_multi_worker_mode",
    ),
    ("distribute.collective_all_reduce_strategy", "CollectiveAllReduceExtended", "_num_workers"),
    ("distribute.collective_all_reduce_strategy", "CollectiveAllReduceExtended", "_id_in_cluster"),
    ("distribute.mirrored_strategy", "MirroredExtended", "_cross_device_ops"),
    ("distribute.cross_device_ops", "CollectiveAllReduce", "_launchers"),
    ("distribute.cross_device_utils", "CollectiveReplicaLauncher", "_device"),
    ("distribute.distribute_lib", "StrategyBase", "_scale_loss_for_estimator_enabled"),
    ("training.optimizer", "Optimizer", "_scale_loss"),
    ("framework.ops", "Graph", "_is_loss_scaled_by_optimizer"),
    ("framework.ops", "Graph", "_last_loss_reduction"),
    ("framework.ops", "Graph", "_distribution_strategy_stack"),
    ("framework.ops", "Graph", "_variable_creator_stack"),
    ("framework.ops", "Operation", "_get_control_flow_context"),
    ("framework.ops", "Graph", "_get_control_flow_context"),
    ("framework.ops", "Operation", "_update_input"),
    ("saved_model.builder_impl", "SavedModelBuilder", "_add_train_op"),
    ("training.evaluation", "_StopAfterNEvalsHook", "_set_evals_completed_tensor"),
    ("training.checkpoint_utils", None, "_init_from_checkpoint"),
    ("training.basic_session_run_hooks", "CheckpointSaverHook", "_listeners"),
    ("training.basic_session_run_hooks", "CheckpointSaverHook", "_checkpoint_dir"),
    ("training.basic_session_run_hooks", "CheckpointSaverHook", "_steps_per_run"),
    ("training.basic_session_run_hooks", "StepCounterHook", "_summary_writer"),
    ("training.basic_session_run_hooks", "StepCounterHook", "_steps_per_run"),
    ("training.basic_session_run_hooks", "SummarySaverHook", "_next_step"),
    ("training.basic_session_run_hooks", "LoggingTensorHook", "_iter_count"),
    ("training.monitored_session", "Scaffold", "_saver"),
    ("training.monitored_session", "MonitoredSession", "_tf_sess"),
    ("client.session", "BaseSession", "_closed"),
    ("client.session", "BaseSession", "_do_call"),
    ("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2", "_embedding_lookup_device"),
    ("training.adam", "AdamOptimizer", "_beta1"),
    ("training.adam", "AdamOptimizer", "_beta2"),
    ("training.adam", "AdamOptimizer", "_epsilon"),
    ("training.adam", "AdamOptimizer", "_lr"),
    ("training.gradient_descent", "GradientDescentOptimizer", "_learning_rate"),
    ("training.adagrad", "AdagradOptimizer", "_initial_accumulator_value"),
    ("training.ftrl", "FtrlOptimizer", "_learning_rate_power"),
    ("training.ftrl", "FtrlOptimizer", "_l1_regularization_strength"),
    ("training.ftrl", "FtrlOptimizer", "_l2_regularization_strength"),
    ("training.ftrl", "FtrlOptimizer", "_l2_shrinkage_regularization_strength"),
    ("training.ftrl", "FtrlOptimizer", "_beta"),
    ("util.module_wrapper", "TFModuleWrapper", "_tfmw_wrapped_module"),
    ("trackable.base", "Trackable", "_track_trackable"),
    (
        "distribute.distribute_lib",
        "StrategyExtendedV2",
        "_experimental_distribute_values_from_function",
    ),
    ("training.saver", "Saver", "_object_restore_saver"),
    ("framework.ops", "Operation", "_add_control_inputs"),
    ("framework.ops", "Operation", "_control_outputs"),
    ("distribute.distribute_lib", "ReplicaContext", "_replica_id_in_sync_group"),
)


def _tf(module: str, name: str) -> Any:
    """`tensorflow.python.<module>.<name>` (TensorFlow imported the tfport way first)."""
    from tfport._common.tfenv import import_tf

    import_tf()
    return getattr(importlib.import_module(f"tensorflow.python.{module}"), name)


def _module(module: str) -> Any:
    from tfport._common.tfenv import import_tf

    import_tf()
    return importlib.import_module(f"tensorflow.python.{module}")


# --- modules with no public path ------------------------------------------------------


def lookup_ops() -> Any:
    """`tensorflow.python.ops.lookup_ops` (contrib's index/string tables; TF >= 1.x).

    Example:
        >>> lookup_ops().index_table_from_file  # doctest: +SKIP
    """
    return _module("ops.lookup_ops")


def clustering_ops() -> Any:
    """`tensorflow.python.ops.clustering_ops` (the k-means graph `KMeans`; TF >= 1.x).

    Example:
        >>> clustering_ops().KMeans  # doctest: +SKIP
    """
    return _module("ops.clustering_ops")


def export_output() -> Any:
    """`tensorflow.python.saved_model.model_utils.export_output` (PredictOutput, ...).

    The Estimator's export output classes; no public path since `tf.estimator` left
    TensorFlow (2.16). Present since TF 2.1.

    Example:
        >>> export_output().PredictOutput  # doctest: +SKIP
    """
    return _module("saved_model.model_utils.export_output")


def export_utils() -> Any:
    """`tensorflow.python.saved_model.model_utils.export_utils` (TF >= 2.1).

    Timestamped export directories and the signature defs of export outputs.

    Example:
        >>> export_utils().get_timestamped_export_dir  # doctest: +SKIP
    """
    return _module("saved_model.model_utils.export_utils")


def feature_column_v1() -> Any:
    """`tensorflow.python.feature_column.feature_column` (TF1 columns; TF >= 1.x)."""
    return _module("feature_column.feature_column")


def feature_column_v2() -> Any:
    """`tensorflow.python.feature_column.feature_column_v2` (StateManager etc.; TF >= 2.0)."""
    return _module("feature_column.feature_column_v2")


def tpu_feature_columns() -> tuple[Any, Any] | None:
    """TF's TPU embedding column modules `(feature_column, feature_column_v2)`, or None.

    Present in CPU builds since TF 1.14; None where a build leaves them out.
    """
    try:
        return _module("tpu.feature_column"), _module("tpu.feature_column_v2")
    except ImportError:  # pragma: no cover - TensorFlow without its TPU columns
        return None


def tpu_shard_count() -> int | None:
    """The shard count of the TPU function being built (`tpu_function`), None outside one."""
    return _tf("tpu.tpu_function", "get_tpu_context")().number_of_shards


def cross_shard_optimizer_class() -> Any:
    """`tensorflow.python.tpu.tpu_optimizer.CrossShardOptimizer` (TF >= 1.x)."""
    return _tf("tpu.tpu_optimizer", "CrossShardOptimizer")


def auto_trackable() -> Any:
    """A new `AutoTrackable` (the plain checkpoint node; `trackable.autotrackable`, TF >= 2.9)."""
    return _tf("trackable.autotrackable", "AutoTrackable")()


def eager_mode() -> Any:
    """`context.eager_mode()`: a block run eagerly even inside a v1 graph (TF >= 2.0)."""
    return _tf("eager.context", "eager_mode")()


def eager_context_config() -> Any:
    """The eager context's merged `ConfigProto` (`context.context().config`, TF >= 2.0)."""
    return _tf("eager.context", "context")().config


# --- variables, saveables, trackables -------------------------------------------------


def save_slice_info(var: Any) -> Any:
    """A partitioned variable part's `_save_slice_info` (full name, shape), else None.

    Set on every part of a `PartitionedVariable` since TF 1.x.
    """
    return getattr(var, "_save_slice_info", None)


def is_partitioned_variable(value: Any) -> bool:
    """True for a v1 `PartitionedVariable` (it has `_get_variable_list` since TF 1.x)."""
    return hasattr(value, "_get_variable_list")


def saveable_object_class() -> Any:
    """`saveable_object.SaveableObject` (a v1 Saver's unit of saving; TF >= 1.x)."""
    return _tf("training.saving.saveable_object", "SaveableObject")


def save_spec_class() -> Any:
    """`saveable_object.SaveSpec` (one tensor of a SaveableObject; TF >= 1.x)."""
    return _tf("training.saving.saveable_object", "SaveSpec")


def saver_key(var: Any) -> str:
    """The name a v1 Saver stores `var` under (`saveable_object_util.op_list_to_dict`)."""
    util = _module("training.saving.saveable_object_util")
    (name,) = util.op_list_to_dict([var]).keys()
    return name


def distributed_saveables(var: Any, name: str) -> dict:
    """`{key: saveable}` saving every replica of a distributed `var` under `name`.

    Uses `saveable_objects_from_trackable(tf1_saver=True)` (TF >= 2.11) and
    `trackable.base.VARIABLE_VALUE_KEY`.
    """
    util = _module("training.saving.saveable_object_util")
    value_key = _tf("trackable.base", "VARIABLE_VALUE_KEY")
    out = {}
    factories = util.saveable_objects_from_trackable(var, tf1_saver=True)
    for attr, factory in factories.items():
        full = name if attr == value_key else f"{name}_{attr}"
        out[full] = factory(name=full) if callable(factory) else factory
    return out


def track_child(parent: Any, child: Any, name: str) -> None:
    """Makes `child` a checkpoint dependency `name` of the trackable `parent`.

    `Trackable._track_trackable(overwrite=True)`, TF >= 2.0.
    """
    parent._track_trackable(child, name, overwrite=True)


def object_graph_view(root: Any) -> Any:
    """`graph_view.ObjectGraphView(root)`: the object graph a checkpoint saves (TF >= 2.5)."""
    return _tf("checkpoint.graph_view", "ObjectGraphView")(root)


def object_based_saver(root: Any, sharded: bool = True) -> Any:
    """A v1 Saver writing `root`'s object graph, restoring object-based checkpoints too.

    Relies on `ObjectGraphView.frozen_saveable_objects`, `checkpoint.frozen_saver` and the
    Saver's `_object_restore_saver` slot (TF >= 2.5).
    """
    import tensorflow as tf

    var_list = object_graph_view(root).frozen_saveable_objects()
    saver = tf.compat.v1.train.Saver(var_list=var_list, sharded=sharded)
    saver._object_restore_saver = _tf("checkpoint.checkpoint", "frozen_saver")(root)
    return saver


# --- distribution ----------------------------------------------------------------------


def is_distributed_values(value: Any) -> bool:
    """True for a MirroredVariable, PerReplica, ... (`values.DistributedValues`, TF >= 2.0)."""
    return isinstance(value, _tf("distribute.values", "DistributedValues"))


def per_replica(values: tuple) -> Any:
    """`values.PerReplica(values)`: one value per local replica (TF >= 2.0)."""
    return _tf("distribute.values", "PerReplica")(values)


def is_single_worker_mirrored(strategy: Any) -> bool:
    """True when `strategy.extended` is exactly `MirroredExtended` (not multi-worker)."""
    extended = getattr(strategy, "extended", None)
    return type(extended) is _tf("distribute.mirrored_strategy", "MirroredExtended")


def in_multi_worker_mode(strategy: Any) -> bool:
    """`strategy.extended._in_multi_worker_mode()` (False where absent; TF >= 2.0)."""
    check = getattr(strategy.extended, "_in_multi_worker_mode", None)
    return bool(check and check())


def worker_position(strategy: Any) -> tuple[int, int]:
    """`(workers, this worker's index)` of a multi-worker strategy.

    `extended._num_workers` and `extended._id_in_cluster` (CollectiveAllReduceExtended,
    TF >= 2.0).
    """
    extended = strategy.extended
    return int(extended._num_workers), int(extended._id_in_cluster)


def collective_launchers(strategy: Any) -> tuple:
    """The collective launchers of a multi-worker strategy's cross-device ops, else ().

    `extended._cross_device_ops._launchers` (CollectiveAllReduce, TF >= 2.4).
    """
    extended = getattr(strategy, "extended", None)
    return tuple(getattr(getattr(extended, "_cross_device_ops", None), "_launchers", ()))


def launcher_device(launcher: Any) -> Any:
    """The device a collective launcher runs on (`CollectiveReplicaLauncher._device`)."""
    return launcher._device


def reduce_to_one_device(strategy: Any) -> None:
    """Replaces a single-worker MirroredStrategy's collective all-reduce (graph mode).

    `extended._cross_device_ops`, `CollectiveAllReduce`, `ReductionToOneDevice` (TF >= 2.0).
    """
    extended = strategy.extended
    if isinstance(
        extended._cross_device_ops, _tf("distribute.cross_device_ops", "CollectiveAllReduce")
    ):
        extended._cross_device_ops = _tf("distribute.cross_device_ops", "ReductionToOneDevice")()


def scale_loss_for_estimator(strategy: Any) -> Any:
    """`strategy._scale_loss_for_estimator_enabled()`: v1 optimizers divide losses by N.

    The context manager TF kept for the Estimator (TF >= 2.2).
    """
    return strategy._scale_loss_for_estimator_enabled()


def loss_reduction_is_mean() -> bool:
    """True when the current loss reduction is MEAN (`distribute_utils.get_loss_reduction`)."""
    reduce_op = _tf("distribute.reduce_util", "ReduceOp")
    return _tf("distribute.distribute_utils", "get_loss_reduction")() == reduce_op.MEAN


@contextlib.contextmanager
def v1_optimizer_loss_scaling(scale: Callable[[Any], Any]) -> Iterator[None]:
    """v1 optimizers scale each replica's loss with `scale` in the block.

    Replaces the static `training.optimizer.Optimizer._scale_loss` (TF >= 1.14).
    """
    optimizer = _tf("training.optimizer", "Optimizer")
    original = optimizer.__dict__["_scale_loss"]
    optimizer._scale_loss = staticmethod(scale)
    try:
        yield
    finally:
        optimizer._scale_loss = original


def mark_loss_scaled(graph: Any, scaled: bool) -> None:
    """Sets `graph._is_loss_scaled_by_optimizer` (read by v1 loss reductions; TF >= 2.0)."""
    graph._is_loss_scaled_by_optimizer = scaled


def loss_scaled_by_optimizer(graph: Any) -> bool:
    """`graph._is_loss_scaled_by_optimizer` (False where unset; TF >= 2.0)."""
    return bool(getattr(graph, "_is_loss_scaled_by_optimizer", False))


def last_loss_reduction(graph: Any) -> Any:
    """`graph._last_loss_reduction` (set by v1 `compute_weighted_loss`, TF >= 2.0), or None."""
    return getattr(graph, "_last_loss_reduction", None)


def set_last_loss_reduction(graph: Any, reduction: str) -> None:
    """Sets `graph._last_loss_reduction` as v1 `compute_weighted_loss` does."""
    graph._last_loss_reduction = reduction


# --- graphs, sessions, hooks -----------------------------------------------------------


def global_step_read_key() -> str:
    """`training_util.GLOBAL_STEP_READ_KEY`: the collection of global-step reads."""
    return _tf("training.training_util", "GLOBAL_STEP_READ_KEY")


def control_flow_context(op: Any) -> Any:
    """`op._get_control_flow_context()`: the v1 while/cond context of an op, or None."""
    return op._get_control_flow_context()


def update_op_input(op: Any, index: int, tensor: Any) -> None:
    """Rewires input `index` of a graph op to `tensor` (`Operation._update_input`)."""
    op._update_input(index, tensor)


def add_train_op(builder: Any, train_op: Any) -> None:
    """`SavedModelBuilder._add_train_op`: the legacy exporter's record of the train op."""
    builder._add_train_op(train_op)


def stop_after_n_evals_hook(steps: int | None) -> Any:
    """`evaluation._StopAfterNEvalsHook(steps, log_progress=True)` (TF >= 1.x): the hook of
    legacy's `Estimator._convert_eval_steps_to_hooks`."""
    return _tf("training.evaluation", "_StopAfterNEvalsHook")(steps, log_progress=True)


def eval_step_and_stop_hooks(hooks: list) -> tuple[Any, list, Callable[[Any], None]]:
    """`(eval_step, added_hooks, set_increment)` as `tf.compat.v1` evaluation uses them.

    `set_increment(tensor)` tells every `_StopAfterNEvalsHook` of `hooks` (and the one
    `added_hooks` holds when there is none: it counts without a limit) the completed-evals
    tensor (`evaluation._get_or_create_eval_step`, `_StopAfterNEvalsHook`,
    `_set_evals_completed_tensor`, TF >= 1.x).
    """
    cls = _tf("training.evaluation", "_StopAfterNEvalsHook")
    eval_step = get_or_create_eval_step()
    stops = [h for h in hooks if isinstance(h, cls)]
    added = [] if stops else [stop_after_n_evals_hook(None)]

    def set_increment(tensor: Any) -> None:
        for hook in stops + added:
            hook._set_evals_completed_tensor(tensor)

    return eval_step, added, set_increment


@contextlib.contextmanager
def init_from_checkpoint_in_init_scope() -> Iterator[None]:
    """`init_from_checkpoint` called in a function body builds its assigns outside it.

    Wraps `checkpoint_utils._init_from_checkpoint` (the function the public one calls in
    each replica, TF >= 2.0) in `init_scope`.
    """
    import tensorflow as tf

    utils = _module("training.checkpoint_utils")
    original = utils._init_from_checkpoint

    def lifted(ckpt_dir_or_file: Any, assignment_map: Any) -> Any:
        with tf.init_scope():
            return original(ckpt_dir_or_file, assignment_map)

    utils._init_from_checkpoint = lifted
    try:
        yield
    finally:
        utils._init_from_checkpoint = original


def set_hook_run_length(hook: Any, steps: int, end: int) -> None:
    """Tells a hook that one `session.run` now makes `steps` steps, ending at step `end`.

    Sets `_steps_per_run` where a hook has it (StepCounterHook, CheckpointSaverHook and
    tfport's logging hooks; TF >= 1.13) and moves a `SummarySaverHook`'s `_next_step`
    (which assumes one step per run) to `end`.
    """
    import tensorflow as tf

    if hasattr(hook, "_steps_per_run"):
        hook._steps_per_run = steps
    if isinstance(hook, tf.compat.v1.train.SummarySaverHook) and hook._next_step is not None:
        hook._next_step = end


def count_more_iterations(hook: Any, count: int) -> None:
    """Adds `count` runs to a `LoggingTensorHook`'s run counter (`_iter_count`, TF >= 1.x)."""
    hook._iter_count += count


def scaffold_saver(scaffold: Any) -> Any:
    """A `Scaffold`'s Saver as set so far (`_saver`, None until made; TF >= 1.x)."""
    return scaffold._saver


def set_scaffold_saver(scaffold: Any, saver: Any) -> None:
    """Sets a `Scaffold`'s Saver (`_saver`), as its `finalize` would."""
    scaffold._saver = saver


def saver_hook_listeners(hook: Any) -> list:
    """A `CheckpointSaverHook`'s listener list (`_listeners`, TF >= 1.x), to extend."""
    return hook._listeners


def saver_hook_directory(hook: Any) -> str:
    """A `CheckpointSaverHook`'s checkpoint directory (`_checkpoint_dir`, TF >= 1.x)."""
    return hook._checkpoint_dir


def hook_summary_writer(hook: Any) -> Any:
    """A `StepCounterHook`'s summary writer (`_summary_writer`, None without one)."""
    return hook._summary_writer


def raw_session(monitored: Any) -> Any:
    """The `tf.compat.v1.Session` under a MonitoredSession (`_tf_sess()`), else None."""
    get = getattr(monitored, "_tf_sess", None)
    return get() if get is not None else None


def session_closed(session: Any) -> bool:
    """`Session._closed` (TF >= 1.x)."""
    return bool(session._closed)


def call_callable(session: Any, callable_fn: Any, options: Any, run_metadata: Any) -> Any:
    """Runs a `make_callable` result with options (`BaseSession._do_call`, TF >= 1.x)."""
    return session._do_call(callable_fn, options, run_metadata)


def embedding_lookup_device(column: Any) -> Any:
    """A TPU embedding column's `_embedding_lookup_device` (TF >= 2.4), None elsewhere."""
    return getattr(column, "_embedding_lookup_device", None)


def v1_optimizer_hyperparameters(opt: Any) -> dict[str, Any]:
    """The constructor arguments a `tf.compat.v1.train` optimizer keeps as private fields.

    `_learning_rate` (`_lr` before TF 1.x's rename), `_initial_accumulator_value`,
    `_beta1`, `_beta2`, `_epsilon`, `_learning_rate_power`, `_l1/_l2_regularization_strength`,
    `_l2_shrinkage_regularization_strength`, `_beta` (each present on its optimizer).
    """
    names = (
        "initial_accumulator_value",
        "beta1",
        "beta2",
        "epsilon",
        "learning_rate_power",
        "l1_regularization_strength",
        "l2_regularization_strength",
        "l2_shrinkage_regularization_strength",
        "beta",
    )
    out = {name: getattr(opt, "_" + name) for name in names if hasattr(opt, "_" + name)}
    out["learning_rate"] = getattr(opt, "_learning_rate", getattr(opt, "_lr", None))
    return out


def module_wrapper_target(module: Any) -> Any:
    """The module a `TFModuleWrapper` (TF's lazy API modules) wraps, else None.

    `_tfmw_wrapped_module`, TF >= 2.0.
    """
    return getattr(module, "_tfmw_wrapped_module", None)


def tf_python_package() -> Any:
    """`tensorflow.python` if TensorFlow was imported, else None (never imports it)."""
    return sys.modules.get("tensorflow.python")


def distribute_python_package() -> Any:
    """`tensorflow.python.distribute` if loaded, else None (TF >= 1.x; never imports it)."""
    return sys.modules.get("tensorflow.python.distribute")


def tpu_python_package() -> Any:
    """`tensorflow.python.tpu` if loaded, else None (TF >= 1.x; never imports it)."""
    return sys.modules.get("tensorflow.python.tpu")


@contextlib.contextmanager
def outer_graph_shares_replica_stacks() -> Iterator[None]:
    """In a function graph built by a replica thread, the outer graph gets its stacks.

    The outer graph's `_distribution_strategy_stack` and `_variable_creator_stack` are
    the inner (function) graph's for the block, so `init_scope` creates variables as the
    replica would (per-graph, per-thread stacks of `ops.Graph`, TF >= 2.0). Does nothing
    outside a function graph or when the outer context is eager.
    """
    import tensorflow as tf

    inner = tf.compat.v1.get_default_graph()
    if not getattr(inner, "building_function", False):
        yield
        return
    with tf.init_scope():
        outer = tf.compat.v1.get_default_graph()
    if outer is inner or getattr(outer, "building_function", False):
        yield  # eager outer context (tf.function): nothing to lift into
        return
    saved = (outer._distribution_strategy_stack, outer._variable_creator_stack)
    outer._distribution_strategy_stack = list(inner._distribution_strategy_stack)
    outer._variable_creator_stack = inner._variable_creator_stack
    try:
        yield
    finally:
        outer._distribution_strategy_stack, outer._variable_creator_stack = saved


# --- TF1 SavedModel loading (SavedModelEstimator) --------------------------------------


def saved_model_loader(export_dir: str) -> Any:
    """`tensorflow.python.saved_model.loader_impl.SavedModelLoader(export_dir)`.

    The TF1 SavedModel reader behind `tf.compat.v1.saved_model.load`: meta graphs by tag
    (`get_meta_graph_def_from_tags`) and `load_graph(graph, tags, input_map,
    return_elements)` without a session (TF >= 1.11, unchanged to 2.21).
    """
    return _tf("saved_model.loader_impl", "SavedModelLoader")(export_dir)


def saved_model_main_op(meta_graph_def: Any) -> Any:
    """The main op (`saved_model_main_op` collection) of a meta graph imported into the
    default graph, or None: `loader_impl._get_main_op_tensor` (TF >= 1.12)."""
    return _tf("saved_model.loader_impl", "_get_main_op_tensor")(meta_graph_def)


def saved_model_asset_tensors(export_dir: str, meta_graph_def: Any) -> dict:
    """`{asset tensor: asset file path}` of an imported meta graph:
    `loader_impl.get_asset_tensors` (TF >= 1.12)."""
    get = _tf("saved_model.loader_impl", "get_asset_tensors")
    return get(export_dir, meta_graph_def, import_scope=None)


def distribute_values_from_function(strategy: Any, value_fn: Any) -> Any:
    """Per-replica values made by `value_fn(value_context)` on each replica of `strategy`.

    Relies on `tf.distribute.Strategy.experimental_distribute_values_from_function` (v2
    strategies) or, for the v1 strategies the Estimator engine uses (which lack the public
    method), the private `StrategyExtended._experimental_distribute_values_from_function`.

    Example:
        >>> distribute_values_from_function(strategy, lambda ctx: x[ctx.replica_id_in_sync_group])
        ... # doctest: +SKIP
    """
    public = getattr(strategy, "experimental_distribute_values_from_function", None)
    if public is not None:
        return public(value_fn)
    return strategy.extended._experimental_distribute_values_from_function(value_fn)


# --- TPU programs (issue 28): host_call, seeds, model-owned steps, replicated draws ---


def summary_writer_init_ops(graph: Any) -> list:
    """The initializer ops of the summary writers made in `graph` (TF2 and v2-in-graph).

    Relies on `summary_ops_v2._SUMMARY_WRITER_INIT_COLLECTION_NAME`, the collection
    where graph-mode `create_file_writer` registers its writer's init op (whose first
    input is the writer resource), as legacy TPUEstimator's host-call hook read it.
    """
    from tensorflow.python.ops import summary_ops_v2

    return list(graph.get_collection(summary_ops_v2._SUMMARY_WRITER_INIT_COLLECTION_NAME))


def local_buffer_variable(shape: list, dtype: Any, name: str) -> Any:
    """A zero-filled local resource variable on the CPU, outside any loop or strategy.

    Relies on `resource_variable_ops.ResourceVariable` being constructed directly (not
    through `tf.Variable`), which bypasses the variable-creator scopes a distribution
    strategy installs, so the buffer is one plain variable, not one per replica, and on
    `ops.init_scope` lifting it out of any `while_loop` body.
    """
    import tensorflow as tf
    from tensorflow.python.ops import resource_variable_ops

    with tf.init_scope(), tf.device("/cpu:0"):
        return resource_variable_ops.ResourceVariable(
            tf.zeros(shape, dtype),
            trainable=False,
            collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES],
            name=name,
        )


@contextlib.contextmanager
def op_seeds_from(graph: Any) -> Iterator[None]:
    """Random ops made in function graphs nested in `graph` (a `while_v2` body) draw
    their op seeds from `graph`'s counter, as the same ops made in `graph` itself do.

    Relies on `random_seed.get_seed` (looked up through its module by every random op)
    and its per-graph counter `random_seed._graph_to_seed_dict`; a `FuncGraph` knows
    its `outer_graph`. Without this a while_v2 body restarts the op-seed count at 0,
    so a seeded program's draws would depend on `iterations_per_loop`.
    """
    import tensorflow as tf
    from tensorflow.python.framework import random_seed

    original = random_seed.get_seed
    counters = random_seed._graph_to_seed_dict

    def get_seed(op_seed: Any) -> Any:
        current = tf.compat.v1.get_default_graph()
        if op_seed is not None or current is graph or not _nested_in(current, graph):
            return original(op_seed)
        counters[current] = counters.get(graph, 0)
        try:
            return original(op_seed)
        finally:
            counters[graph] = counters[current]

    random_seed.get_seed = get_seed
    try:
        yield
    finally:
        random_seed.get_seed = original


def _nested_in(inner: Any, graph: Any) -> bool:
    outer = getattr(inner, "outer_graph", None)
    while outer is not None:
        if outer is graph:
            return True
        outer = getattr(outer, "outer_graph", None)
    return False


_WRITES = ("AssignVariableOp", "AssignAddVariableOp", "AssignSubVariableOp")


def order_writes_after_reads(new_ops: list, variable: Any) -> int:
    """Makes every write to `variable` among `new_ops` run after its reads among them.

    A model that increments the global step itself (`global_step.assign(global_step + 1)`
    grouped with its train op) and reads it elsewhere in the step (a learning rate)
    leaves the order of the read and the increment to the executor; here each write
    gets the step's other reads as control inputs (reads downstream of a write keep
    their place). `variable` may be distributed (its components' handles count); a
    reference variable (no handle) is left as it is. Returns the number of writes ordered.

    Only reads in the write's own control-flow context count (a read in a v1 cond branch
    that is not taken would make the write dead).

    Relies on `Operation._add_control_inputs`, `Operation._control_outputs`,
    `Operation._get_control_flow_context` and, in a `FuncGraph` (a while_v2 body),
    `FuncGraph.captures` (external, internal) pairs (TF 2.16 - 2.21).
    """
    if not new_ops:
        return 0
    graph = new_ops[0].graph
    external = {internal.name: ext for ext, internal in getattr(graph, "captures", ())}
    components = getattr(variable, "values", None) or (variable,)
    if not all(hasattr(c, "handle") for c in components):
        return 0  # reference variables (`disable_resource_variables()`): left as legacy ran
    names = {c.handle.name for c in components}

    def on_variable(op: Any) -> bool:
        if not op.inputs:
            return False
        handle = op.inputs[0]
        return external.get(handle.name, handle).name in names

    reads = [op for op in new_ops if op.type == "ReadVariableOp" and on_variable(op)]
    writes = [op for op in new_ops if op.type in _WRITES and on_variable(op)]
    if not writes or not reads:
        return 0
    downstream = _downstream(writes)
    before = [op for op in reads if op not in downstream]
    for write in writes:
        context = control_flow_context(write)  # a read in a cond branch may never run
        missing = [
            op
            for op in before
            if op not in write.control_inputs and control_flow_context(op) is context
        ]
        if missing:
            write._add_control_inputs(missing)
    return len(writes)


def _downstream(ops: list) -> set:
    seen: set = set()
    stack = list(ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(c for t in op.outputs for c in t.consumers())
        stack.extend(op._control_outputs)
    return seen


_REPLICA = threading.local()
_REPLICA_SCOPE = re.compile(r"(^|/)replica_\d+/")


def unreplicated_name(name: str) -> str:
    """`name` without the `replica_N/` name scope a strategy gives replica N > 0's ops.

    Example:
        >>> unreplicated_name("dnn/replica_1/hiddenlayer_0")
        'dnn/hiddenlayer_0'
    """
    return _REPLICA_SCOPE.sub(r"\1", name)


@contextlib.contextmanager
def replica_rows(rows: Any) -> Iterator[None]:
    """Marks this replica thread's rows `[offset, count, total]` (an int64 `[3]` tensor:
    rows `[offset, offset + count)` of a `total`-row batch) while its step is built (read
    by `replica_random_draws`). Variables created meanwhile are marked as such: their
    initializers are not draws of the step.
    """
    import tensorflow as tf

    previous = getattr(_REPLICA, "rows", None)
    _REPLICA.rows = (rows, tf.get_static_value(rows))
    try:
        with tf.compat.v1.variable_creator_scope(_creating_variable):
            yield
    finally:
        _REPLICA.rows = previous


def _creating_variable(next_creator: Callable[..., Any], **kwargs: Any) -> Any:
    previous = getattr(_REPLICA, "creating", False)
    _REPLICA.creating = True
    try:
        return next_creator(**kwargs)
    finally:
        _REPLICA.creating = previous


@contextlib.contextmanager
def replica_random_draws() -> Iterator[None]:
    """Random ops made in replicas draw one device's numbers for their rows of the batch.

    Two parts, so a seeded program's dropout on N replicas is one device's:
    - op seeds: a random op without an op seed made in replica r > 0 takes the op seed
      of the same op (same name scope, without `replica_r/`) in replica 0, which took
      one device's (the graph's op-seed counter);
    - shapes: a random op whose first dimension is the replica's row count (at run
      time) draws the global batch's rows and keeps the replica's own (Philox draws
      are in flat order, so these are the rows one device drew).

    Relies on `random_seed.get_seed` and `gen_random_ops.{random_uniform,
    random_standard_normal, truncated_normal}` being looked up through their modules
    by TensorFlow's random ops, and on MirroredStrategy's `replica_<r>/` name scopes.
    """
    import tensorflow as tf
    from tensorflow.python.framework import random_seed
    from tensorflow.python.ops import gen_random_ops

    get_seed = random_seed.get_seed
    seeds: dict = {}
    taken: dict = {}

    def replica_seed(op_seed: Any) -> Any:
        rows = getattr(_REPLICA, "rows", None)
        if op_seed is not None or rows is None:
            return get_seed(op_seed)
        scope = tf.compat.v1.get_default_graph().get_name_scope()
        base = unreplicated_name(scope)
        if base == scope:  # replica 0 (or one device): the graph's counter
            pair = get_seed(op_seed)
            seeds.setdefault(base, []).append(pair)
            return pair
        index = taken.get(scope, 0)
        taken[scope] = index + 1
        known = seeds.get(base, [])
        return known[index] if index < len(known) else get_seed(op_seed)

    names = ("random_uniform", "random_standard_normal", "truncated_normal")
    originals = {name: getattr(gen_random_ops, name) for name in names}
    random_seed.get_seed = replica_seed
    for name, op in originals.items():
        setattr(gen_random_ops, name, _global_rows_draw(op))
    try:
        yield
    finally:
        random_seed.get_seed = get_seed
        for name, op in originals.items():
            setattr(gen_random_ops, name, op)


def _global_rows_draw(op: Callable[..., Any]) -> Callable[..., Any]:
    def draw(shape: Any, dtype: Any, seed: int = 0, seed2: int = 0, name: Any = None) -> Any:
        import tensorflow as tf

        rows = _step_rows()
        shape_t = tf.convert_to_tensor(shape)
        if rows is None or shape_t.shape.rank != 1 or not shape_t.shape[0]:
            return op(shape, dtype, seed=seed, seed2=seed2, name=name)
        offset, count, total = _draw_rows(tf, rows, shape_t)
        if count is None:
            return op(shape, dtype, seed=seed, seed2=seed2, name=name)
        batch = tf.equal(shape_t[0], count)
        full = tf.concat([[tf.where(batch, total, shape_t[0])], shape_t[1:]], 0)
        drawn = op(full, dtype, seed=seed, seed2=seed2, name=name)
        start = tf.concat([[tf.where(batch, offset, 0)], tf.zeros_like(shape_t[1:])], 0)
        result = tf.slice(drawn, start, shape_t)
        static = tf.get_static_value(shape_t)
        if static is not None:
            result.set_shape(static)
        return result

    return draw


def _step_rows() -> Any:
    """This replica's `(rows, static rows or None)` when the op being made belongs to its
    step: not a variable's initializer, and in the step's graph (or a function graph
    nested in it) and its control-flow context (or one nested in it; `init_scope` and
    ops outside a steps-per-loop `while_loop` are not). Else None.

    Relies on `Graph._get_control_flow_context` and the contexts' `outer_context`.
    """
    import tensorflow as tf

    rows = getattr(_REPLICA, "rows", None)
    if rows is None or getattr(_REPLICA, "creating", False):
        return None
    graph = tf.compat.v1.get_default_graph()
    step_graph = rows[0].graph
    if graph is not step_graph and not _nested_in(graph, step_graph):
        return None
    if graph is step_graph:
        context = graph._get_control_flow_context()
        step_context = control_flow_context(rows[0].op)
        while context is not step_context:
            if context is None:
                return None
            context = context.outer_context
    return rows


def _draw_rows(tf: Any, rows: Any, shape_t: Any) -> tuple[Any, Any, Any]:
    """`(offset, count, total)` as `shape_t`'s dtype for a draw of `shape_t`, or a None
    count where the draw cannot be the replica's rows.

    A static batch gives constants made here, and only a draw of exactly `count` rows
    is one of the batch's; a batch known at run time only is compared at run time with
    draws whose first dimension is known at run time only (a static first dimension,
    such as a `tf.Variable(tf.random.normal([V, d]))` initial value, is not the batch's).
    """
    tensor, static = rows
    known = tf.get_static_value(shape_t, partial=True)
    first = None if known is None else known[0]
    if static is not None:
        if first is not None and first != static[1]:
            return None, None, None
        offset, count, total = (tf.constant(x, shape_t.dtype) for x in static)
        return offset, count, total
    if first is not None:
        return None, None, None
    offset, count, total = (tf.cast(tensor[i], shape_t.dtype) for i in range(3))
    return offset, count, total


def xla_control_flow_context_class() -> Any:
    """`control_flow_ops.XLAControlFlowContext` (TF >= 1.x): a control-flow context whose
    `AddOp(op)` sees every op created between its `Enter()` and `Exit()` in a graph."""
    return _tf("ops.control_flow_ops", "XLAControlFlowContext")


# --- TF2 summaries of a model_fn (issue 27): recorded while it builds, written after ---


@contextlib.contextmanager
def replaced_summary_write(write: Callable[..., Any]) -> Iterator[None]:
    """Within it, `tf.summary.write` (and `tf.compat.v2.summary.write`, which TensorBoard's
    `tf.summary.scalar`/`histogram`/`image` call) is `write`; restored on exit.

    Relies on the public API modules holding `write` as a plain module attribute that
    TensorBoard's summary functions look up at call time.
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    modules = [tf.summary, tf.compat.v2.summary]
    saved = [m.write for m in modules]
    for module in modules:
        module.write = write
    try:
        yield
    finally:
        for module, original in zip(modules, saved, strict=True):
            module.write = original


def replica_id() -> int | None:
    """The replica id (a Python int) of the current replica context; None in a
    cross-replica context or without a strategy.

    Relies on `ReplicaContext._replica_id_in_sync_group`: the public property makes a
    constant op in a graph, and adding ops would renumber later op seeds.
    """
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    context = tf.distribute.get_replica_context()
    if context is None or not tf.distribute.has_strategy():
        return None
    value = context._replica_id_in_sync_group
    return value if isinstance(value, int) else tf.get_static_value(value)


@contextlib.contextmanager
def results_always_used() -> Iterator[None]:
    """Within it, results of TF functions marked `should_use_result` (`tf.debugging.assert_*`)
    come back unwrapped, so none logs "Object was never used" when it is dropped.

    TensorBoard's lazy summary tensors (`tf.summary.image`'s) make such asserts and drop
    them, as a `tf.function` may; in a v1 graph the caller collects and runs them instead.
    Relies on `tf_should_use.should_use_result` looking up the module-level
    `_add_should_use_warning` at each call.
    """
    from tensorflow.python.util import tf_should_use

    saved = tf_should_use._add_should_use_warning
    tf_should_use._add_should_use_warning = lambda x, *args, **kwargs: x
    try:
        yield
    finally:
        tf_should_use._add_should_use_warning = saved


def default_summary_writer() -> Any:
    """The default TF2 summary writer of this thread (`writer.as_default()`), or None.

    Relies on `summary_ops_v2._summary_state.writer`; TF has no public getter (its public
    `should_record_summaries()` makes ops in a graph).
    """
    from tensorflow.python.ops import summary_ops_v2

    return summary_ops_v2._summary_state.writer


def auto_trackable_class() -> Any:
    """The `AutoTrackable` class itself, to subclass (`trackable.autotrackable`, TF >= 2.9)."""
    return _tf("trackable.autotrackable", "AutoTrackable")


def replace_summary_file_writer(writer_class: Any) -> Any:
    """Makes `writer_class` the `FileWriter` v1 summaries are written with; returns the old one.

    Relies on `summary.writer.writer.FileWriter` and the module global `FileWriter` of
    `summary.writer.writer_cache` (what `FileWriterCache.get`, hence `SummaryWriterCache`,
    the v1 hooks and tfport's evaluation summaries, construct); both hold on TF 2.0 - 2.21.
    """
    writer = _module("summary.writer.writer")
    cache = _module("summary.writer.writer_cache")
    previous = cache.FileWriter
    writer.FileWriter = writer_class
    cache.FileWriter = writer_class
    return previous


@contextlib.contextmanager
def fresh_v1_variable_store() -> Iterator[None]:
    """New, empty `get_variable` and variable-scope stores in the current graph for the block.

    Relies on `ops.variable_scope.with_variable_store`, `_VariableStore`,
    `_VariableScopeStore` and `_VARSCOPESTORE_KEY` (TF 2.0 - 2.21). TF2 function graphs
    otherwise share both: a `get_variable` name met in an earlier function (of any object)
    is "already exists", and default scope names (optimizer slots: `w/Adam`) get a suffix.
    """
    import tensorflow as tf

    variable_scope = _module("ops.variable_scope")
    scopes = tf.compat.v1.get_collection_ref(variable_scope._VARSCOPESTORE_KEY)
    old_scopes = list(scopes)
    scopes[:] = [variable_scope._VariableScopeStore()]
    try:
        with variable_scope.with_variable_store(variable_scope._VariableStore()):
            yield
    finally:
        scopes[:] = old_scopes


def tpu_column_scope_collection() -> str:
    """The graph collection where TF's TPU embedding columns record `{embedding var name:
    (variable scope, variable name)}` when built for a TPU (`tpu.feature_column`)."""
    return _tf("tpu.feature_column", "_TPU_FC_TO_SCOPE")


def tensor_core_padding(column: Any, sparse: Any) -> tuple[Any, Any, str, int]:
    """(padded ids, mask, mask key suffix, padded size) of a tensor-core TPU embedding
    column's sparse ids: `feature_column_v2.pad_sparse_embedding_lookup_indices` to its
    `_tensor_core_shape[1]` (TF >= 2.4)."""
    pad = _tf("tpu.feature_column_v2", "pad_sparse_embedding_lookup_indices")
    size = column._tensor_core_shape[1]
    values, mask = pad(sparse, size)
    return values, mask, _tf("tpu.feature_column_v2", "_TENSOR_CORE_MASK_KEY_SUFFIX"), size


def tpu_embedding_column_classes() -> tuple:
    """TF's TPU embedding column classes (v1 and v2, single and shared; `tpu.feature_column*`,
    TF >= 1.14), () where a build leaves them out."""
    modules = tpu_feature_columns()
    if modules is None:  # pragma: no cover - TensorFlow without its TPU columns
        return ()
    v1, v2 = modules
    return (
        v1._TPUEmbeddingColumn,
        v1._TPUSharedEmbeddingColumn,
        v2._TPUEmbeddingColumnV2,
        v2._TPUSharedEmbeddingColumnV2,
    )


def infeed_queue_class() -> Any:
    """TF's `tpu.tpu_feed.InfeedQueue` (TF >= 1.x): builds a TPU host's `InfeedEnqueueTuple`
    ops (`generate_enqueue_ops`, `split_inputs_and_generate_enqueue_ops`); building them
    needs no TPU, running them does."""
    return _tf("tpu.tpu_feed", "InfeedQueue")


def bool_gauge(name: str, description: str, *labels: str) -> Any:
    """`eager.monitoring.BoolGauge(name, description, *labels)` (TF >= 2.1): a usage gauge
    like the ones legacy Estimator modules kept (`_estimator_api_gauge`)."""
    return _tf("eager.monitoring", "BoolGauge")(name, description, *labels)


def string_gauge(name: str, description: str, *labels: str) -> Any:
    """`eager.monitoring.StringGauge(name, description, *labels)` (TF >= 2.1)."""
    return _tf("eager.monitoring", "StringGauge")(name, description, *labels)


# --- legacy TPUEstimator's TPU programs (issue 41): built anywhere, run on a TPU host ---


def tpu_split_compile_and_shard() -> Any:
    """`tpu.tpu.split_compile_and_shard` (TF >= 1.13): `(compile op, per-shard outputs)` of a
    replicated TPU computation; building it in a graph needs no TPU, running it does."""
    return _tf("tpu.tpu", "split_compile_and_shard")


def tpu_prune_unconnected_ops_from_xla() -> Any:
    """`tpu.tpu.prune_unconnected_ops_from_xla(graph)` (TF >= 1.14): drops the ops of a TPU
    rewrite that feed none of its outputs."""
    return _tf("tpu.tpu", "prune_unconnected_ops_from_xla")


def tpu_training_loop() -> Any:
    """`tpu.training_loop` (TF >= 1.x): its `while_loop(condition, body, inputs)` and
    `repeat(n, body, inputs)` build a TPU computation's on-device loop."""
    return _module("tpu.training_loop")


def tpu_on_device_training_loop() -> Any:
    """`tpu.tpu_function.on_device_training_loop` (TF >= 1.x): marks a TPU computation as
    holding its own training loop (a decorator)."""
    return _tf("tpu.tpu_function", "on_device_training_loop")


def tpu_device_specific_embedding_column_classes() -> tuple:
    """TF's device-specific TPU embedding columns (`tpu.feature_column_v2`'s
    `_TPUDeviceSpecificEmbeddingColumnV2` and its shared form; TF >= 2.4)."""
    return (
        _tf("tpu.feature_column_v2", "_TPUDeviceSpecificEmbeddingColumnV2"),
        _tf("tpu.feature_column_v2", "_TPUSharedDeviceSpecificEmbeddingColumnV2"),
    )


def core_embedding_column_classes() -> tuple:
    """The ordinary embedding columns: v1 `_EmbeddingColumn`, v2 `EmbeddingColumn`, v1
    `_SharedEmbeddingColumn` (`feature_column.feature_column*`, TF >= 2.0)."""
    return (
        _tf("feature_column.feature_column", "_EmbeddingColumn"),
        _tf("feature_column.feature_column_v2", "EmbeddingColumn"),
        _tf("feature_column.feature_column", "_SharedEmbeddingColumn"),
    )


def core_numeric_column_classes() -> tuple:
    """The numeric columns: v1 `_NumericColumn` and v2 `NumericColumn` (TF >= 2.0)."""
    return (
        _tf("feature_column.feature_column", "_NumericColumn"),
        _tf("feature_column.feature_column_v2", "NumericColumn"),
    )


# --- legacy TPUEstimator's internal context and loop helpers (issue 41, private_tpu_hooks) ---
SYMBOLS += (
    ("ops.control_flow_ops", "ControlFlowContext"),
    ("tpu.tpu_replication", "_TPU_REPLICATE_ATTR"),
    ("tpu.tpu_system_metadata", "_query_tpu_system_metadata"),
    ("tpu.tpu_system_metadata", "master_job"),
    ("distribute.cluster_resolver.tpu.tpu_cluster_resolver", "is_running_in_gce"),
    ("distribute.distribute_lib", "_DefaultReplicaThreadMode"),
)
ATTRIBUTES += (
    (
        "distribute.cluster_resolver.tpu.tpu_cluster_resolver",
        "TPUClusterResolver",
        "_cloud_tpu_client",
    ),
    ("distribute.distribute_lib", "ReplicaContext", "_thread_context"),
    ("distribute.distribute_lib", "ReplicaContext", "_strategy"),
)


def get_or_create_eval_step() -> Any:
    """`evaluation._get_or_create_eval_step()` (TF >= 1.x): the graph's `eval_step` local
    variable that v1 evaluation counts its batches in."""
    return _tf("training.evaluation", "_get_or_create_eval_step")()


def control_flow_context_class() -> Any:
    """`control_flow_ops.ControlFlowContext` (TF >= 1.x): the base of graph control-flow
    contexts; between `Enter()` and `Exit()` its `AddOp(op)` sees each op made in the graph."""
    return _tf("ops.control_flow_ops", "ControlFlowContext")


def tpu_replicate_attr() -> str:
    """`tpu_replication._TPU_REPLICATE_ATTR` (TF >= 1.x): the node attribute marking the ops
    of a TPU computation (`_tpu_replicate`)."""
    return _tf("tpu.tpu_replication", "_TPU_REPLICATE_ATTR")


def query_tpu_system_metadata(master: Any, cluster_def: Any, query_topology: bool) -> Any:
    """`tpu_system_metadata._query_tpu_system_metadata` (TF >= 1.x): the TPU system at
    `master` (cores, hosts, cores per host, topology, devices; no cores without a TPU)."""
    query = _tf("tpu.tpu_system_metadata", "_query_tpu_system_metadata")
    return query(master, cluster_def=cluster_def, query_topology=query_topology)


def tpu_master_job(master: Any, cluster_def: Any) -> Any:
    """`tpu_system_metadata.master_job` (TF >= 1.x): the TPU job name of `master` (None for a
    local master; ValueError where it cannot be inferred)."""
    return _tf("tpu.tpu_system_metadata", "master_job")(master, cluster_def)


def is_running_in_gce() -> bool:
    """`tpu_cluster_resolver.is_running_in_gce()` (TF >= 2.x; True in open-source builds)."""
    return _tf("distribute.cluster_resolver.tpu.tpu_cluster_resolver", "is_running_in_gce")()


def cloud_tpu_client(resolver: Any) -> Any:
    """A `TPUClusterResolver`'s Cloud TPU client (`_cloud_tpu_client`, TF >= 2.2): the local
    stand-in answers `api_available()` False."""
    return resolver._cloud_tpu_client


def use_default_replica_thread_mode(replica_context: Any) -> None:
    """Makes `replica_context` answer with the default strategy's thread mode and strategy
    (`distribute_lib._DefaultReplicaThreadMode`, `ReplicaContext._thread_context` and
    `_strategy`, TF >= 2.0), as legacy's TPU replica context did for variable access."""
    mode = _tf("distribute.distribute_lib", "_DefaultReplicaThreadMode")()
    replica_context._thread_context = mode
    replica_context._strategy = mode.strategy


def swap_summary_recording_condition(condition: Any) -> Any:
    """Sets TF2 summaries' per-replica recording condition (`summary_ops_v2._summary_state.
    is_recording_distribution_strategy`, TF >= 2.0) to `condition`; returns the previous one."""
    state = _tf("ops.summary_ops_v2", "_summary_state")
    previous = state.is_recording_distribution_strategy
    state.is_recording_distribution_strategy = condition
    return previous
