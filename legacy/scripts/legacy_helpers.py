"""Legacy Estimator's private module helpers that libraries call, on fixed inputs.

``python legacy_helpers.py legacy_helpers OUT_DIR`` writes ``OUT_DIR/values.json``: what
``model_fn``'s spec validators, ``estimator``'s metric and argument helpers and
``run_config``'s TF_CONFIG helpers return or raise (exception type and first line) for each
input. The test runs ``record()`` under tfport and compares.
"""

import json
import os
import sys

import _values
import tensorflow as tf
from tensorflow_estimator.python.estimator import estimator as E
from tensorflow_estimator.python.estimator import model_fn as M
from tensorflow_estimator.python.estimator import run_config as R
from tensorflow_estimator.python.estimator.canned import head as H
from tensorflow_estimator.python.estimator.canned import parsing_utils

ARTIFACTS = ("legacy_helpers",)
v1 = tf.compat.v1


def _graph_object(value):
    return [type(value).__name__, value.name.split("/")[-1].split(":")[0]]


_describe = _values.describer(_graph_object)
_outcome = _values.outcome_recorder(_describe)


def _model_fn_validators():
    out = {}
    with tf.Graph().as_default():
        loss = tf.constant([[2.0]], name="loss")
        vector = tf.constant([1.0, 2.0], name="vector")
        train_op = tf.group(loss, name="train")
        out["loss_scalar"] = _outcome(M._validate_estimator_spec_loss, tf.constant(1.0), "train")
        out["loss_1x1"] = _outcome(M._validate_estimator_spec_loss, loss, "eval")
        out["loss_vector"] = _outcome(M._validate_estimator_spec_loss, vector, "train")
        out["loss_none_predict"] = _outcome(M._validate_estimator_spec_loss, None, "infer")
        out["loss_none_train"] = _outcome(M._validate_estimator_spec_loss, None, "train")
        out["train_op_none"] = _outcome(M._validate_estimator_spec_train_op, None, "train")
        out["train_op_none_eval"] = _outcome(M._validate_estimator_spec_train_op, None, "eval")
        out["train_op_tensor"] = _outcome(M._validate_estimator_spec_train_op, loss, "train")
        out["train_op_op"] = _outcome(M._validate_estimator_spec_train_op, train_op, "train")
        out["train_op_int"] = _outcome(M._validate_estimator_spec_train_op, 3, "train")
        out["hooks_none"] = _outcome(M._validate_estimator_spec_hooks, None)
        out["hooks_bad"] = _outcome(M._validate_estimator_spec_hooks, [object()])
        out["hooks_ok"] = _outcome(M._validate_estimator_spec_hooks, [v1.train.StopAtStepHook(1)])
        out["scaffold_none"] = _outcome(M._validate_scaffold, None)
        out["scaffold_bad"] = _outcome(M._validate_scaffold, "s")
        out["export_default"] = _outcome(
            M._validate_estimator_spec_export_outputs, None, {"y": vector}, "infer"
        )
        out["export_tensor"] = _outcome(
            M._validate_estimator_spec_export_outputs, None, vector, "infer"
        )
        out["export_train"] = _outcome(M._validate_estimator_spec_export_outputs, "x", {}, "train")
        out["export_bad"] = _outcome(
            M._validate_estimator_spec_export_outputs, {"a": 1}, {"y": vector}, "infer"
        )
        out["metrics"] = _outcome(M._validate_eval_metric_ops, {"m": v1.metrics.mean(vector)})
        out["is_tensor"] = _outcome(M._check_is_tensor, vector, "x")
        out["is_tensor_bad"] = _outcome(M._check_is_tensor, 1.0, "x")
        out["is_tensor_or_op"] = _outcome(M._check_is_tensor_or_operation, train_op, "op")
        out["is_tensor_or_op_bad"] = _outcome(M._check_is_tensor_or_operation, [], "op")
        var = v1.get_variable("w", [1])
        M._update_variable_collection("mine", {var})
        M._update_variable_collection("mine", {var})
        out["collection"] = [v.op.name for v in v1.get_collection("mine")]
    return out


def _model_fn_a(features, labels, mode, params):
    return features, labels, mode, params


def _model_fn_b(features, labels, extra):
    return features, labels, extra


def _estimator_helpers():
    out = {}
    with tf.Graph().as_default():
        x = tf.constant([1.0, 3.0])
        metrics = {"b": v1.metrics.mean(x), "a": v1.metrics.mean(x * 2)}
        update, values = E._extract_metric_update_ops(dict(metrics))
        out["extract"] = [update.type, sorted(values)]
        out["loss_metric"] = sorted(E._verify_and_create_loss_metric(dict(metrics), x[0]))
        out["loss_metric_twice"] = _outcome(
            E._verify_and_create_loss_metric, {"loss": metrics["a"]}, x[0]
        )
        dataset = tf.data.Dataset.from_tensors(x)
        got = v1.data.make_one_shot_iterator(dataset).get_next()
        out["has_dataset"] = bool(E._has_dataset_or_queue_runner({"x": got}))
        out["has_no_dataset"] = bool(E._has_dataset_or_queue_runner({"x": x}))
        out["reduce_op"] = str(E._get_loss_reduce_op_for_reporting())
    out["args_ok"] = _outcome(E._verify_model_fn_args, _model_fn_a, {"k": 1})
    out["args_params_missing"] = _outcome(E._verify_model_fn_args, _model_fn_b, {"k": 1})
    out["args_extra"] = _outcome(E._verify_model_fn_args, _model_fn_b, None)
    out["args_no_features"] = _outcome(E._verify_model_fn_args, lambda labels: labels, None)
    out["device_setter_local"] = _outcome(E._get_replica_device_setter, tf.estimator.RunConfig())
    return out


def _run_config_helpers():
    cluster = tf.train.ClusterSpec({"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]})
    one = tf.train.ClusterSpec({"chief": ["c:1"]})
    out = {
        "service_ok": _outcome(R._validate_service, {"a": 1}),
        "service_bad": _outcome(R._validate_service, [1]),
        "task_ok": _outcome(
            R._validate_task_type_and_task_id, cluster, {"type": "worker", "index": "1"}, "chief"
        ),
        "task_evaluator": _outcome(
            R._validate_task_type_and_task_id, cluster, {"type": "evaluator", "index": 7}, "chief"
        ),
        "task_no_type": _outcome(R._validate_task_type_and_task_id, cluster, {"index": 0}, "chief"),
        "task_no_index": _outcome(
            R._validate_task_type_and_task_id, cluster, {"type": "worker"}, "chief"
        ),
        "task_negative": _outcome(
            R._validate_task_type_and_task_id, cluster, {"type": "worker", "index": -1}, "chief"
        ),
        "task_unknown": _outcome(
            R._validate_task_type_and_task_id, cluster, {"type": "x", "index": 0}, "chief"
        ),
        "task_out_of_range": _outcome(
            R._validate_task_type_and_task_id, cluster, {"type": "worker", "index": 5}, "chief"
        ),
        "task_no_chief": _outcome(
            R._validate_task_type_and_task_id, one, {"type": "worker", "index": 0}, "master"
        ),
        "master_given": _outcome(
            R._get_session_master, cluster, "worker", 1, {"session_master": "m"}
        ),
        "master_one_node": _outcome(R._get_session_master, one, "chief", 0, {}),
        "master_worker": _outcome(R._get_session_master, cluster, "worker", 1, {}),
        "master_empty": _outcome(R._get_session_master, tf.train.ClusterSpec({}), "worker", 0, {}),
        "eval_master": _outcome(
            R._get_eval_session_master, "evaluator", {"eval_session_master": "e"}
        ),
        "eval_master_default": _outcome(R._get_eval_session_master, "evaluator", {}),
        "eval_master_worker": _outcome(
            R._get_eval_session_master, "worker", {"eval_session_master": "e"}
        ),
        "model_dir_given": _outcome(R._get_model_dir, {}, "/a"),
        "model_dir_config": _outcome(R._get_model_dir, {"model_dir": "/b"}, None),
        "model_dir_both": _outcome(R._get_model_dir, {"model_dir": "/b"}, "/a"),
        "model_dir_empty": _outcome(R._get_model_dir, {}, ""),
    }
    config = tf.estimator.RunConfig()
    out["properties_ok"] = _outcome(R._validate_properties, config)
    config._save_summary_steps = -1
    out["properties_bad"] = _outcome(R._validate_properties, config)
    replaced = tf.estimator.RunConfig()
    same = tf.estimator.RunConfig._replace(
        replaced, allowed_properties_list=["save_summary_steps"], save_summary_steps=7
    )
    out["replace_in_place"] = [same is replaced, replaced.save_summary_steps]
    out["replace_refused"] = _outcome(
        lambda: tf.estimator.RunConfig._replace(replaced, ["save_summary_steps"], tf_random_seed=3)
    )
    out["strategies_ok"] = _outcome(replaced._verify_strategy_compatibility, None, None)
    os.environ["TF_CONFIG"] = json.dumps(
        {
            "cluster": {"chief": ["c:1"], "worker": ["w:1", "w:2"], "ps": ["p:1"]},
            "task": {"type": "worker", "index": 1},
        }
    )
    try:
        worker = tf.estimator.RunConfig()
    finally:
        del os.environ["TF_CONFIG"]
    made = worker._get_default_session_config_distributed()
    out["worker_filters"] = list(made.device_filters)
    out["local_session_config"] = _describe(replaced._get_default_session_config_distributed())
    copy = tf.estimator.RunConfig(save_checkpoints_steps=10)
    R._validate_save_ckpt_with_replaced_keys(copy, {"save_checkpoints_steps"})
    out["replaced_steps"] = [copy.save_checkpoints_steps, copy.save_checkpoints_secs]
    copy._save_checkpoints_secs = 5
    out["replaced_both"] = _outcome(
        R._validate_save_ckpt_with_replaced_keys,
        copy,
        {"save_checkpoints_steps", "save_checkpoints_secs"},
    )
    return out


def _head_metrics():
    out = {}
    with tf.Graph().as_default():
        labels = tf.constant([[1.0], [0.0], [1.0], [1.0]])
        probs = tf.constant([[0.9], [0.4], [0.3], [0.6]])
        weights = tf.constant([[1.0], [2.0], [0.5], [1.0]])
        mean = H._indicator_labels_mean(labels, weights)
        metrics = {
            "labels_mean": mean,
            "predictions_mean": H._predictions_mean(probs, weights),
            "accuracy_baseline": H._accuracy_baseline(mean),
            "auc": H._auc(labels, probs, weights),
            "auc_pr": H._auc(labels, probs, weights, curve="PR"),
            "accuracy_at": H._accuracy_at_threshold(labels, probs, weights, 0.5),
            "precision_at": H._precision_at_threshold(labels, probs, weights, 0.5),
            "recall_at": H._recall_at_threshold(labels, probs, weights, 0.5),
        }
        out["names"] = {k: v[0].name for k, v in sorted(metrics.items())}
        with v1.Session() as session:
            session.run(v1.local_variables_initializer())
            session.run([m[1] for m in metrics.values()])
            values = session.run({k: m[0] for k, m in metrics.items()})
        out["values"] = {k: round(float(v), 6) for k, v in sorted(values.items())}
        with tf.control_dependencies(None):
            v1.add_to_collection(v1.GraphKeys.UPDATE_OPS, tf.no_op(name="bn_update"))
        out["update_ops"] = H._append_update_ops(tf.no_op(name="train")).type
    return out


def _metric_fn(labels, predictions, config):
    return labels, predictions, config


def _metric_fn_extra(labels, extra):
    return labels, extra


def _compare_fn(best_eval_result, current_eval_result):
    return best_eval_result, current_eval_result


def _module_helpers():
    import numpy as np
    from tensorflow_estimator.python.estimator import exporter, extenders
    from tensorflow_estimator.python.estimator.export import export as X
    from tensorflow_estimator.python.estimator.head import multi_head, sequential_head
    from tensorflow_estimator.python.estimator.hooks import hooks
    from tensorflow_estimator.python.estimator.inputs import numpy_io, pandas_io
    from tensorflow_estimator.python.estimator.tpu import tpu_config, tpu_estimator

    out = {}
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [8, 3], name="pixels")
        out["check_tensor"] = _outcome(X._check_tensor, x, "x")
        out["check_tensor_bad"] = _outcome(X._check_tensor, [1.0], "x", "label")
        out["check_key"] = _outcome(X._check_tensor_key, "a")
        out["check_key_int"] = _outcome(X._check_tensor_key, 1)
        out["check_key_int_ok"] = _outcome(X._check_tensor_key, 1, "feature", True)
        out["check_key_float"] = _outcome(X._check_tensor_key, 1.5, "label", True)
        made = X._placeholders_from_receiver_tensors_dict({"x": x}, 4)
        out["placeholders"] = {k: [v.shape.as_list(), v.op.name] for k, v in made.items()}
        seq = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        mask = tf.constant([[True, True, False], [True, False, False]])
        flat = sequential_head._flatten_tensor(seq, mask, 3)
        with v1.Session() as session:
            out["flatten"] = session.run(flat).tolist()
        out["flatten_rank1"] = _outcome(sequential_head._flatten_tensor, seq[0], mask, 3)
        out["no_op_train"] = multi_head._no_op_train_fn(None).type
    out["metric_fn_args"] = _outcome(extenders._verify_metric_fn_args, _metric_fn)
    out["metric_fn_bad"] = _outcome(extenders._verify_metric_fn_args, _metric_fn_extra)
    out["call_metric_fn"] = list(extenders._call_metric_fn(_metric_fn, "f", "l", "p", "c"))
    out["compare_fn"] = _outcome(exporter._verify_compare_fn_args, _compare_fn)
    out["compare_fn_bad"] = _outcome(exporter._verify_compare_fn_args, _metric_fn)
    spec = parsing_utils._add_label_and_weight_to_parsing_spec(
        {"a": tf.io.FixedLenFeature([1], tf.float32)},
        "y",
        tf.io.FixedLenFeature([1], tf.int64),
        "w",
    )
    out["parsing_spec"] = {k: repr(v) for k, v in sorted(spec.items())}
    out["parsing_spec_twice"] = _outcome(
        parsing_utils._add_label_and_weight_to_parsing_spec, {"y": 1}, "y", 2
    )
    out["default_export_one"] = multi_head._default_export_output({"a": "A"}, "h")
    out["default_export_many"] = multi_head._default_export_output(
        {"a": "A", "serving_default": "S"}, "h"
    )
    out["default_export_none"] = _outcome(multi_head._default_export_output, {"a": 1, "b": 2}, "h")
    out["numpy_key"] = numpy_io._get_unique_target_key({"__target_key__": 1})
    out["numpy_features"] = list(numpy_io._validate_and_convert_features({"b": 1, "a": 2}))
    out["numpy_array"] = list(numpy_io._validate_and_convert_features(np.ones(2)))
    out["numpy_empty"] = _outcome(numpy_io._validate_and_convert_features, {})
    out["numpy_list"] = _outcome(numpy_io._validate_and_convert_features, [1])
    key = pandas_io._get_unique_target_key({"y": 1, "y_n": 2}, "y")
    out["pandas_key"] = [key[:2], len(key), pandas_io._get_unique_target_key({"a": 1}, "y")]
    os.environ["TF_CONFIG"] = json.dumps({"service": {"tpu_worker_job_name": "tpu_w"}})
    try:
        out["tpu_job"] = tpu_config._get_tpu_job_name_from_tf_config()
    finally:
        del os.environ["TF_CONFIG"]
    out["tpu_job_none"] = tpu_config._get_tpu_job_name_from_tf_config()
    out["iterable"] = [tpu_estimator._is_iterable(v) for v in ([], 3, "s", None)]
    params = {"a": 1}
    tpu_estimator._add_item_to_params(params, "batch_size", 8)
    out["params"] = params
    out["stop_hook_no_step"] = _outcome(hooks._StopAtCheckpointStepHook, "/m", None)
    out["stop_hook_no_dir"] = _outcome(hooks._StopAtCheckpointStepHook, None, 3)
    return out


_X = {"x": [[0.5, 1.0], [1.5, -1.0], [-0.5, 2.0], [1.0, 0.0]], "k": [["a"], ["b"], ["a"], ["c"]]}
_Y = [[1], [0], [1], [0]]


def _canned_input_fn():
    return tf.data.Dataset.from_tensor_slices((_X, _Y)).repeat().batch(4)


def _train_canned(workdir, name, model_fn):
    config = tf.estimator.RunConfig(model_dir=os.path.join(workdir, name), tf_random_seed=3)
    est = tf.estimator.Estimator(model_fn, config=config)
    est.train(_canned_input_fn, steps=3)
    metrics = est.evaluate(_canned_input_fn, steps=1)
    names = [n for n in est.get_variable_names() if "/" in n and "Ftrl" not in n]
    return {
        "loss": round(float(metrics["loss"]), 5),
        "variables": {n: round(float(est.get_variable_value(n).sum()), 5) for n in sorted(names)},
    }


def _canned_fns(workdir):
    from tensorflow_estimator.python.estimator.canned import (
        baseline,
        dnn,
        dnn_linear_combined,
        linear,
        rnn,
    )

    x = tf.feature_column.numeric_column("x", shape=[2])
    k = tf.feature_column.indicator_column(
        tf.feature_column.categorical_column_with_vocabulary_list("k", ["a", "b", "c"])
    )
    v1_head = H._binary_logistic_head_with_sigmoid_cross_entropy_loss()

    def dnn_fn(features, labels, mode, config):
        return dnn._dnn_model_fn(
            features, labels, mode, v1_head, [3], [x, k], optimizer="Adagrad", config=config
        )

    def linear_fn(features, labels, mode, config):
        return linear._linear_model_fn(
            features, labels, mode, v1_head, [x, k], "Ftrl", None, config
        )

    def combined_fn(features, labels, mode, config):
        return dnn_linear_combined._dnn_linear_combined_model_fn(
            features, labels, mode, v1_head, [k], "Ftrl", [x], "Adagrad", [3], config=config
        )

    def baseline_fn(features, labels, mode, config):
        return baseline._baseline_model_fn(features, labels, mode, v1_head, "Ftrl", None, config)

    out = {
        "baseline": _train_canned(workdir, "baseline", baseline_fn),
        "weight_key": [  # legacy calls `.key()` on a column object: only names work there
            baseline._get_weight_column_key(None),
            baseline._get_weight_column_key("w"),
            baseline._get_weight_column_key_v2("v"),
        ],
        "weight_key_bad": _outcome(baseline._get_weight_column_key_v2, 3),
        "sdca_checks": [
            _outcome(check, [x], n, optimizer, combiner)
            for check in (
                linear._validate_linear_sdca_optimizer_for_linear_classifier,
                linear._validate_linear_sdca_optimizer_for_linear_regressor,
            )
            for n, optimizer, combiner in (
                (2, tf.estimator.experimental.LinearSDCA("id"), "sum"),
                (3, tf.estimator.experimental.LinearSDCA("id"), "sum"),
                (1, tf.estimator.experimental.LinearSDCA("id"), "mean"),
                (3, "Ftrl", "mean"),
            )
        ],
        "dnn": _train_canned(workdir, "dnn", dnn_fn),
        "linear": _train_canned(workdir, "linear", linear_fn),
        "combined": _train_canned(workdir, "combined", combined_fn),
        "scope_name": [dnn._name_from_scope_name("a/b/"), dnn._name_from_scope_name("a")],
        "features_bad": _outcome(dnn._validate_features, [1]),
        "linear_rate": [dnn_linear_combined._linear_learning_rate(n) for n in (1, 4, 10**6)],
        "columns": len(dnn_linear_combined._validate_feature_columns([x], None)),
        "columns_none": _outcome(dnn_linear_combined._validate_feature_columns, None, []),
        "default_optimizer": type(linear._get_default_optimizer([x, k])).__name__,
        "cells": [type(c).__name__ for c in rnn._make_rnn_cell_fn([4, 3], "gru")()],
        "cell": type(rnn._make_rnn_cell_fn([4], "lstm")()).__name__,
        "cell_types": {k: v.__name__ for k, v in sorted(rnn._CELL_TYPES.items())},
        "layer_types": {k: v.__name__ for k, v in sorted(rnn._CELL_TYPE_TO_LAYER_MAPPING.items())},
    }
    with tf.Graph().as_default():
        features = {"w": tf.ones([3]), "x": tf.zeros([3, 2])}
        logits = baseline._baseline_logit_fn_builder(2, "w")(features)
        checks, batch = baseline._get_batch_size_and_size_checks(features, "w")
        variables, logits_v2 = baseline._baseline_model_fn_builder_v2({"x": tf.zeros([4, 2])}, 3)
        out["baseline_logits"] = [
            logits.shape.as_list(),
            len(checks),
            [v.name for v in v1.global_variables()],
            logits_v2.shape.as_list(),
            [v.name for v in variables],
        ]
        columns, model_fn = dnn_linear_combined._init_dnn_linear_combined_estimator(
            v1_head, [k], "Ftrl", [x], "Adagrad", [3], tf.nn.relu, None, None, "sum"
        )
        out["init_combined"] = [len(columns), callable(model_fn)]
    with tf.Graph().as_default():
        rows = {"x": tf.ones([2, 2]), "k": tf.constant([["a"], ["c"]])}
        logits, variables, updates = dnn._dnn_model_fn_builder_v2(
            1, [3], [x], tf.nn.relu, None, False, rows, "train"
        )
        out["dnn_builder"] = [
            logits.shape.as_list(),
            sorted(v.name for v in variables),
            len(updates),
        ]
        logits, variables = linear._linear_model_fn_builder_v2(1, [x, k], "sum", rows)
        out["linear_builder"] = [logits.shape.as_list(), sorted(v.name for v in variables)]
        out["linear_builder_summaries"] = sorted(
            s.op.name for s in v1.get_collection(v1.GraphKeys.SUMMARIES)
        )
        out["default_optimizer_rate"] = round(
            float(linear._get_default_optimizer([x, k])._learning_rate), 6
        )
    return out


def _stopping(workdir):
    from tensorflow_estimator.python.estimator import early_stopping as S

    eval_dir = os.path.join(workdir, "stopping", "eval")
    with tf.Graph().as_default():
        writer = v1.summary.FileWriter(eval_dir)
        for step, loss in ((10, 0.9), (20, 0.6), (30, 0.7), (40, 0.65)):
            summary = v1.Summary(value=[v1.Summary.Value(tag="loss", simple_value=loss)])
            writer.add_summary(summary, step)
        writer.close()
    est = tf.estimator.Estimator(lambda features: None, os.path.join(workdir, "stopping"))
    out = {}
    for name, threshold, higher in (("below_0.5", 0.5, False), ("below_0.65", 0.65, False)):
        hook = S._stop_if_threshold_crossed_hook(est, "loss", threshold, higher, None, 0, None, 1)
        out[name] = bool(hook._should_stop_fn())
    for name, steps, min_steps in (
        ("no_better_10", 10, 0),
        ("no_better_20", 20, 0),
        ("late", 20, 25),
    ):
        hook = S._stop_if_no_metric_improvement_hook(
            est, "loss", steps, False, eval_dir, min_steps, None, 1
        )
        out[name] = bool(hook._should_stop_fn())
    events = [e for e in S._summaries(eval_dir) if e.summary.value]
    out["summaries"] = [[e.step, round(e.summary.value[0].simple_value, 3)] for e in events]
    out["no_summaries"] = list(S._summaries(os.path.join(workdir, "missing")))
    with tf.Graph().as_default():
        stop = S._get_or_create_stop_var()
        out["stop_var"] = [stop.op.name, stop.dtype.name, S._get_or_create_stop_var() is stop]
    return out


def _keras_lib(workdir):
    from tensorflow_estimator.python.estimator import keras_lib as K

    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(
                3, activation="relu", kernel_initializer=tf.keras.initializers.Constant(0.2)
            ),
            tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(-0.1)),
        ]
    )
    model.build((None, 2))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")

    def input_fn():
        data = tf.data.Dataset.from_tensor_slices((_X["x"], [[1.0], [0.0], [2.0], [0.5]]))
        return data.repeat().batch(4)

    config = tf.estimator.RunConfig(model_dir=os.path.join(workdir, "keras"), tf_random_seed=3)
    est = tf.estimator.Estimator(K._create_keras_model_fn(model), config=config)
    est.train(input_fn, steps=3)
    out = {"loss": round(float(est.evaluate(input_fn, steps=1)["loss"]), 5)}
    kernels = [n for n in est.get_variable_names() if n.endswith("kernel")]
    out["kernel_sums"] = [round(float(est.get_variable_value(n).sum()), 5) for n in kernels]
    out["split"] = list(K._extract_sample_weight_tensors({"features": 1, "sample_weights": 2}))
    out["no_split"] = _describe(K._extract_sample_weight_tensors({"x": 1}))
    out["weights_ready"] = bool(K._any_weight_initialized(model))
    out["no_model"] = bool(K._any_weight_initialized(None))
    with tf.Graph().as_default():
        out["tensor"] = K._convert_tensor([1, 2]).dtype.name
        out["floatx"] = K._cast_tensor_to_floatx(tf.constant([1, 2])).dtype.name
        out["floatx_same"] = K._cast_tensor_to_floatx(tf.constant([1.0])).dtype.name
    return out


def _tpu_and_gauges():
    from tensorflow_estimator.python.estimator.canned import kmeans
    from tensorflow_estimator.python.estimator.tpu import _tpu_estimator_embedding as emb
    from tensorflow_estimator.python.estimator.tpu import error_handling, tpu_estimator, util

    E._estimator_api_gauge.get_cell("train").set(True)
    E._canned_estimator_api_gauge.get_cell("v2").set("DNNClassifier")
    tpu_estimator._tpu_estimator_gauge.get_cell().set(True)
    regex = util._ITERATIONS_PER_LOOP_VALUE_REGEX
    with tf.Graph().as_default():
        points = kmeans._parse_features_if_necessary(
            {"b": tf.ones([2, 1]), "a": tf.zeros([2, 2])}, None
        )
        with v1.Session() as session:
            points = session.run(points).tolist()
    with tf.Graph().as_default():
        dense = tf.constant([[0, 3], [2, 0]])
        sparse = emb._maybe_dense_to_sparse(dense)
        ids = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([4, 5], tf.int64), [2, 1])
        weights = tf.SparseTensor([[0, 0], [1, 0]], tf.constant([1.0, 2.0], tf.float64), [2, 1])
        features = {"ids": ids, "w": weights, "names": tf.SparseTensor([[0, 0]], ["a"], [1, 1])}
        got = emb._get_weights_from_features("w", features)
        pieces = emb._split_tensor(tf.ones([4, 2]), 2)
        split_sparse = emb._split_tensor(ids, 2)
        with v1.Session() as session:
            sparse_values = session.run(sparse).values.tolist()
        embedding = {
            "names": [
                emb._get_embedding_var_name_from_table_name("tbl_words"),
                emb._get_table_name_from_embedding_var_name("words"),
                emb._get_embedding_variable_name("scope", "words"),
                emb._get_embedding_variable_name("", "words"),
            ],
            "sparse_values": sparse_values,
            "weights": [got.dtype.name, sorted(features)],
            "ids": emb._get_sparse_feature_from_feature("ids", features).dtype.name,
            "string_ids": _outcome(emb._get_sparse_feature_from_feature, "names", features),
            "no_weights": _outcome(emb._get_weights_from_features, "zz", features),
            "none": emb._get_weights_from_features(None, features),
            "split": [[p.shape.as_list() for p in pieces], len(split_sparse)],
            "split_none": emb._split_tensor(None, 3),
        }
    return {
        "embedding": embedding,
        "gauge": E._estimator_api_gauge.get_cell("train").value(),
        "canned_gauge": E._canned_estimator_api_gauge.get_cell("v2").value(),
        "tpu_gauge": tpu_estimator._tpu_estimator_gauge.get_cell().value(),
        "ignored": [c.__name__ for c in error_handling._IGNORED_ERRORS],
        "uninteresting": [c.__name__ for c in error_handling._UNINTERESTING_ERRORS],
        "tpu_columns": sorted(c.__name__ for c in emb._TPU_EMBEDDING_COLUMN_CLASSES),
        "regex": [bool(regex.match(t)) for t in ("100", "2h", "0", "5x", "30s")],
        "points": points,
    }


def _serving_input_receiver_fn():
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def _head_members(workdir):
    out = {}
    with tf.Graph().as_default():
        logits = tf.constant([[0.5], [-1.0], [2.0]])
        binary = tf.estimator.BinaryClassHead(label_vocabulary=["no", "yes"], name="h")
        labels = binary._processed_labels(logits, tf.constant([["yes"], ["no"], ["yes"]]))
        loss, weights = binary._unweighted_loss_and_weights(logits, labels, {})
        multi = tf.estimator.MultiClassHead(3, label_vocabulary=["a", "b", "c"])
        ids = multi._class_id_table.lookup(tf.constant(["c", "a", "z"]))
        names = multi._class_string_table.lookup(tf.constant([2, 0, 7], tf.int64))
        poisson = tf.estimator.PoissonRegressionHead()._poisson_loss(
            tf.constant([[2.0], [0.0]]), tf.constant([[0.3], [-0.2]])
        )
        logistic = tf.estimator.LogisticRegressionHead()._logistic_loss(
            tf.constant([[0.25], [1.0]]), tf.constant([[0.3], [-0.2]])
        )
        two = tf.estimator.MultiHead(
            [tf.estimator.RegressionHead(name="r"), tf.estimator.MultiClassHead(3, name="m")]
        )
        split = two._split_logits(tf.constant([[1.0, 2.0, 3.0, 4.0]]))
        with v1.Session() as session:
            session.run(v1.tables_initializer())
            got = session.run(
                {
                    "labels": labels,
                    "loss": loss,
                    "ids": ids,
                    "names": names,
                    "poisson": poisson,
                    "logistic": logistic,
                    "split": split,
                }
            )
    out["labels"] = got["labels"].tolist()
    out["loss"] = [round(float(x), 5) for x in got["loss"].ravel()]
    out["weights"] = float(weights) if not hasattr(weights, "shape") else "tensor"
    out["ids"] = got["ids"].tolist()
    out["names"] = [n.decode() for n in got["names"]]
    out["poisson"] = [round(float(x), 5) for x in got["poisson"].ravel()]
    out["logistic"] = [round(float(x), 5) for x in got["logistic"].ravel()]
    out["split"] = {k: v.tolist() for k, v in sorted(got["split"].items())}
    out["summary_key"] = [binary._summary_key("loss"), multi._summary_key("loss")]
    from tensorflow_estimator.python.estimator import exporter

    base = os.path.join(workdir, "exports")
    for stamp in ("1700000000", "1700000001", "1700000002", "1700000003", "1234"):
        os.makedirs(os.path.join(base, stamp))
    latest = exporter.LatestExporter("l", _serving_input_receiver_fn, exports_to_keep=2)
    latest._garbage_collect_exports(base)
    out["kept"] = sorted(os.listdir(base))
    eval_dir = os.path.join(workdir, "best", "eval")
    with tf.Graph().as_default():
        writer = v1.summary.FileWriter(eval_dir)
        for step, loss_value in ((5, 0.8), (10, 0.3), (15, 0.5)):
            value = v1.Summary.Value(tag="loss", simple_value=loss_value)
            writer.add_summary(v1.Summary(value=[value]), step)
        writer.close()
    best = exporter.BestExporter("b", _serving_input_receiver_fn)
    result = best._get_best_eval_result(os.path.join(eval_dir, "*.tfevents.*"))
    out["best"] = {k: round(float(v), 5) for k, v in sorted(result.items())}
    return out


def record(workdir=None):
    import tempfile

    if workdir is None:
        with tempfile.TemporaryDirectory() as made:
            return record(made)
    return {
        "head_members": _head_members(workdir),
        "tpu_and_gauges": _tpu_and_gauges(),
        "keras_lib": _keras_lib(workdir),
        "stopping": _stopping(workdir),
        "canned_fns": _canned_fns(workdir),
        "module_helpers": _module_helpers(),
        "head_metrics": _head_metrics(),
        "model_fn": _model_fn_validators(),
        "estimator": _estimator_helpers(),
        "run_config": _run_config_helpers(),
    }


if __name__ == "__main__":
    _values.main("legacy_helpers", record, sys.argv[1:])
