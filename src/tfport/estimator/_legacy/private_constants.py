"""Legacy modules' private constants that libraries read, with legacy's values.

Keys of TF_CONFIG and RunConfig (`run_config._TF_CONFIG_ENV`, `_TASK_ENV_KEY`, ...), the
argument names legacy accepted (`_VALID_MODEL_FN_ARGS`, `_VALID_METRIC_FN_ARGS`,
`_VALID_DEVICE_FN_ARGS`), default names and the heads' error templates.
`tfport._legacy_tree.NAMES` places each under its legacy module.

Example:
    >>> _TF_CONFIG_ENV
    'TF_CONFIG'
"""

from __future__ import annotations

from tfport.estimator._engine.api.run_config import LEGACY_REPLACEABLE

_USE_DEFAULT = object()
_VALID_DEVICE_FN_ARGS = {"op"}
_DEFAULT_REPLACEABLE_LIST = list(LEGACY_REPLACEABLE)
_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."
_TF_CONFIG_ENV = "TF_CONFIG"
_TASK_ENV_KEY = "task"
_TASK_TYPE_KEY = "type"
_TASK_ID_KEY = "index"
_CLUSTER_KEY = "cluster"
_SERVICE_KEY = "service"
_SESSION_MASTER_KEY = "session_master"
_EVAL_SESSION_MASTER_KEY = "eval_session_master"
_MODEL_DIR_KEY = "model_dir"
_LOCAL_MASTER = ""
_GRPC_SCHEME = "grpc://"

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}
_VALID_METRIC_FN_ARGS = {"features", "labels", "predictions", "config"}
_default_graph_error_message_template = (
    '{0} with "{1}" must be from the default graph. Possible causes of this error include: '
    "\n\n1) {0} was created outside the context of the default graph.\n\n2) The object "
    'passed through to EstimatorSpec was not created in the most recent call to "model_fn".'
)
_EVENT_FILE_GLOB_PATTERN = "events.out.tfevents.*"
_SINGLE_TENSOR_DEFAULT_NAMES = {
    "feature": "feature",
    "label": "label",
    "receiver_tensor": "input",
    "receiver_tensors_alternative": "input",
}
_DEFAULT_SERVING_KEY = "serving_default"
_TARGET_KEY = "__target_key__"

_LABEL_NONE_ERR_MSG = (
    "You must provide a labels Tensor. Given: None. Suggested troubleshooting steps: Check "
    "that your data contains your label feature. Check that your input_fn properly parses "
    "and returns labels."
)
_LABEL_SHAPE_ERR_MSG = (
    "labels shape must be [D0, D1, ... DN, {}]. Suggested Fix: check your n_classes argument "
    "to the head and/or the shape of your label."
)
_MISMATCHED_LABEL_DIM_ERR_MSG = (
    "Mismatched label shape. Expected labels dimension={}.  Received {}. Suggested Fix: If "
    "your classifier expects one-hot encoding label, check your n_classes argument to the "
    "estimator and/or the shape of your label. Otherwise, check the shape of your label."
)
_SPARSE_LABEL_ERR_MSG = (
    "SparseTensor labels are not supported. Labels must be a Tensor of shape [D0, D1, ..., "
    "DN, {}], e.g. [batch_size, {}].Suggested Fix (1): Check the label feature in your data. "
    "Each example must contain {} value(s). If not, your choice of label was probably "
    "incorrect. Suggested Fix (2): In your input_fn, use tf.sparse_tensor_to_dense() to turn "
    "labels into a Tensor."
)
_VALIDATION_ERROR_MSG = "{} should be a list or a tuple. Given type: {}."
