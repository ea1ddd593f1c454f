"""The one place tfport touches TensorFlow's internals, one module per TensorFlow concern.

Every `tensorflow.python.*` symbol and every read or write of a private attribute of a
TensorFlow object lives in this package, behind a named function saying what it relies on
and since which TensorFlow version it has held (all of them hold on 2.16 - 2.21, the tested
range); no function of it hands out a module. Everything else in tfport calls these
functions (`tf_internals.<function>(...)`, re-exported here) or TensorFlow's public API
(`tests/test_boundary.py` checks; `tests/unit/_common/test_tf_canary.py` touches every
symbol listed in `SYMBOLS` and every private attribute in `ATTRIBUTES`, so a TensorFlow
release that moves one breaks one test naming it).

- `variables`: variables and variable scopes;
- `checkpoints`: saveables, trackables, object-based savers, `init_from_checkpoint`;
- `distribute`: distribution strategies and their replicas, loss scaling and reduction;
- `optimizers`: v1 optimizers' private hyperparameters and loss scaling;
- `sessions`: sessions, hooks, the scaffold, v1 evaluation, the eager context;
- `saved_model`: export outputs, signature defs, the SavedModel builder and loader;
- `feature_columns`: the v1 / v2 feature column classes and transformation cache;
- `ops`: graph ops (control flow, control edges, random ops and seeds, private builders);
- `tpu`: TPU computations, the TPU system, TPU embedding columns;
- `summaries`: TF2 summary state, the v1 `FileWriter`;
- `monitoring`: the Estimator API's usage gauges;
- `packages`: names installed into TensorFlow's packages and lazy API modules.

Importing this package does not import TensorFlow: each function imports what it needs.

Example:
    >>> from tfport._common import tf_internals
    >>> ("training.evaluation", "_StopAfterNEvalsHook") in tf_internals.SYMBOLS
    True
"""

from __future__ import annotations

from tfport._common.tf_internals import (
    checkpoints,
    distribute,
    feature_columns,
    monitoring,
    ops,
    optimizers,
    packages,
    saved_model,
    sessions,
    summaries,
    tpu,
    variables,
)
from tfport._common.tf_internals.checkpoints import (
    auto_trackable,
    auto_trackable_class,
    distributed_saveables,
    init_from_checkpoint_in_init_scope,
    object_based_saver,
    object_graph_view,
    save_spec_class,
    saveable_object_class,
    saver_key,
    track_child,
)
from tfport._common.tf_internals.distribute import (
    collective_launchers,
    distribute_values_from_function,
    in_multi_worker_mode,
    is_distributed_values,
    is_single_worker_mirrored,
    last_loss_reduction,
    launcher_device,
    loss_reduction_is_mean,
    loss_scaled_by_optimizer,
    mark_loss_scaled,
    outer_graph_shares_replica_stacks,
    per_replica,
    reduce_to_one_device,
    replica_id,
    scale_loss_for_estimator,
    set_last_loss_reduction,
    unreplicated_name,
    use_default_replica_thread_mode,
    worker_position,
)
from tfport._common.tf_internals.feature_columns import (
    categorical_column_class,
    core_embedding_column_classes,
    core_numeric_column_classes,
    embedding_column_class,
    embedding_column_v1_class,
    feature_transformation_cache,
    input_layers_recorded,
    numeric_column_class,
    numeric_column_v1_class,
    shared_embedding_column_class,
    shared_embedding_column_v1_class,
)
from tfport._common.tf_internals.monitoring import (
    bool_gauge,
    string_gauge,
)
from tfport._common.tf_internals.ops import (
    add_control_inputs,
    control_flow_context,
    control_flow_context_class,
    control_outputs,
    function_graph,
    get_seed_replaced,
    graph_control_flow_context,
    graph_op_seed_counters,
    index_table_from_file,
    index_table_from_tensor,
    index_to_string_table_from_file,
    index_to_string_table_from_tensor,
    kmeans_class,
    random_ops_replaced,
    update_op_input,
    xla_control_flow_context_class,
)
from tfport._common.tf_internals.optimizers import (
    v1_optimizer_hyperparameters,
    v1_optimizer_loss_scaling,
)
from tfport._common.tf_internals.packages import (
    delete_from_wrapped_module,
    set_in_wrapped_module,
    set_on_loaded_package,
)
from tfport._common.tf_internals.saved_model import (
    add_train_op,
    build_all_signature_defs,
    classification_output_class,
    eval_output_class,
    export_output_class,
    export_outputs_for_mode,
    get_export_outputs,
    get_temp_export_dir,
    get_timestamped_export_dir,
    predict_output_class,
    regression_output_class,
    saved_model_asset_tensors,
    saved_model_loader,
    saved_model_main_op,
)
from tfport._common.tf_internals.sessions import (
    call_callable,
    count_more_iterations,
    eager_context_config,
    eager_mode,
    eval_step_and_stop_hooks,
    get_or_create_eval_step,
    global_step_read_key,
    hook_summary_writer,
    raw_session,
    saver_hook_directory,
    saver_hook_listeners,
    scaffold_saver,
    session_closed,
    set_hook_run_length,
    set_scaffold_saver,
    stop_after_n_evals_hook,
)
from tfport._common.tf_internals.summaries import (
    default_summary_writer,
    replace_summary_file_writer,
    replaced_summary_write,
    results_always_used,
    summary_writer_init_ops,
    swap_summary_recording_condition,
)
from tfport._common.tf_internals.tpu import (
    cloud_tpu_client,
    cross_shard_optimizer_class,
    embedding_lookup_device,
    infeed_queue_class,
    is_running_in_gce,
    query_tpu_system_metadata,
    tensor_core_padding,
    tpu_column_scope_collection,
    tpu_device_specific_embedding_column_classes,
    tpu_embedding_column_classes,
    tpu_master_job,
    tpu_on_device_training_loop,
    tpu_prune_unconnected_ops_from_xla,
    tpu_repeat,
    tpu_replicate_attr,
    tpu_shard_count,
    tpu_split_compile_and_shard,
    tpu_while_loop,
)
from tfport._common.tf_internals.variables import (
    fresh_v1_variable_store,
    is_partitioned_variable,
    local_buffer_variable,
    save_slice_info,
)

__all__ = [
    "ATTRIBUTES",
    "SYMBOLS",
    "checkpoints",
    "distribute",
    "feature_columns",
    "monitoring",
    "ops",
    "optimizers",
    "packages",
    "saved_model",
    "sessions",
    "summaries",
    "tpu",
    "variables",
    "add_control_inputs",
    "add_train_op",
    "auto_trackable",
    "auto_trackable_class",
    "bool_gauge",
    "build_all_signature_defs",
    "call_callable",
    "categorical_column_class",
    "classification_output_class",
    "cloud_tpu_client",
    "collective_launchers",
    "control_flow_context",
    "control_flow_context_class",
    "control_outputs",
    "core_embedding_column_classes",
    "core_numeric_column_classes",
    "count_more_iterations",
    "cross_shard_optimizer_class",
    "default_summary_writer",
    "delete_from_wrapped_module",
    "distribute_values_from_function",
    "distributed_saveables",
    "eager_context_config",
    "eager_mode",
    "embedding_column_class",
    "embedding_column_v1_class",
    "embedding_lookup_device",
    "eval_output_class",
    "eval_step_and_stop_hooks",
    "export_output_class",
    "export_outputs_for_mode",
    "feature_transformation_cache",
    "function_graph",
    "fresh_v1_variable_store",
    "get_export_outputs",
    "get_or_create_eval_step",
    "get_seed_replaced",
    "get_temp_export_dir",
    "get_timestamped_export_dir",
    "global_step_read_key",
    "graph_control_flow_context",
    "graph_op_seed_counters",
    "hook_summary_writer",
    "in_multi_worker_mode",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "infeed_queue_class",
    "init_from_checkpoint_in_init_scope",
    "is_distributed_values",
    "is_partitioned_variable",
    "is_running_in_gce",
    "is_single_worker_mirrored",
    "kmeans_class",
    "last_loss_reduction",
    "launcher_device",
    "local_buffer_variable",
    "loss_reduction_is_mean",
    "loss_scaled_by_optimizer",
    "mark_loss_scaled",
    "numeric_column_class",
    "numeric_column_v1_class",
    "input_layers_recorded",
    "object_based_saver",
    "object_graph_view",
    "outer_graph_shares_replica_stacks",
    "per_replica",
    "predict_output_class",
    "query_tpu_system_metadata",
    "random_ops_replaced",
    "raw_session",
    "reduce_to_one_device",
    "regression_output_class",
    "replace_summary_file_writer",
    "replaced_summary_write",
    "replica_id",
    "results_always_used",
    "save_slice_info",
    "save_spec_class",
    "saveable_object_class",
    "saved_model_asset_tensors",
    "saved_model_loader",
    "saved_model_main_op",
    "saver_hook_directory",
    "saver_hook_listeners",
    "saver_key",
    "scaffold_saver",
    "scale_loss_for_estimator",
    "session_closed",
    "set_hook_run_length",
    "set_in_wrapped_module",
    "set_last_loss_reduction",
    "set_on_loaded_package",
    "set_scaffold_saver",
    "shared_embedding_column_class",
    "shared_embedding_column_v1_class",
    "stop_after_n_evals_hook",
    "string_gauge",
    "summary_writer_init_ops",
    "swap_summary_recording_condition",
    "tensor_core_padding",
    "tpu_column_scope_collection",
    "tpu_device_specific_embedding_column_classes",
    "tpu_embedding_column_classes",
    "tpu_master_job",
    "tpu_on_device_training_loop",
    "tpu_prune_unconnected_ops_from_xla",
    "tpu_repeat",
    "tpu_replicate_attr",
    "tpu_shard_count",
    "tpu_split_compile_and_shard",
    "tpu_while_loop",
    "track_child",
    "unreplicated_name",
    "update_op_input",
    "use_default_replica_thread_mode",
    "v1_optimizer_hyperparameters",
    "v1_optimizer_loss_scaling",
    "worker_position",
    "xla_control_flow_context_class",
]

_MODULES = (
    variables,
    checkpoints,
    distribute,
    optimizers,
    sessions,
    saved_model,
    feature_columns,
    ops,
    tpu,
    summaries,
    monitoring,
    packages,
)
# (module under `tensorflow.python`, attribute): every internal symbol tfport uses.
SYMBOLS: tuple[tuple[str, str], ...] = tuple(s for m in _MODULES for s in m.SYMBOLS)
# (module under `tensorflow.python`, class or None for the module, attribute): every
# private attribute of a TensorFlow object read or written in this package. The class has
# it (a method) or sets it on its instances (`self.<attribute> = ...` in its source).
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = tuple(
    a for m in _MODULES for a in m.ATTRIBUTES
)
