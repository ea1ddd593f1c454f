"""Private literal constants of the legacy modules, with legacy's values."""

from __future__ import annotations

import re

from tfport._legacy_tree._paths import PATHS

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
VALUES["util"]["MAX_DIRECTORY_CREATION_ATTEMPTS"] = 10
