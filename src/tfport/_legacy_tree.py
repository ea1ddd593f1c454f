"""The legacy module tree: which tfport objects each legacy private module path offers.

`PATHS[suffix]` lists the sources a module under `tensorflow_estimator.python.estimator.`
(and `tensorflow.python.estimator.`) searches, first match wins: `"module"` or
`"module:attr.path"`. `NAMES[suffix]` maps single names to `"module:attr"` (renames such as
`DNNClassifierV2`, and the small names of `tfport.estimator._legacy.names`). `VALUES[suffix]`
holds private literal constants with legacy's values.
"""

from __future__ import annotations

import re

_V2 = "tfport.estimator"
_V1 = "tfport.estimator.v1"
_EXP = "tfport.estimator.experimental"
_EXP1 = "tfport.estimator.experimental_v1"
_EXPORT = "tfport.estimator.export"
_TPU = "tfport.estimator.tpu"
_INPUTS = "tfport.estimator.inputs"
_L = "tfport.estimator._legacy."
_N = _L + "names"
_TPUI = _L + "tpu_internals"
_TS = "tfport.estimator._canned.timeseries"
_RECEIVERS = "tfport.estimator._engine.receivers"

PATHS: dict[str, tuple[str, ...]] = {
    "": (_V2,),
    "api": (),
    "api._v1": (),
    "api._v1.estimator": (_V1,),
    "api._v1.estimator.experimental": (_V1 + ":experimental",),
    "api._v1.estimator.export": (_V1 + ":export",),
    "api._v1.estimator.inputs": (_V1 + ":inputs",),
    "api._v1.estimator.tpu": (_V1 + ":tpu",),
    "api._v1.estimator.tpu.experimental": (_V1 + ":tpu.experimental",),
    "api._v1.v1": (),
    "api._v2": (),
    "api._v2.estimator": (_V2,),
    "api._v2.estimator.experimental": (_EXP,),
    "api._v2.estimator.export": (_EXPORT,),
    "api._v2.estimator.inputs": (),
    "api._v2.v2": (),
    "canned": (),
    "canned.baseline": (_V1,),
    "canned.dnn": (_V1, _EXP1),
    "canned.dnn_linear_combined": (_V1,),
    "canned.head": (_L + "canned_head",),
    "canned.kmeans": ("tfport.estimator._canned.kmeans",),
    "canned.linear": (_V1, _EXP1, _EXP),
    "canned.linear_optimizer": (),
    "canned.linear_optimizer.python": (),
    "canned.linear_optimizer.python.utils": (),
    "canned.linear_optimizer.python.utils.sdca_ops": (),
    "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable": (),
    "canned.metric_keys": (_L + "keys",),
    "canned.optimizers": (_L + "canned_optimizers",),
    "canned.parsing_utils": (_V2,),
    "canned.prediction_keys": (_L + "keys",),
    "canned.rnn": (_EXP, "tfport.estimator._canned.rnn"),
    "canned.saved_model_estimator": ("tfport.estimator._canned.saved_model_estimator",),
    "canned.timeseries": (_TS,),
    "canned.timeseries.ar_model": (_TS + ".ar_model",),
    "canned.timeseries.estimators": (_TS + ".estimators",),
    "canned.timeseries.feature_keys": (_TS + ".feature_keys",),
    "canned.timeseries.head": (_TS + ".head",),
    "canned.timeseries.math_utils": (_TS + ".math_utils",),
    "canned.timeseries.model": (_TS + ".model",),
    "canned.timeseries.model_utils": (_TS + ".model_utils",),
    "canned.timeseries.saved_model_utils": (_TS + ".saved_model_utils",),
    "canned.timeseries.state_management": (_TS + ".state_management",),
    "canned.v1": (),
    "early_stopping": (_EXP, "tfport.estimator._engine.hooks"),
    "estimator": (_V2,),
    "estimator_export": (_N,),
    "estimator_lib": (_V1, _EXP1, _EXP, "tfport.estimator._engine.hooks"),
    "export": (_EXPORT, _RECEIVERS),  # TF 1.x code imported names from the package
    "export.export": (_EXPORT, _RECEIVERS),
    "export.export_lib": (_EXPORT, _RECEIVERS),
    "export.export_output": (_EXPORT,),
    "export.function": (_L + "export_function", _L + "export_function_graph"),
    "exporter": (_V2,),
    "extenders": (_V2,),
    "gc": (_L + "gc",),
    "head": (),
    "head.base_head": (_V2,),
    "head.binary_class_head": (_V2,),
    "head.head_utils": (),
    "head.multi_class_head": (_V2,),
    "head.multi_head": (_V2,),
    "head.multi_label_head": (_V2,),
    "head.regression_head": (_V2,),
    "head.sequential_head": ("tfport.estimator._heads.sequential",),
    "hooks": (_V2, _EXP),
    "hooks.basic_session_run_hooks": (),
    "hooks.fake_summary_writer": (_L + "fake_summary_writer",),
    "hooks.hooks": (_EXP,),
    "hooks.session_run_hook": (),
    "inputs": (_INPUTS,),
    "inputs.inputs": (_INPUTS,),
    "inputs.numpy_io": (_INPUTS,),
    "inputs.pandas_io": (_INPUTS,),
    "inputs.queues": (),
    "inputs.queues.feeding_functions": (),
    "inputs.queues.feeding_queue_runner": (),
    "keras": ("tfport.keras",),  # the TF 1.x path tensorflow.python.estimator.keras
    "keras_lib": (),
    "mode_keys": (_V2,),
    "model_fn": (_V2,),
    "run_config": (_V2, "tfport.estimator._engine.run_config"),
    "tools": (),
    "tools.analytics": (),
    "tools.checkpoint_converter": (_L + "checkpoint_converter",),
    "tpu": (_TPU,),
    "tpu._tpu_estimator_embedding": (_TPU, _L + "tpu_embedding_internals", _TPUI),
    "tpu.error_handling": (_TPUI,),
    "tpu.iteration_count_estimator": (_TPUI,),
    "tpu.tpu_config": (_TPU,),
    "tpu.tpu_context": ("tfport.estimator._tpu.tpu_context",),
    "tpu.tpu_estimator": (
        _TPU,
        "tfport.estimator._tpu.tpu_estimator",
        _L + "tpu_host",
        _L + "tpu_infeed",
        _L + "tpu_enqueue",
        _L + "tpu_inputs",
        _L + "tpu_pipeline",
        _TPUI,
    ),
    "tpu.util": (_TPUI, _L + "util"),
    "training": (_V2,),
    "util": (_L + "util",),
}

_EXPORT_DECORATED = (
    "canned.baseline canned.dnn canned.dnn_linear_combined canned.kmeans canned.linear "
    "canned.parsing_utils canned.rnn early_stopping estimator exporter export.export "
    "export.export_output extenders head.base_head head.binary_class_head "
    "head.multi_class_head head.multi_head head.multi_label_head head.regression_head "
    "hooks.basic_session_run_hooks hooks.hooks hooks.session_run_hook inputs.numpy_io "
    "inputs.pandas_io mode_keys model_fn run_config tpu._tpu_estimator_embedding "
    "tpu.tpu_config tpu.tpu_estimator training estimator_lib"
).split()


def _v2_renames(*names: str) -> dict[str, str]:
    return {f"{n}V2": f"{_V2}:{n}" for n in names}


def _names(*names: str) -> dict[str, str]:
    return {n: f"{_N}:{n}" for n in names}


NAMES: dict[str, dict[str, str]] = {suffix: {} for suffix in PATHS}
for _suffix in _EXPORT_DECORATED:
    NAMES[_suffix]["estimator_export"] = f"{_N}:estimator_export"
NAMES["canned.baseline"].update(
    _v2_renames("BaselineClassifier", "BaselineEstimator", "BaselineRegressor")
)
NAMES["canned.dnn"].update(_v2_renames("DNNClassifier", "DNNEstimator", "DNNRegressor"))
NAMES["canned.dnn_linear_combined"].update(
    _v2_renames(
        "DNNLinearCombinedClassifier", "DNNLinearCombinedEstimator", "DNNLinearCombinedRegressor"
    )
)
NAMES["canned.linear"].update(_v2_renames("LinearClassifier", "LinearEstimator", "LinearRegressor"))
NAMES["canned.parsing_utils"].update(
    {
        "classifier_parse_example_spec_v2": f"{_V2}:classifier_parse_example_spec",
        "regressor_parse_example_spec_v2": f"{_V2}:regressor_parse_example_spec",
    }
)
NAMES["canned.rnn"]["USE_DEFAULT"] = f"{_N}:USE_DEFAULT"
NAMES["estimator"].update(
    {"EstimatorV2": f"{_V2}:Estimator"}
    | _names(
        "create_per_replica_ready_for_local_init_op", "maybe_overwrite_model_dir_and_session_config"
    )
)
NAMES["estimator_lib"].update(
    {
        "TPUEstimator": f"{_TPU}:TPUEstimator",
        "KMeansClustering": "tfport.estimator._canned.kmeans:KMeansClustering",
        "model_to_estimator": f"{_N}:model_to_estimator",
    }
)
for _suffix in ("export.export", "export.export_lib"):
    NAMES[_suffix].update(
        {"UnsupervisedInputReceiver": f"{_EXPORT}:ServingInputReceiver"}
        | _names(
            "SINGLE_FEATURE_DEFAULT_NAME",
            "SINGLE_LABEL_DEFAULT_NAME",
            "SINGLE_RECEIVER_DEFAULT_NAME",
            "build_supervised_input_receiver_fn_from_input_fn",
            "wrap_and_check_input_tensors",
        )
    )
NAMES["export.export_lib"].update(_names("EXPORT_TAG_MAP", "SIGNATURE_KEY_MAP"))
NAMES["head.base_head"].update(
    {
        "DEFAULT_SERVING_KEY": f"{_L}canned_head:_DEFAULT_SERVING_KEY",
        "CLASSIFY_SERVING_KEY": f"{_L}canned_head:_CLASSIFY_SERVING_KEY",
        "REGRESS_SERVING_KEY": f"{_L}canned_head:_REGRESS_SERVING_KEY",
        "PREDICT_SERVING_KEY": f"{_L}canned_head:_PREDICT_SERVING_KEY",
        "all_class_ids": f"{_L}canned_head:_all_class_ids",
        "all_classes": f"{_L}canned_head:_all_classes",
        "check_logits_final_dim": f"{_L}canned_head:_check_logits_final_dim",
        "classification_output": f"{_L}canned_head:_classification_output",
    }
)
NAMES["head.base_head"].update(
    {
        n: f"{_L}base_head:{n}"
        for n in (
            "validate_loss_reduction validate_n_classes validate_loss_fn_args "
            "check_prediction_keys validate_trainable_variables validate_update_ops "
            "validate_v2_optimizer create_eval_metrics_tuple update_metric_with_broadcast_weights "
            "check_label_range call_loss_fn create_estimator_spec_summary"
        ).split()
    }
)
NAMES["head.head_utils"].update(_names("binary_or_multi_class_head"))
NAMES["canned.head"].update(
    {
        n: f"tfport.estimator._heads.v1_metrics:{n}"
        for n in (
            "_indicator_labels_mean _predictions_mean _accuracy_baseline _auc "
            "_accuracy_at_threshold _precision_at_threshold _recall_at_threshold "
            "_append_update_ops"
        ).split()
    }
    | {
        f"_{n}": f"{_L}base_head:{n}"
        for n in (
            "call_loss_fn check_dense_labels_match_logits_and_reshape create_eval_metrics_tuple "
            "get_weights_and_check_match_logits validate_loss_fn_args"
        ).split()
    }
    | {"_assert_range": f"{_L}base_head:check_label_range"}
)
NAMES["inputs.numpy_io"].update(_names("string_types"))
NAMES["inputs.pandas_io"]["HAS_PANDAS"] = f"{_N}:has_pandas()"
NAMES["inputs.queues.feeding_functions"]["HAS_PANDAS"] = f"{_N}:has_pandas()"
NAMES["keras_lib"].update(
    _names("FormattedKeyError", "standardize_sample_weights", "model_to_estimator")
)
NAMES["model_fn"].update(
    _names("LOSS_METRIC_KEY", "AVERAGE_LOSS_METRIC_KEY", "call_logit_fn", "verify_model_fn_args")
)
NAMES["run_config"].update(_names("get_default_session_config", "path_to_str"))
NAMES["estimator_export"]["T"] = f"{_N}:T"
NAMES["tpu.tpu_estimator"].update(_names("BatchConfig", "export_estimator_savedmodel"))
NAMES["tpu.tpu_estimator"]["ExamplesPerSecondHook"] = (
    "tfport.estimator._engine.hooks:ExamplesPerSecondHook"
)
for _suffix in ("tpu.tpu_estimator", "tpu._tpu_estimator_embedding"):
    NAMES[_suffix]["EmbeddingConfigSpec"] = f"{_TPU}:experimental.EmbeddingConfigSpec"
NAMES["util"]["fn_args"] = "tfport.estimator._engine.calls:fn_args"  # TF 1.x util
NAMES["tools.analytics"].update(_names("track_usage", "track_numerical_issues"))
NAMES["canned.rnn"]["RNNModel"] = "tfport.estimator._canned.rnn:RNNModel"
_V2_ENTRY = "tfport.estimator._canned.v2_entry"
NAMES["canned.dnn"].update(
    {n: f"{_V2_ENTRY}:{n}" for n in ("dnn_logit_fn_builder_v2", "dnn_model_fn_v2")}
)
NAMES["canned.linear"].update(
    {
        "linear_logit_fn_builder_v2": f"{_V2_ENTRY}:linear_logit_fn_builder_v2",
        "LinearModel": "tfport.estimator._canned.linear_model:LinearModel",
    }
)
NAMES["head.base_head"].update(
    {
        n: f"{_L}base_head:{n}"
        for n in (
            "create_estimator_spec_train_op",
            "check_dense_labels_match_logits_and_reshape",
            "get_weights_and_check_match_logits",
        )
    }
)
NAMES["canned.dnn"].update(
    {"dnn_logit_fn_builder": "tfport.estimator._canned.logit_fns:dnn_logit_fn_builder"}
)
NAMES["canned.linear"].update(
    {"linear_logit_fn_builder": "tfport.estimator._canned.logit_fns:linear_logit_fn_builder"}
)
NAMES["estimator_lib"].update(
    {
        "dnn_logit_fn_builder": "tfport.estimator._canned.logit_fns:dnn_logit_fn_builder",
        "linear_logit_fn_builder": "tfport.estimator._canned.logit_fns:linear_logit_fn_builder",
    }
)
_EXECUTOR = "tfport.estimator._engine.executor"
NAMES["training"].update(
    {
        n: f"{_EXECUTOR}:{n}"
        for n in (
            "_ContinuousEvalListener _EvalResult _EvalStatus _NewCheckpointListenerForEvaluate "
            "_StopAtSecsHook _assert_eval_spec _is_google_env _DELAY_SECS_PER_WORKER "
            "_MAX_DELAY_SECS _ENVIRONMENT_GOOGLE_VALUE _ENVIRONMENT_KEY _TF_CONFIG_ENV "
            "_TRAINER_JOBS _validate_input_fn _validate_hooks _validate_saving_listeners "
            "_validate_exporters"
        ).split()
    }
    | {"_TrainingExecutor": "tfport.estimator._engine.training_executor:_TrainingExecutor"}
)
NAMES["exporter"].update(
    {
        n: f"tfport.estimator._engine.train_and_evaluate:{n}"
        for n in ("_SavedModelExporter", "_loss_smaller")
    }
)
_TPU_HELPERS = "tfport.estimator._tpu.legacy_helpers"
NAMES["tpu.tpu_estimator"].update(
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
NAMES["tpu.tpu_estimator"].update(
    {n: f"{_TPU_HELPERS}:{n}" for n in ("_is_iterable", "_add_item_to_params")}
)
NAMES["tpu.tpu_config"]["_get_tpu_job_name_from_tf_config"] = (
    f"{_TPU_HELPERS}:_get_tpu_job_name_from_tf_config"
)
NAMES["export.export"].update(
    {
        n: f"{_RECEIVERS}:{n}"
        for n in (
            "_check_tensor _check_tensor_key _placeholder_from_tensor "
            "_placeholders_from_receiver_tensors_dict"
        ).split()
    }
)
_EXTENDERS = "tfport.estimator._engine.extenders"
NAMES["extenders"].update(
    {n: f"{_EXTENDERS}:{n}" for n in ("_call_metric_fn", "_verify_metric_fn_args")}
)
NAMES["exporter"]["_verify_compare_fn_args"] = f"{_EXTENDERS}:_verify_compare_fn_args"
NAMES["canned.parsing_utils"]["_add_label_and_weight_to_parsing_spec"] = (
    f"{_EXTENDERS}:_add_label_and_weight_to_parsing_spec"
)
NAMES["head.multi_head"].update(
    {
        n: f"tfport.estimator._heads.multi_head:{n}"
        for n in ("_default_export_output", "_no_op_train_fn")
    }
)
NAMES["head.sequential_head"]["_flatten_tensor"] = (
    "tfport.estimator._heads.sequential:_flatten_tensor"
)
NAMES["hooks.hooks"]["_StopAtCheckpointStepHook"] = (
    "tfport.estimator._engine.evaluator_hook:_StopAtCheckpointStepHook"
)
_NUMPY_IO = "tfport.estimator._inputs.numpy_io"
NAMES["inputs.numpy_io"].update(
    {n: f"{_NUMPY_IO}:{n}" for n in ("_get_unique_target_key", "_validate_and_convert_features")}
)
NAMES["inputs.pandas_io"]["_get_unique_target_key"] = (
    "tfport.estimator._inputs.pandas_io:_get_unique_target_key"
)
_CANNED = "tfport.estimator._canned.legacy_fns"
NAMES["canned.dnn"].update(
    {
        n: f"{_CANNED}:{n}"
        for n in (
            "_dnn_model_fn _add_hidden_layer_summary _validate_features _name_from_scope_name "
            "_get_previous_name_scope _get_dnn_estimator_spec"
        ).split()
    }
)
NAMES["canned.linear"].update(
    {
        n: f"{_CANNED}:{n}"
        for n in (
            "_linear_model_fn _linear_model_fn_v2 _compute_fraction_of_zero "
            "_get_expanded_variable_list _get_default_optimizer _get_default_optimizer_v2"
        ).split()
    }
)
NAMES["canned.dnn_linear_combined"].update(
    {
        n: f"{_CANNED}:{n}"
        for n in (
            "_dnn_linear_combined_model_fn _dnn_linear_combined_model_fn_v2 "
            "_linear_learning_rate _check_no_sync_replicas_optimizer _validate_feature_columns"
        ).split()
    }
    | {"_add_layer_summary": f"{_CANNED}:_add_hidden_layer_summary"}
)
NAMES["canned.rnn"].update(
    {n: f"{_CANNED}:{n}" for n in ("_single_rnn_cell", "_make_rnn_cell_fn")}
    | {
        "_make_rnn_layer": "tfport.estimator._canned.rnn:make_rnn_layer",
        "_verify_rnn_cell_input": "tfport.estimator._canned.rnn:check_cell_args",
        "_CELL_TYPES": f"{_CANNED}:cell_types()",
        "_CELL_TYPE_TO_LAYER_MAPPING": f"{_CANNED}:cell_type_to_layer()",
    }
)
NAMES["early_stopping"].update(
    {
        n: f"tfport.estimator._engine.stopping:{n}"
        for n in (
            "_stop_if_threshold_crossed_hook _stop_if_no_metric_improvement_hook "
            "_get_or_create_stop_var _summaries"
        ).split()
    }
)
NAMES["keras_lib"].update(
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
NAMES["tpu.tpu_estimator"]["_tpu_estimator_gauge"] = f"{_TPU_HELPERS}:tpu_estimator_gauge()"
NAMES["tpu.error_handling"].update(
    {
        "_IGNORED_ERRORS": f"{_TPU_HELPERS}:ignored_errors()",
        "_UNINTERESTING_ERRORS": f"{_TPU_HELPERS}:uninteresting_errors()",
    }
)
NAMES["tpu._tpu_estimator_embedding"]["_TPU_EMBEDDING_COLUMN_CLASSES"] = (
    f"{_TPU_HELPERS}:tpu_embedding_column_classes()"
)
NAMES["head.head_utils"].update(
    {
        n: f"tfport.estimator._heads.testing:{n}"
        for n in ("_assert_no_hooks", "_assert_simple_summaries", "_initialize_variables")
    }
)
NAMES["canned.rnn"]["_get_rnn_estimator_spec"] = f"{_CANNED}:_get_rnn_estimator_spec"
NAMES["canned.kmeans"]["_parse_features_if_necessary"] = "tfport.estimator._canned.kmeans:_points"
_CONSTANTS = _L + "private_constants"
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
    NAMES[_suffix].update({n: f"{_CONSTANTS}:{n}" for n in _private.split()})
_COORDINATOR = "tfport.estimator._engine.coordinator"
NAMES["run_config"].update(
    {
        "_count_ps": f"{_COORDINATOR}:_count_ps",
        "_count_worker": f"{_COORDINATOR}:_count_worker",
        "_get_global_id_in_cluster": f"{_COORDINATOR}:_get_global_id",
    }
    | {
        n: f"tfport.estimator._engine.tf_config:{n}"
        for n in (
            "_validate_service _validate_task_type_and_task_id _get_session_master "
            "_get_eval_session_master _get_model_dir _validate_properties "
            "_validate_save_ckpt_with_replaced_keys"
        ).split()
    }
)
_HELPERS = "tfport.estimator._engine.estimator_helpers"
NAMES["estimator"].update(
    {
        n: f"{_HELPERS}:{n}"
        for n in (
            "_assert_members_are_not_overridden _check_hooks_type _check_listeners_type "
            "_dict_to_str _write_dict_to_summary _write_checkpoint_path_to_summary "
            "_load_global_step_from_checkpoint_dir _check_checkpoint_available"
        ).split()
    }
    | {"_get_default_warm_start_settings": "tfport.estimator._engine.warm_start:to_settings"}
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
NAMES["model_fn"].update(
    {
        n: f"tfport.estimator._engine.spec:{n}"
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

# legacy modules' private literal constants, with legacy's values (read by the module tree)
_TFMW = {  # the attributes TF's module wrapper gave each generated api module
    "_tfmw_deprecated_checked": set(),
    "_tfmw_has_lite": False,
    "_tfmw_is_compat_v1": False,
    "_tfmw_print_deprecation_warnings": True,
    "_tfmw_public_apis": None,
    "_tfmw_warning_count": 0,
}
VALUES: dict[str, dict[str, object]] = {suffix: {} for suffix in PATHS}
for _suffix, _wrapped in {
    "api": "",
    "api._v1.estimator": "estimator",
    "api._v1.estimator.experimental": "estimator.experimental",
    "api._v1.estimator.export": "estimator.export",
    "api._v1.estimator.inputs": "estimator.inputs",
    "api._v1.estimator.tpu": "estimator.tpu",
    "api._v1.estimator.tpu.experimental": "estimator.tpu.experimental",
    "api._v1.v1": "",
}.items():
    VALUES[_suffix].update(
        _TFMW | {"_tfmw_deprecated_checked": set(), "_tfmw_module_name": _wrapped}
    )
VALUES["canned.baseline"]["_LEARNING_RATE"] = 0.3
VALUES["canned.dnn"]["_LEARNING_RATE"] = 0.05
VALUES["canned.dnn_linear_combined"].update(_DNN_LEARNING_RATE=0.001, _LINEAR_LEARNING_RATE=0.005)
VALUES["canned.linear"]["_LEARNING_RATE"] = 0.2
VALUES["canned.rnn"].update(
    _DEFAULT_CLIP_NORM=5.0,
    _DEFAULT_LEARNING_RATE=0.05,
    _GRU_KEY="gru",
    _LSTM_KEY="lstm",
    _SIMPLE_RNN_KEY="simple_rnn",
)
VALUES["tpu._tpu_estimator_embedding"].update(_LEN_TABLE_NAME_PREFIX=4, _TABLE_NAME_PREFIX="tbl_")
VALUES["tpu.error_handling"]["_CHECK_NUMERIC_OP_NAME"] = "CheckNumerics"
VALUES["tpu.tpu_config"].update(
    _SERVICE_KEY="service", _TF_CONFIG_ENV="TF_CONFIG", _TPU_WORKER_JOB_NAME="tpu_worker_job_name"
)
VALUES["tpu.tpu_context"].update(
    _DEFAULT_COORDINATOR_JOB_NAME="coordinator",
    _DEFAULT_JOB_NAME="tpu_worker",
    _LOCAL_MASTERS=("", "local"),
    _NUM_CORES_TO_COMPUTATION_SHAPE={
        1: [1, 1, 1, 1],
        2: [1, 1, 1, 2],
        4: [1, 2, 1, 2],
        8: [2, 2, 1, 2],
        16: [4, 2, 1, 2],
        32: [4, 4, 1, 2],
        64: [8, 4, 1, 2],
        128: [8, 8, 1, 2],
    },
)
VALUES["tpu.util"]["_ITERATIONS_PER_LOOP_VALUE_REGEX"] = re.compile(
    r"^(?P<value>[1-9]\d*)((?P<suffix>[s|m|h])$|$)"
)
VALUES["tpu.tpu_estimator"].update(
    _BATCH_SIZE_KEY="batch_size",
    _CROSS_REPLICA_SUM_OP="CrossReplicaSum",
    _CTX_KEY="context",
    _INFERENCE_ON_TPU_MODE="_inference_on_tpu",
    _INITIAL_LOSS=1e7,
    _KEY_WHEN_PREDICTIONS_IS_A_TENSOR="_key_when_predictions_is_a_tensor",
    _ONE_GIGABYTE=1 << 30,
    _RESERVED_PARAMS_KEYS=["batch_size", "context"],
    _TENSOR_PACKER_CONCATENATED_SMALL_FEATURES_KEY="_concatenated_small_features",
    _TENSOR_PACKER_MINIMUM_NUM_SMALL_FEATURES_TO_GROUP=5,
    _TENSOR_PACKER_SMALL_FEATURE_DIM_SIZE=1,
    _USE_TPU_KEY="use_tpu",
    _WRAP_INPUT_FN_INTO_WHILE_LOOP=False,
    _ZERO_LOSS=0.0,
)

# TensorFlow 2.15's own Estimator glue outside the estimator package (gone from TF 2.21):
# module -> the sources its names resolve from, or (GLUE_ALIASES) the legacy estimator path
# it re-exported (TF's `tensorflow.python.tpu.*` stubs of tensorflow-estimator's TPU modules)
GLUE_PATHS: dict[str, tuple[str, ...]] = {
    "tensorflow.python.distribute.estimator_training": ("tfport.estimator._engine.coordinator",),
}
GLUE_ALIASES: dict[str, str] = {
    f"tensorflow.python.tpu.{name}": f"tpu.{name}"
    for name in ("tpu_estimator", "tpu_config", "tpu_context", "error_handling", "util")
}

# legacy path -> why a name it lacks here is missing and what to use (the error says it)
WHY = {
    "canned.head": "only the v1 head classes, their factories and helpers are provided; the "
    "public heads are tf.estimator.MultiClassHead / BinaryClassHead / RegressionHead / "
    "MultiLabelHead",
    "inputs.queues": "queue-based feeding is gone from TF 2.21 (tfport's input functions use "
    "tf.data); use tf.estimator.inputs.numpy_input_fn / pandas_input_fn or tf.data",
}
