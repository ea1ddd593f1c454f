"""Which tfport modules each legacy module path searches, and TF 2.15's glue modules."""

from __future__ import annotations

_V2 = "tfport.estimator"
_V1 = "tfport.estimator.v1"
_EXP = "tfport.estimator.experimental"
_EXP1 = "tfport.estimator.experimental_v1"
_EXPORT = "tfport.estimator.export"
_TPU = "tfport.estimator.tpu"
_INPUTS = "tfport.estimator.inputs"
_N = "tfport.estimator._legacy.names"
_TPUI = "tfport.estimator._tpu.tpu_internals"
_TS = "tfport.estimator._canned.timeseries"
_RECEIVERS = "tfport.estimator._engine.api.receivers"

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
    "canned.head": ("tfport.estimator._heads.canned_head",),
    "canned.kmeans": ("tfport.estimator._canned.kmeans",),
    "canned.linear": (_V1, _EXP1, _EXP),
    "canned.linear_optimizer": (),
    "canned.linear_optimizer.python": (),
    "canned.linear_optimizer.python.utils": (),
    "canned.linear_optimizer.python.utils.sdca_ops": (),
    "canned.linear_optimizer.python.utils.sharded_mutable_dense_hashtable": (),
    "canned.metric_keys": ("tfport.estimator._legacy.keys",),
    "canned.optimizers": ("tfport.estimator._canned.optimizers",),
    "canned.parsing_utils": (_V2,),
    "canned.prediction_keys": ("tfport.estimator._legacy.keys",),
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
    "early_stopping": (_EXP, "tfport.estimator._engine.api.hooks"),
    "estimator": (_V2,),
    "estimator_export": (_N,),
    "estimator_lib": (_V1, _EXP1, _EXP, "tfport.estimator._engine.api.hooks"),
    "export": (_EXPORT, _RECEIVERS),  # TF 1.x code imported names from the package
    "export.export": (_EXPORT, _RECEIVERS),
    "export.export_lib": (_EXPORT, _RECEIVERS),
    "export.export_output": (_EXPORT,),
    "export.function": (
        "tfport.estimator._engine.running.export_function",
        "tfport.estimator._engine.running.export_function_graph",
    ),
    "exporter": (_V2,),
    "extenders": (_V2,),
    "gc": ("tfport.estimator._engine.api.gc",),
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
    "hooks.fake_summary_writer": ("tfport.estimator._engine.api.fake_summary_writer",),
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
    "run_config": (_V2, "tfport.estimator._engine.api.run_config"),
    "tools": (),
    "tools.analytics": (),
    "tools.checkpoint_converter": ("tfport.checkpoint._v1_converter",),
    "tpu": (_TPU,),
    "tpu._tpu_estimator_embedding": (_TPU, "tfport.estimator._tpu.tpu_embedding_internals", _TPUI),
    "tpu.error_handling": (_TPUI,),
    "tpu.iteration_count_estimator": (_TPUI,),
    "tpu.tpu_config": (_TPU,),
    "tpu.tpu_context": ("tfport.estimator._tpu.tpu_context",),
    "tpu.tpu_estimator": (
        _TPU,
        "tfport.estimator._tpu.tpu_estimator",
        "tfport.estimator._tpu.tpu_host",
        "tfport.estimator._tpu.tpu_infeed",
        "tfport.estimator._tpu.tpu_enqueue",
        "tfport.estimator._tpu.tpu_inputs",
        "tfport.estimator._tpu.tpu_pipeline",
        _TPUI,
    ),
    "tpu.util": (
        _TPUI,
        "tfport.estimator._engine.building.inputs",
        "tfport.estimator._tpu.tpu_pipeline",
    ),
    "training": (_V2,),
    "util": ("tfport.estimator._engine.building.inputs", "tfport.estimator._tpu.tpu_pipeline"),
}

# TensorFlow 2.15's own Estimator glue outside the estimator package (gone from TF 2.21):
# module -> the sources its names resolve from, or (GLUE_ALIASES) the legacy estimator path
# it re-exported (TF's `tensorflow.python.tpu.*` stubs of tensorflow-estimator's TPU modules)
GLUE_PATHS: dict[str, tuple[str, ...]] = {
    "tensorflow.python.distribute.estimator_training": (
        "tfport.estimator._engine.running.coordinator",
    ),
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
    "inputs.queues": "legacy's queue package holds only feeding_functions and "
    "feeding_queue_runner (tf.compat.v1 queues; tfport's own input functions use tf.data); "
    "use tf.estimator.inputs.numpy_input_fn / pandas_input_fn or tf.data",
}
