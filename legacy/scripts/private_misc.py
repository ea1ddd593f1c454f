"""Legacy private names of four modules, on small fixed cases.

``python private_misc.py private_misc OUT_DIR`` writes ``OUT_DIR/values.json``:

- ``early_stopping._MultiWorkerEarlyStoppingHook``: in a ``MonitoredSession`` whose global
  step is incremented after each run (a hook after it), the runs made before it stops, the
  calls of ``should_stop_fn`` (stop on its k-th call), its stop variable, its refusals;
- ``estimator._combine_distributed_scaffold``: per-replica Scaffolds combined under a
  ``OneDeviceStrategy`` and a one-CPU ``MirroredStrategy`` (what each field becomes, what
  the combined ready ops report before and after initialization);
- ``export.function._EstimatorSpecFunction`` / ``EstimatorSpecFunction``: what ``_defun``
  makes, calls of a plain function, its ``_create_graph_function`` on an EstimatorSpec
  model_fn (the concrete function's outputs), the classes' ABC-ness;
- ``head.binary_class_head.BinaryClassHead._update_auc`` / ``_update_accuracy_baseline``
  (metric results after the updates, weighted and not) and
  ``head.multi_head.MultiHead._check_logits_and_labels`` / ``_merge_predict_export_outputs``
  (accepted and refused inputs, merged export output keys and types).

Exceptions are recorded as (builtin base type, first line, whether builtin). The test runs
``record()`` under tfport and compares.
"""

import sys

import _values
import numpy as np
import tensorflow as tf
from tensorflow_estimator.python.estimator import early_stopping as ES
from tensorflow_estimator.python.estimator import estimator as E
from tensorflow_estimator.python.estimator.export import function as F
from tensorflow_estimator.python.estimator.head import binary_class_head as BH
from tensorflow_estimator.python.estimator.head import multi_head as MH
from tensorflow_estimator.python.estimator.head import regression_head as RH

ARTIFACTS = ("private_misc",)
v1 = tf.compat.v1


def _tensor(value):
    return ["Tensor", value.dtype.name, value.shape.as_list()]


_describe = _values.describer(_tensor, operation=lambda op: "Operation", sort_key=str)
_outcome = _values.outcome_recorder(_describe)


# -- early stopping -----------------------------------------------------------------------
class _Increment(v1.train.SessionRunHook):
    """Increments the global step after each run (a read without a race)."""

    def begin(self):
        step = v1.train.get_global_step()
        self._op = v1.assign_add(step, 1)

    def after_run(self, run_context, run_values):
        run_context.session.run(self._op)


def _multi_worker_run(every_steps, stop_on_call, strategy=True):
    calls = []

    def should_stop():
        calls.append(len(calls) + 1)
        return len(calls) >= stop_on_call

    with tf.Graph().as_default():
        scope = tf.distribute.MirroredStrategy(["/cpu:0"]).scope() if strategy else None
        if scope is not None:
            scope.__enter__()
        v1.train.get_or_create_global_step()
        train_op = tf.no_op()
        hook = ES._MultiWorkerEarlyStoppingHook(should_stop, every_steps)
        runs = 0
        try:
            with v1.train.MonitoredSession(hooks=[hook, _Increment()]) as session:
                while not session.should_stop() and runs < 40:
                    session.run(train_op)
                    runs += 1
        finally:
            if scope is not None:
                scope.__exit__(None, None, None)
        var = hook._stop_var
        return {
            "runs": runs,
            "calls": len(calls),
            "stop_var": [var.op.name, var.dtype.base_dtype.name, var.shape.as_list()],
            "collections": sorted(
                k
                for k in (v1.GraphKeys.GLOBAL_VARIABLES, v1.GraphKeys.TRAINABLE_VARIABLES)
                if any(v is var for v in v1.get_collection(k))
            ),
        }


def _early_stopping():
    out = {
        "every_1_stop_3": _multi_worker_run(1, 3),
        "every_3_stop_2": _multi_worker_run(3, 2),
        "every_4_stop_4": _multi_worker_run(4, 4),
        "default_context": _outcome(_multi_worker_run, 1, 1, strategy=False),
        "not_callable": _outcome(ES._MultiWorkerEarlyStoppingHook, 3, 2),
        "no_interval": _outcome(ES._MultiWorkerEarlyStoppingHook, lambda: True),
    }
    with tf.Graph().as_default():
        hook = ES._MultiWorkerEarlyStoppingHook(lambda: False, 2)
        var = hook._get_or_create_stop_var_with_aggregation()
        again = hook._get_or_create_stop_var_with_aggregation()
        out["stop_var_shared"] = [var is again, var.op.name, var.dtype.base_dtype.name]
        with v1.Session() as session:
            session.run(var.initializer)
            out["stop_var_initial"] = int(session.run(var))
    return out


# -- _combine_distributed_scaffold --------------------------------------------------------
def _scaffold_case(strategy, kind):
    with tf.Graph().as_default():
        with strategy.scope():
            v1.get_variable("w", [2], initializer=v1.initializers.ones())
            local = v1.get_variable(
                "l",
                [],
                initializer=v1.initializers.zeros(),
                collections=[v1.GraphKeys.LOCAL_VARIABLES],
            )
            saver = v1.train.Saver()
            init_fn_calls = []

            def init_fn(scaffold, session):
                init_fn_calls.append(type(scaffold).__name__)

            def make():
                if kind == "default":
                    return v1.train.Scaffold()
                return v1.train.Scaffold(
                    init_op=v1.global_variables_initializer(),
                    local_init_op=local.initializer,
                    ready_op=v1.report_uninitialized_variables(),
                    summary_op=tf.no_op(),
                    saver=saver,
                    init_fn=init_fn,
                )

            grouped = strategy.extended.call_for_each_replica(make)
            combined = E._combine_distributed_scaffold(grouped, strategy)
        out = {
            "type": type(combined).__name__,
            "fields": {
                name: _describe(getattr(combined, name))
                for name in (
                    "init_op",
                    "ready_op",
                    "ready_for_local_init_op",
                    "local_init_op",
                    "summary_op",
                    "init_feed_dict",
                )
            },
            "saver_kept": combined.saver is saver,
            "init_fn_kept": combined._user_init_fn is (None if kind == "default" else init_fn),
        }
        combined.finalize()
        with v1.Session() as session:
            out["ready_before"] = [b.decode() for b in session.run(combined.ready_op)]
            out["ready_local_before"] = [
                b.decode() for b in session.run(combined.ready_for_local_init_op)
            ]
            session.run(combined.init_op)
            if combined.init_fn:
                combined.init_fn(session)
            out["ready_local_after"] = [
                b.decode() for b in session.run(combined.ready_for_local_init_op)
            ]
            session.run(combined.local_init_op)
            out["ready_after"] = [b.decode() for b in session.run(combined.ready_op)]
        out["init_fn_calls"] = init_fn_calls
    return out


def _combine_scaffold():
    tf.config.set_soft_device_placement(True)
    out = {}
    for name, make in (
        ("one_device", lambda: tf.distribute.OneDeviceStrategy("/cpu:0")),
        ("mirrored", lambda: tf.distribute.MirroredStrategy(["/cpu:0"])),
    ):
        for kind in ("default", "given"):
            out[f"{name}_{kind}"] = _outcome(_scaffold_case, make(), kind)
    return out


# -- export.function ----------------------------------------------------------------------
def _spec_model_fn(features, labels, mode):
    w = v1.get_variable("w", [], initializer=v1.initializers.constant(2.0))
    predictions = {"y": features * w}
    loss = None if labels is None else tf.reduce_sum(labels - features * w)
    return tf.estimator.EstimatorSpec(mode, predictions=predictions, loss=loss)


def _plain(features):
    return {"double": features * 2.0}


def _export_function():
    out = {}
    spec_fn = F.EstimatorSpecFunction(_spec_model_fn, "infer")
    # TF 2.15's tf.function no longer takes `autograph_options`: legacy's `_defun` fails
    out["defun"] = _outcome(spec_fn._defun, _plain)
    out["abc"] = [
        hasattr(F.EstimatorSpecFunction, "_abc_impl"),
        hasattr(F._EstimatorSpecFunction, "_abc_impl"),
        isinstance(spec_fn, tf.types.experimental.GenericFunction),
    ]
    x = tf.constant([1.0, 3.0])
    plain = F._EstimatorSpecFunction(_plain, "infer")
    out["plain_is_function"] = isinstance(plain, tf.types.experimental.GenericFunction)
    out["plain_call"] = {k: v.numpy().tolist() for k, v in plain(x).items()}
    out["plain_input_signature"] = _outcome(
        lambda: (
            F._EstimatorSpecFunction(
                _plain, "infer", input_signature=[tf.TensorSpec([None], tf.float32)]
            ).input_signature
        )
    )
    wrapped = F._EstimatorSpecFunction(
        F._wrap_and_verify_model_fn(_spec_model_fn, mode="infer")[0], "infer"
    )
    concrete = wrapped._create_graph_function((x,), {})
    result = concrete(x)
    out["graph_function"] = {
        "outputs": sorted(result),
        "predictions": {k: v.numpy().tolist() for k, v in result["predictions"].items()},
    }
    return out


# -- heads --------------------------------------------------------------------------------
def _binary_head(weighted):
    head = BH.BinaryClassHead(weight_column="w" if weighted else None)
    with tf.Graph().as_default():
        labels = tf.constant([[1], [0], [1], [1], [0]], dtype=tf.int64)
        logistic = tf.constant([[0.9], [0.4], [0.3], [0.6], [0.2]], dtype=tf.float64)
        weights = tf.constant([[1.0], [2.0], [0.5], [1.0], [3.0]]) if weighted else None
        metrics = head.metrics()
        head._update_auc(metrics["auc"], labels, logistic, weights)
        head._update_auc(metrics["auc_precision_recall"], labels, logistic, weights=weights)
        label_mean = metrics["label/mean"]
        if weighted:
            label_mean.update_state(tf.cast(labels, tf.float32), sample_weight=weights)
        else:
            label_mean.update_state(tf.cast(labels, tf.float32))
        head._update_accuracy_baseline(metrics)
        variables = [v for m in metrics.values() for v in m.variables]
        with v1.Session() as session:
            session.run(v1.variables_initializer(variables))
            session.run(v1.get_collection(v1.GraphKeys.UPDATE_OPS))
            session.run([m.updates for m in metrics.values() if m.updates])
            keys = ("auc", "auc_precision_recall", "label/mean", "accuracy_baseline")
            values = session.run({k: metrics[k].result() for k in keys})
    return {k: round(float(v), 5) for k, v in sorted(values.items())}


def _multi_head():
    heads = [BH.BinaryClassHead(name="a"), RH.RegressionHead(label_dimension=2, name="b")]
    multi = MH.MultiHead(heads)
    out = {}
    with tf.Graph().as_default():
        logits = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        a = logits[:, :1]
        b = logits[:, 1:]
        labels = {"a": tf.constant([[1], [0]]), "b": tf.constant([[1.0, 2.0], [3.0, 4.0]])}
        check = multi._check_logits_and_labels
        out["split"] = _outcome(check, logits)
        out["dict"] = _outcome(check, {"a": a, "b": b}, labels)
        out["dict_extra"] = _outcome(check, {"a": a, "b": b, "c": a})
        out["dict_missing"] = _outcome(check, {"a": a})
        out["labels_not_dict"] = _outcome(check, logits, labels["a"])
        out["labels_missing"] = _outcome(check, logits, {"b": labels["b"]})
        out["labels_none"] = _outcome(check, logits, None)
        specs = [
            head.create_estimator_spec({"x": logits}, "infer", part)
            for head, part in zip(heads, (a, b))
        ]
        merged = multi._merge_predict_export_outputs(specs)
        out["merged"] = {k: type(v).__name__ for k, v in sorted(merged.items())}
        out["merged_first_default"] = (
            merged["serving_default"] is specs[0].export_outputs["serving_default"]
        )
        out["merged_predict"] = sorted(merged["predict"].outputs)
    return out


def record():
    return {
        "early_stopping": _early_stopping(),
        "combine_scaffold": _combine_scaffold(),
        "export_function": _export_function(),
        "binary_head": {"plain": _binary_head(False), "weighted": _binary_head(True)},
        "multi_head": _multi_head(),
    }


if __name__ == "__main__":
    _values.main("private_misc", record, sys.argv[1:])
