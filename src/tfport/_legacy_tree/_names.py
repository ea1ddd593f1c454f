"""Single names of the legacy modules: renames, small names and the private names libraries
import (issues 27 and 41's first rounds)."""

from __future__ import annotations

from tfport._common import canned
from tfport._legacy_tree._paths import (
    _EXPORT,
    _N,
    _TPU,
    _V2,
    PATHS,
)

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
for _module, _family in canned.LEGACY_MODULE.items():
    NAMES[f"canned.{_module}"].update(_v2_renames(*canned.FAMILIES[_family]))
NAMES["canned.parsing_utils"].update(
    {
        "classifier_parse_example_spec_v2": f"{_V2}:classifier_parse_example_spec",
        "regressor_parse_example_spec_v2": f"{_V2}:regressor_parse_example_spec",
    }
)
NAMES["canned.rnn"]["USE_DEFAULT"] = f"{_N}:USE_DEFAULT"
NAMES["estimator"].update(
    {"EstimatorV2": f"{_V2}:Estimator"}
    | {
        n: f"tfport.estimator._engine.estimator_helpers:{n}"
        for n in (
            "create_per_replica_ready_for_local_init_op",
            "maybe_overwrite_model_dir_and_session_config",
        )
    }
)
NAMES["estimator_lib"].update(
    {
        "TPUEstimator": f"{_TPU}:TPUEstimator",
        "KMeansClustering": "tfport.estimator._canned.kmeans:KMeansClustering",
        "model_to_estimator": "tfport.keras._legacy_lib:model_to_estimator",
    }
)
for _suffix in ("export.export", "export.export_lib"):
    NAMES[_suffix].update(
        {"UnsupervisedInputReceiver": f"{_EXPORT}:ServingInputReceiver"}
        | _names(
            "SINGLE_FEATURE_DEFAULT_NAME",
            "SINGLE_LABEL_DEFAULT_NAME",
            "SINGLE_RECEIVER_DEFAULT_NAME",
        )
        | {
            n: f"tfport.estimator._engine.api.receivers:{n}"
            for n in (
                "build_supervised_input_receiver_fn_from_input_fn",
                "wrap_and_check_input_tensors",
            )
        }
    )
NAMES["export.export_lib"].update(_names("EXPORT_TAG_MAP", "SIGNATURE_KEY_MAP"))
NAMES["head.base_head"].update(
    {
        "DEFAULT_SERVING_KEY": "tfport.estimator._heads.canned_head:_DEFAULT_SERVING_KEY",
        "CLASSIFY_SERVING_KEY": "tfport.estimator._heads.canned_head:_CLASSIFY_SERVING_KEY",
        "REGRESS_SERVING_KEY": "tfport.estimator._heads.canned_head:_REGRESS_SERVING_KEY",
        "PREDICT_SERVING_KEY": "tfport.estimator._heads.canned_head:_PREDICT_SERVING_KEY",
        "all_class_ids": "tfport.estimator._heads.canned_head:_all_class_ids",
        "all_classes": "tfport.estimator._heads.canned_head:_all_classes",
        "check_logits_final_dim": "tfport.estimator._heads.canned_head:_check_logits_final_dim",
        "classification_output": "tfport.estimator._heads.canned_head:_classification_output",
    }
)
NAMES["head.base_head"].update(
    {
        n: f"tfport.estimator._heads.base_head:{n}"
        for n in (
            "validate_loss_reduction validate_n_classes validate_loss_fn_args "
            "check_prediction_keys validate_trainable_variables validate_update_ops "
            "validate_v2_optimizer create_eval_metrics_tuple update_metric_with_broadcast_weights "
            "check_label_range call_loss_fn create_estimator_spec_summary"
        ).split()
    }
)
NAMES["head.head_utils"]["binary_or_multi_class_head"] = (
    "tfport.estimator._heads.head_api:binary_or_multi_class_head"
)
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
        f"_{n}": f"tfport.estimator._heads.base_head:{n}"
        for n in (
            "call_loss_fn check_dense_labels_match_logits_and_reshape create_eval_metrics_tuple "
            "get_weights_and_check_match_logits validate_loss_fn_args"
        ).split()
    }
    | {"_assert_range": "tfport.estimator._heads.base_head:check_label_range"}
)
NAMES["inputs.numpy_io"].update(_names("string_types"))
NAMES["inputs.pandas_io"]["HAS_PANDAS"] = f"{_N}:has_pandas()"
NAMES["inputs.queues.feeding_functions"]["HAS_PANDAS"] = f"{_N}:has_pandas()"
NAMES["keras_lib"].update(
    {
        n: f"tfport.keras._legacy_lib:{n}"
        for n in ("FormattedKeyError", "standardize_sample_weights", "model_to_estimator")
    }
)
NAMES["model_fn"].update(
    _names("LOSS_METRIC_KEY", "AVERAGE_LOSS_METRIC_KEY")
    | {"call_logit_fn": "tfport.estimator._engine.api.extenders:call_logit_fn"}
    | {"verify_model_fn_args": "tfport.estimator._engine.estimator_helpers:_verify_model_fn_args"}
)
NAMES["run_config"].update(
    {
        n: f"tfport.estimator._engine.api.tf_config:{n}"
        for n in ("get_default_session_config", "path_to_str")
    }
)
NAMES["estimator_export"]["T"] = f"{_N}:T"
NAMES["tpu.tpu_estimator"].update(
    {
        "BatchConfig": "tfport.estimator._tpu.tpu_estimator:BatchConfig",
        "export_estimator_savedmodel": "tfport.estimator._engine.running.exporting:"
        "export_estimator_savedmodel",
    }
)
NAMES["tpu.tpu_estimator"]["ExamplesPerSecondHook"] = (
    "tfport.estimator._engine.api.hooks:ExamplesPerSecondHook"
)
for _suffix in ("tpu.tpu_estimator", "tpu._tpu_estimator_embedding"):
    NAMES[_suffix]["EmbeddingConfigSpec"] = f"{_TPU}:experimental.EmbeddingConfigSpec"
NAMES["util"]["fn_args"] = "tfport.estimator._engine.building.calls:fn_args"  # TF 1.x util
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
        n: f"tfport.estimator._heads.base_head:{n}"
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
_EXECUTOR = "tfport.estimator._engine.running.executor"
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
    | {"_TrainingExecutor": "tfport.estimator._engine.running.training_executor:_TrainingExecutor"}
)
NAMES["exporter"].update(
    {
        n: f"tfport.estimator._engine.running.train_and_evaluate:{n}"
        for n in ("_SavedModelExporter", "_loss_smaller")
    }
)
