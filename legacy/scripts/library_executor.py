"""Legacy `training._TrainingExecutor` and `exporter._SavedModelExporter`, as a library uses them.

A recommender library builds its own ``train_and_evaluate`` on ``_TrainingExecutor`` (with a
``_ContinuousEvalListener`` subclass) and exports with ``_SavedModelExporter``.
``python library_executor.py library_executor OUT_DIR`` writes ``OUT_DIR/values.json``:

- ``run_local``: ``_TrainingExecutor(...).run()`` without a cluster (6 steps, a checkpoint
  every 2, evaluation after each save but the first, and at the end): its return value, and
  what the listener saw; the same with a listener that stops after the first evaluation;
- ``evaluator``: ``_TrainingExecutor._Evaluator``'s statuses before training, after it, and
  again on the same checkpoint; ``run_evaluator`` stopped by its listener;
- ``exporter``: ``_SavedModelExporter(name, serving_input_receiver_fn, assets_extra,
  as_text).export(...)``: the files written and what the SavedModel serves;
- ``errors``: legacy's checks of the executor's arguments and of ``_EvalResult``.
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow.python.estimator.exporter import _SavedModelExporter
from tensorflow.python.estimator.training import (
    _assert_eval_spec,
    _ContinuousEvalListener,
    _EvalResult,
    _TrainingExecutor,
)

ARTIFACTS = ("library_executor",)
v1 = tf.compat.v1
X = np.random.RandomState(5).normal(size=(16, 2)).astype("float32")
Y = (X[:, :1] > 0).astype("float32")
SERVE_X = np.array([[0.5, -1.0], [2.0, 0.25]], "float32")


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(4)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(4)


def model_fn(features, labels, mode):
    init = v1.constant_initializer(0.1)  # fixed weights: the numbers repeat across runs
    logits = v1.layers.dense(features["x"], 1, name="out", kernel_initializer=init)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = v1.losses.sigmoid_cross_entropy(labels, logits)
    train_op = v1.train.GradientDescentOptimizer(0.2).minimize(
        loss, global_step=v1.train.get_global_step()
    )
    metrics = {"mean_logit": v1.metrics.mean(logits)}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


def serving_fn():
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def _estimator(model_dir):
    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=2, tf_random_seed=1, log_step_count_steps=None
    )
    return tf.estimator.Estimator(model_fn, config=config)


def _numbers(metrics):
    return None if metrics is None else {k: round(float(v), 5) for k, v in metrics.items()}


class RecordingListener(_ContinuousEvalListener):
    def __init__(self, stop_after=None):
        self.seen = []
        self.stop_after = stop_after

    def before_eval(self):
        self.seen.append("before")
        return True

    def after_eval(self, eval_result):
        step = (eval_result.metrics or {}).get("global_step")
        self.seen.append([eval_result.status, None if step is None else int(step)])
        return self.stop_after is None or len(self.seen) < 2 * self.stop_after


def _specs(max_steps=6, exporters=None):
    train = tf.estimator.TrainSpec(input_fn, max_steps=max_steps)
    evaluate = tf.estimator.EvalSpec(
        eval_input_fn, steps=2, start_delay_secs=0, throttle_secs=0, exporters=exporters
    )
    return train, evaluate


def run_local(workdir):
    out = {}
    est = _estimator(os.path.join(workdir, "local"))
    listener = RecordingListener()
    exporter = tf.estimator.LatestExporter("latest", serving_fn, exports_to_keep=2)
    train, evaluate = _specs(exporters=[exporter])
    metrics, exports = _TrainingExecutor(
        est, train, evaluate, continuous_eval_listener=listener
    ).run()
    out["metrics"] = _numbers(metrics)
    out["exports"] = [type(e).__name__ for e in exports]
    out["listener"] = listener.seen
    out["kept_exports"] = len(os.listdir(os.path.join(est.model_dir, "export", "latest")))
    stopping = RecordingListener(stop_after=1)
    est = _estimator(os.path.join(workdir, "stopped"))
    train, evaluate = _specs(max_steps=20)
    metrics, exports = _TrainingExecutor(
        est, train, evaluate, continuous_eval_listener=stopping
    ).run_local()
    out["stopped_metrics"] = _numbers(metrics)
    out["stopped_listener"] = stopping.seen
    out["stopped_at"] = os.path.basename(est.latest_checkpoint())
    return out


def evaluator(workdir):
    est = _estimator(os.path.join(workdir, "evaluator"))
    train, evaluate = _specs(max_steps=4)
    executor = _TrainingExecutor(est, train, evaluate)
    ev = _TrainingExecutor._Evaluator(est, evaluate, 4)
    statuses = [ev.evaluate_and_export()[0].status]
    est.train(input_fn, max_steps=4)
    result, exports = ev.evaluate_and_export()
    statuses += [result.status, ev.evaluate_and_export()[0].status]
    listener = RecordingListener(stop_after=1)
    executor = _TrainingExecutor(est, train, evaluate, continuous_eval_listener=listener)
    returned = executor.run_evaluator()
    return {
        "statuses": statuses,
        "evaluated": _numbers(result.metrics),
        "checkpoint": os.path.basename(result.checkpoint_path),
        "final_export_triggered": ev.is_final_export_triggered,
        "exports": exports,
        "run_evaluator_returned": returned,
        "run_evaluator_listener": listener.seen,
    }


def _files(root):
    found = []
    for folder, _, files in os.walk(root):
        for name in files:
            found.append(os.path.relpath(os.path.join(folder, name), root))
    return sorted(found)


def exporter(workdir):
    est = _estimator(os.path.join(workdir, "exporter"))
    est.train(input_fn, max_steps=4)
    asset = os.path.join(workdir, "vocab.txt")
    with open(asset, "w") as f:
        f.write("a\nb\n")
    sm = _SavedModelExporter("sm", serving_fn, {"extra/vocab.txt": asset}, True)
    base = os.path.join(est.model_dir, "export", sm.name)
    metrics = est.evaluate(eval_input_fn, steps=2)
    path = sm.export(est, base, est.latest_checkpoint(), metrics, False)
    path = path.decode() if isinstance(path, bytes) else path
    served = tf.saved_model.load(path).signatures["serving_default"](x=tf.constant(SERVE_X))
    return {
        "name": sm.name,
        "result_type": type(sm.export(est, base, None, metrics, True)).__name__,
        "exports_made": len(os.listdir(base)),
        "files": _files(path),
        "served": {k: v.numpy().round(5).tolist() for k, v in served.items()},
    }


def _error(fn):
    try:
        fn()
    except (TypeError, ValueError) as exc:
        return [type(exc).__name__, str(exc).split(" Got")[0].split(";")[0]]
    return None


def errors(workdir):
    est = _estimator(os.path.join(workdir, "errors"))
    train, evaluate = _specs()
    return {
        "assert_eval_spec": _error(lambda: _assert_eval_spec(None)),
        "estimator": _error(lambda: _TrainingExecutor(None, train, evaluate)),
        "train_spec": _error(lambda: _TrainingExecutor(est, None, evaluate)),
        "eval_spec": _error(lambda: _TrainingExecutor(est, train, "spec")),
        "listener": _error(
            lambda: _TrainingExecutor(est, train, evaluate, continuous_eval_listener=object())
        ),
        "result_missing_with_metrics": _error(
            lambda: _EvalResult("missing checkpoint", metrics={"a": 1})
        ),
        "result_evaluated_without_step": _error(
            lambda: _EvalResult("evaluated", metrics={"a": 1}, checkpoint_path="c")
        ),
        "result_evaluated_not_dict": _error(
            lambda: _EvalResult("evaluated", metrics=[1], checkpoint_path="c")
        ),
        "no_eval_spec_run_local": _error(lambda: _TrainingExecutor(est, train, None).run_local()),
    }


def record(workdir):
    return {
        "run_local": run_local(workdir),
        "evaluator": evaluator(workdir),
        "exporter": exporter(workdir),
        "errors": errors(workdir),
    }


def main(argv):
    import tempfile

    name, out_dir = argv
    assert name == "library_executor", name
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir:
        values = record(workdir)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
