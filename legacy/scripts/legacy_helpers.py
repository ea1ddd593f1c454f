"""Legacy Estimator's private module helpers that libraries call, on fixed inputs.

``python legacy_helpers.py legacy_helpers OUT_DIR`` writes ``OUT_DIR/values.json``: what
``model_fn``'s spec validators, ``estimator``'s metric and argument helpers and
``run_config``'s TF_CONFIG helpers return or raise (exception type and first line) for each
input. The test runs ``record()`` under tfport and compares.
"""

import json
import os
import sys

import tensorflow as tf
from tensorflow_estimator.python.estimator import estimator as E
from tensorflow_estimator.python.estimator import model_fn as M
from tensorflow_estimator.python.estimator import run_config as R
from tensorflow_estimator.python.estimator.canned import head as H

ARTIFACTS = ("legacy_helpers",)
v1 = tf.compat.v1


def _outcome(fn, *args):
    try:
        value = fn(*args)
    except Exception as e:  # noqa: BLE001 - the exception type is the recorded outcome
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        line = str(e).splitlines()[0] if str(e) else ""
        return ["raises", builtin.__name__, line, type(e).__module__ == "builtins"]
    return ["returns", _describe(value)]


def _describe(value):
    if isinstance(value, (tf.Tensor, tf.Operation)):
        return [type(value).__name__, value.name.split("/")[-1].split(":")[0]]
    if isinstance(value, dict):
        return {str(k): _describe(v) for k, v in sorted(value.items())}
    if isinstance(value, (list, tuple)):
        return [_describe(v) for v in value]
    if isinstance(value, (str, int, float, bool, type(None))):
        return value
    return type(value).__name__


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


def record():
    return {
        "head_metrics": _head_metrics(),
        "model_fn": _model_fn_validators(),
        "estimator": _estimator_helpers(),
        "run_config": _run_config_helpers(),
    }


def main(argv):
    name, out_dir = argv
    assert name == "legacy_helpers", name
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(record(), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
