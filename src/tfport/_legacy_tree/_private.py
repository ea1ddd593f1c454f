"""Private names of the legacy modules served from their implementations (issue 41):
`PRIVATE[suffix][name]` is `"module:attr"` or `"module:factory()"`."""

from __future__ import annotations

from tfport._legacy_tree._paths import _RECEIVERS, _TPU, PATHS

PRIVATE: dict[str, dict[str, str]] = {suffix: {} for suffix in PATHS}
_TPU_HELPERS = "tfport.estimator._tpu.legacy_helpers"
PRIVATE["tpu.tpu_estimator"].update(
    {
        n: f"{_TPU_HELPERS}:{n}"
        for n in (
            "_create_global_step _get_scaffold _export_output_to_tensors "
            "_clone_export_output_with_tensors _TPU_ESTIMATOR _ITERATIONS_PER_LOOP_VAR "
            "_TPU_ENQUEUE_OPS _TPU_TRAIN_OP"
        ).split()
    }
    | {
        n: f"tfport.estimator._tpu.embedding:{n}"
        for n in ("AdagradParameters", "AdamParameters", "StochasticGradientDescentParameters")
    }
    | {"Summary": "tensorflow:compat.v1.Summary"}
)
PRIVATE["tpu.tpu_estimator"].update(
    {n: f"{_TPU_HELPERS}:{n}" for n in ("_is_iterable", "_add_item_to_params")}
)
PRIVATE["tpu.tpu_config"]["_get_tpu_job_name_from_tf_config"] = (
    f"{_TPU_HELPERS}:_get_tpu_job_name_from_tf_config"
)
PRIVATE["export.export"].update(
    {
        n: f"{_RECEIVERS}:{n}"
        for n in (
            "_check_tensor _check_tensor_key _placeholder_from_tensor "
            "_placeholders_from_receiver_tensors_dict"
        ).split()
    }
)
_EXTENDERS = "tfport.estimator._engine.api.extenders"
PRIVATE["extenders"].update(
    {n: f"{_EXTENDERS}:{n}" for n in ("_call_metric_fn", "_verify_metric_fn_args")}
)
PRIVATE["exporter"]["_verify_compare_fn_args"] = f"{_EXTENDERS}:_verify_compare_fn_args"
PRIVATE["canned.parsing_utils"]["_add_label_and_weight_to_parsing_spec"] = (
    f"{_EXTENDERS}:_add_label_and_weight_to_parsing_spec"
)
PRIVATE["head.multi_head"].update(
    {
        n: f"tfport.estimator._heads.multi_head:{n}"
        for n in ("_default_export_output", "_no_op_train_fn")
    }
)
PRIVATE["head.sequential_head"]["_flatten_tensor"] = (
    "tfport.estimator._heads.sequential:_flatten_tensor"
)
PRIVATE["hooks.hooks"]["_StopAtCheckpointStepHook"] = (
    "tfport.estimator._engine.api.evaluator_hook:_StopAtCheckpointStepHook"
)
_NUMPY_IO = "tfport.estimator._inputs.numpy_io"
PRIVATE["inputs.numpy_io"].update(
    {n: f"{_NUMPY_IO}:{n}" for n in ("_get_unique_target_key", "_validate_and_convert_features")}
)
PRIVATE["inputs.pandas_io"]["_get_unique_target_key"] = (
    "tfport.estimator._inputs.pandas_io:_get_unique_target_key"
)
_CANNED = "tfport.estimator._canned.legacy_fns"
_CANNED_HELPERS = "tfport.estimator._canned.legacy_helpers"
for _suffix, _fns, _helpers in (
    (
        "canned.dnn",
        "_dnn_model_fn",
        "_add_hidden_layer_summary _validate_features _name_from_scope_name "
        "_get_previous_name_scope _get_dnn_estimator_spec _dnn_model_fn_builder_v2",
    ),
    (
        "canned.linear",
        "_linear_model_fn _linear_model_fn_v2 _sdca_model_fn",
        "_compute_fraction_of_zero _get_expanded_variable_list _get_default_optimizer "
        "_get_default_optimizer_v2 _validate_linear_sdca_optimizer_for_linear_classifier "
        "_validate_linear_sdca_optimizer_for_linear_regressor _linear_model_fn_builder_v2",
    ),
    (
        "canned.dnn_linear_combined",
        "_dnn_linear_combined_model_fn _dnn_linear_combined_model_fn_v2 "
        "_init_dnn_linear_combined_estimator",
        "_linear_learning_rate _check_no_sync_replicas_optimizer _validate_feature_columns",
    ),
    (
        "canned.baseline",
        "_baseline_model_fn _baseline_model_fn_v2",
        "_baseline_logit_fn_builder _baseline_model_fn_builder_v2 "
        "_get_batch_size_and_size_checks _get_weight_column_key _get_weight_column_key_v2",
    ),
    ("canned.rnn", "", "_single_rnn_cell _make_rnn_cell_fn _get_rnn_estimator_spec"),
):
    PRIVATE[_suffix].update({n: f"{_CANNED}:{n}" for n in _fns.split()})
    PRIVATE[_suffix].update({n: f"{_CANNED_HELPERS}:{n}" for n in _helpers.split()})
PRIVATE["canned.dnn_linear_combined"]["_add_layer_summary"] = (
    f"{_CANNED_HELPERS}:_add_hidden_layer_summary"
)
PRIVATE["canned.rnn"].update(
    {
        "_make_rnn_layer": "tfport.estimator._canned.rnn:make_rnn_layer",
        "_verify_rnn_cell_input": "tfport.estimator._canned.rnn:check_cell_args",
        "_CELL_TYPES": f"{_CANNED_HELPERS}:cell_types()",
        "_CELL_TYPE_TO_LAYER_MAPPING": f"{_CANNED_HELPERS}:cell_type_to_layer()",
    }
)
PRIVATE["early_stopping"].update(
    {
        n: f"tfport.estimator._engine.api.stopping:{n}"
        for n in (
            "_stop_if_threshold_crossed_hook _stop_if_no_metric_improvement_hook "
            "_get_or_create_stop_var _summaries"
        ).split()
    }
)
PRIVATE["keras_lib"].update(
    {
        n: f"tfport.keras._legacy_lib:{n}"
        for n in (
            "_create_keras_model_fn _save_first_checkpoint _assert_valid_model "
            "_convert_estimator_io_to_keras _extract_sample_weight_tensors _convert_tensor "
            "_cast_tensor_to_floatx _any_weight_initialized _convert_keras_metrics_to_estimator "
            "_clone_and_build_model _get_file_from_google_storage"
        ).split()
    }
)
PRIVATE["tpu.tpu_estimator"]["_tpu_estimator_gauge"] = f"{_TPU_HELPERS}:tpu_estimator_gauge()"
PRIVATE["tpu.error_handling"].update(
    {
        "_IGNORED_ERRORS": f"{_TPU_HELPERS}:ignored_errors()",
        "_UNINTERESTING_ERRORS": f"{_TPU_HELPERS}:uninteresting_errors()",
    }
)
PRIVATE["tpu._tpu_estimator_embedding"]["_TPU_EMBEDDING_COLUMN_CLASSES"] = (
    f"{_TPU_HELPERS}:tpu_embedding_column_classes()"
)
PRIVATE["head.head_utils"].update(
    {
        n: f"tfport.estimator._heads.testing:{n}"
        for n in ("_assert_no_hooks", "_assert_simple_summaries", "_initialize_variables")
    }
)
PRIVATE["canned.kmeans"]["_parse_features_if_necessary"] = "tfport.estimator._canned.kmeans:_points"
_CONSTANTS = "tfport.estimator._legacy.private_constants"
for _suffix, _private in {
    "run_config": "_USE_DEFAULT _VALID_DEVICE_FN_ARGS _DEFAULT_REPLACEABLE_LIST _SAVE_CKPT_ERR "
    "_TF_CONFIG_ENV _TASK_ENV_KEY _TASK_TYPE_KEY _TASK_ID_KEY _CLUSTER_KEY _SERVICE_KEY "
    "_SESSION_MASTER_KEY _EVAL_SESSION_MASTER_KEY _MODEL_DIR_KEY _LOCAL_MASTER _GRPC_SCHEME",
    "estimator": "_VALID_MODEL_FN_ARGS",
    "model_fn": "_VALID_MODEL_FN_ARGS _default_graph_error_message_template",
    "extenders": "_VALID_METRIC_FN_ARGS",
    "early_stopping": "_EVENT_FILE_GLOB_PATTERN",
    "export.export": "_SINGLE_TENSOR_DEFAULT_NAMES",
    "head.head_utils": "_DEFAULT_SERVING_KEY",
    "keras_lib": "_DEFAULT_SERVING_KEY",
    "inputs.numpy_io": "_TARGET_KEY",
    "head.base_head": "_LABEL_NONE_ERR_MSG _LABEL_SHAPE_ERR_MSG _MISMATCHED_LABEL_DIM_ERR_MSG "
    "_SPARSE_LABEL_ERR_MSG _VALIDATION_ERROR_MSG",
}.items():
    PRIVATE[_suffix].update({n: f"{_CONSTANTS}:{n}" for n in _private.split()})
_COORDINATOR = "tfport.estimator._engine.running.coordinator"
PRIVATE["run_config"].update(
    {
        "_count_ps": f"{_COORDINATOR}:_count_ps",
        "_count_worker": f"{_COORDINATOR}:_count_worker",
        "_get_global_id_in_cluster": f"{_COORDINATOR}:_get_global_id",
    }
    | {
        n: f"tfport.estimator._engine.api.tf_config:{n}"
        for n in (
            "_validate_service _validate_task_type_and_task_id _get_session_master "
            "_get_eval_session_master _get_model_dir _validate_properties "
            "_validate_save_ckpt_with_replaced_keys"
        ).split()
    }
)
_HELPERS = "tfport.estimator._engine.estimator_helpers"
PRIVATE["estimator"].update(
    {
        n: f"{_HELPERS}:{n}"
        for n in (
            "_assert_members_are_not_overridden _check_hooks_type _check_listeners_type "
            "_dict_to_str _write_dict_to_summary _write_checkpoint_path_to_summary "
            "_load_global_step_from_checkpoint_dir _check_checkpoint_available"
        ).split()
    }
    | {"_get_default_warm_start_settings": "tfport.estimator._engine.api.warm_start:to_settings"}
    | {
        n: f"{_HELPERS}:{n}"
        for n in (
            "_extract_metric_update_ops _verify_and_create_loss_metric _verify_model_fn_args "
            "_has_dataset_or_queue_runner _get_loss_reduce_op_for_reporting "
            "_get_replica_device_setter"
        ).split()
    }
    | {
        "_estimator_api_gauge": f"{_HELPERS}:estimator_api_gauge()",
        "_canned_estimator_api_gauge": f"{_HELPERS}:canned_estimator_api_gauge()",
    }
)
PRIVATE["model_fn"].update(
    {
        n: f"tfport.estimator._engine.api.spec:{n}"
        for n in (
            "_validate_estimator_spec_loss _validate_estimator_spec_predictions "
            "_validate_estimator_spec_train_op _validate_estimator_spec_hooks "
            "_validate_estimator_spec_export_outputs _validate_eval_metric_ops "
            "_validate_scaffold _check_is_tensor _check_is_tensor_or_operation "
            "_update_variable_collection"
        ).split()
    }
    | {"_TPUEstimatorSpec": f"{_TPU}:TPUEstimatorSpec"}
)
PRIVATE["tpu._tpu_estimator_embedding"].update(
    {
        n: f"{_TPU_HELPERS}:{n}"
        for n in (
            "_get_embedding_var_name_from_table_name _get_table_name_from_embedding_var_name "
            "_get_embedding_variable_name _get_sparse_feature_from_feature "
            "_get_weights_from_features _maybe_dense_to_sparse _split_tensor"
        ).split()
    }
)
# private_feeding: legacy's queue-based feeding (feed functions, _enqueue_data, its runner)
PRIVATE["inputs.queues.feeding_functions"].update(
    {
        n: f"tfport.estimator._inputs.feeding:{n}"
        for n in (
            "_ArrayFeedFn _GeneratorFeedFn _OrderedDictNumpyFeedFn _PandasFeedFn _fill_array "
            "_get_integer_indices_for_next_batch _pad_if_needed"
        ).split()
    }
    | {"_enqueue_data": "tfport.estimator._inputs.feeding_queue:_enqueue_data"}
)
PRIVATE["inputs.queues.feeding_queue_runner"]["_FeedingQueueRunner"] = (
    "tfport.estimator._inputs.feeding_queue:_FeedingQueueRunner"
)
# -- private_tpu_computation: the TPU programs, host calls and embedding tables (issue 41)
_TPU_PROGRAMS = "tfport.estimator._tpu.tpu_programs"
PRIVATE["tpu.tpu_estimator"].update(
    {
        "_ModelFnWrapper": "tfport.estimator._tpu.model_fn_wrapper:_ModelFnWrapper",
        "_OutfeedHostCall": "tfport.estimator._tpu.outfeed:_OutfeedHostCall",
        "_OutfeedHostCallHook": "tfport.estimator._tpu.outfeed:_OutfeedHostCallHook",
    }
    | {
        n: f"{_TPU_PROGRAMS}:{n}"
        for n in (
            "_train_on_tpu_system _eval_on_tpu_system _predict_on_tpu_system "
            "_build_computation_for_inference _build_tpu_computation_for_inference"
        ).split()
    }
)
_EMBEDDING_PARAMS = "tfport.estimator._tpu.embedding_params"
PRIVATE["tpu._tpu_estimator_embedding"].update(
    {
        "_EMBEDDING_COLUMN_CLASSES": f"{_EMBEDDING_PARAMS}:embedding_column_classes()",
        "_SUPPORTED_FEATURE_COLUMNS": f"{_EMBEDDING_PARAMS}:supported_feature_columns()",
        "_SUPPORTED_OPTIMIZERS": f"{_EMBEDDING_PARAMS}:supported_optimizers()",
        "_TPU_DEVICE_SPECIFIC_EMBEDDING_COLUMNS": (
            f"{_EMBEDDING_PARAMS}:device_specific_embedding_columns()"
        ),
        "_get_slot_variable_names": f"{_EMBEDDING_PARAMS}:_get_slot_variable_names",
    }
)
# private_misc: multi-worker early stopping, scaffold combining, export function, heads
PRIVATE["early_stopping"]["_MultiWorkerEarlyStoppingHook"] = (
    "tfport.estimator._engine.api.stopping:_MultiWorkerEarlyStoppingHook"
)
PRIVATE["estimator"]["_combine_distributed_scaffold"] = f"{_HELPERS}:_combine_distributed_scaffold"
PRIVATE["export.function"]["_EstimatorSpecFunction"] = (
    "tfport.estimator._engine.running.export_function:_EstimatorSpecFunction"
)
# private_tpu_hooks: legacy TPUEstimator's loop hooks, internal context and graph checks
PRIVATE["tpu.iteration_count_estimator"].update(
    {
        n: f"tfport.estimator._tpu.iteration_count:{n}"
        for n in ("IterationCountEstimator", "RuntimeCounter")
    }
)
PRIVATE["tpu.tpu_estimator"].update(
    {
        n: f"tfport.estimator._tpu.loop_hooks:{n}"
        for n in (
            "_SIGNAL _OpQueueContext _OpSignalOnceQueueContext _create_or_get_iterations_per_loop "
            "_increase_eval_step_op _sync_variables_ops _TPUStopAtStepHook "
            "_SetEvalIterationsHook _StoppingPredictHook"
        ).split()
    }
)
PRIVATE["tpu.tpu_estimator"].update(
    {
        n: f"tfport.estimator._tpu.graph_checks:{n}"
        for n in (
            "_CapturingContext _NotSaver _validate_tpu_training_graph "
            "_verify_cross_hosts_transfer_size _check_add_preemption_hook"
        ).split()
    }
)
PRIVATE["tpu.tpu_context"].update(
    {
        n: f"tfport.estimator._tpu.internal_context:{n}"
        for n in ("_InternalTPUContext", "_OneCoreTPUContext", "_get_tpu_context")
    }
    | {
        n: f"tfport.estimator._tpu.internal_placement:{a}"
        for n, a in (
            ("_TPUEstimatorReplicaContext", "_TPUEstimatorReplicaContext"),
            ("_NUM_CORES_TO_COMPUTATION_SHAPE", "COMPUTATION_SHAPES"),
        )
    }
)
# private_canned_models: canned DNN/linear Keras models, SDCA solver, its tables, k-means model_fn
_CANNED_PKG = "tfport.estimator._canned"
_SDCA_UTILS = "canned.linear_optimizer.python.utils"
PRIVATE["canned.dnn"].update(
    {n: f"{_CANNED_PKG}.dnn_models:{n}" for n in ("_DNNModel", "_DNNModelV2")}
)
PRIVATE["canned.linear"].update(
    {
        "_LinearModelLayer": f"{_CANNED_PKG}.linear_model:_LinearModelLayer",
        "_SDCAUpdateWeightsHook": f"{_CANNED_PKG}.sdca_legacy:_SDCAUpdateWeightsHook",
    }
)
PRIVATE["canned.kmeans"]["_ModelFn"] = f"{_CANNED_PKG}.kmeans:_ModelFn"
PRIVATE[f"{_SDCA_UTILS}.sdca_ops"].update(
    {
        "_SDCAModel": f"{_CANNED_PKG}.sdca_legacy:_SDCAModel",
        "_SparseFeatureColumn": f"{_CANNED_PKG}.sdca_ops:_SparseFeatureColumn",
    }
    | {"_ShardedMutableDenseHashTable": f"{_CANNED_PKG}.dense_tables:_ShardedMutableDenseHashTable"}
)
PRIVATE[f"{_SDCA_UTILS}.sharded_mutable_dense_hashtable"].update(
    {
        n: f"{_CANNED_PKG}.dense_tables:{n}"
        for n in ("_MutableDenseHashTable", "_ShardedMutableDenseHashTable")
    }
)
