"""Legacy TPUEstimator's TPU computation internals, on fixed inputs, off a TPU.

``python private_tpu_computation.py private_tpu_computation OUT_DIR`` writes
``OUT_DIR/values.json``: what ``tpu_estimator._OutfeedHostCall`` accepts, refuses (exception
type and first line) and returns (host calls run in a session, outfeed ops built),
``_ModelFnWrapper`` gives (spec types, the params the model_fn saw, its refusals), the TPU
programs ``_train/_eval/_predict_on_tpu_system`` return when built in a graph, the
inference computation's outputs, and ``_tpu_estimator_embedding``'s column/optimizer
tables (class names) and slot variable names. The context is a small stand-in with the
members legacy's internal TPU context offers these functions. The test runs ``record()``
under tfport and compares.
"""

import sys

import _values
import tensorflow as tf
from tensorflow_estimator.python.estimator.tpu import _tpu_estimator_embedding as EMB
from tensorflow_estimator.python.estimator.tpu import tpu_config as TC
from tensorflow_estimator.python.estimator.tpu import tpu_estimator as TE

ARTIFACTS = ("private_tpu_computation",)
v1 = tf.compat.v1


class _Ctx:
    """The members of legacy's internal TPU context these functions read."""

    def __init__(self, mode, on_cpu=True, replicas=1):
        self.mode = mode
        self.batch_size_for_model_fn = 4
        self.embedding_config = None
        self.feed_hook = None
        self.config = TC.RunConfig()
        self.num_replicas = replicas
        self.device_assignment = None
        self._on_cpu = on_cpu

    def is_running_on_cpu(self, is_export_mode=False):
        return self._on_cpu or is_export_mode

    def device_for_replica(self, replica_id):
        return ("/task:0/device:CPU:0", replica_id)

    def tpu_host_placement_function(self, host_id=None, replica_id=None):
        return "/task:0/device:CPU:0"


def _tensor(value):
    return ["Tensor", value.dtype.name, value.shape.as_list() if value.shape.rank else []]


_describe = _values.describer(_tensor, operation=lambda op: ["Operation"])
_outcome = _values.outcome_recorder(_describe)


def _validate():
    fn2 = lambda a, b: a  # noqa: E731
    fn_var = lambda *a: a  # noqa: E731
    cases = {
        "ok_list": {"h": (fn2, [1, 2])},
        "ok_dict": {"h": (fn2, {"a": 1, "b": 2})},
        "ok_varargs": {"h": (fn_var, [1, 2, 3])},
        "not_tuple": {"h": fn2},
        "three": {"h": (fn2, [1], 3)},
        "not_callable": {"h": (3, [1, 2])},
        "bad_tensors": {"h": (fn2, 5)},
        "wrong_count": {"eval_metrics": (fn2, [1])},
        "empty": {},
    }
    return {k: _outcome(TE._OutfeedHostCall.validate, v) for k, v in cases.items()}


def _cpu_hostcall():
    out = {}
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        b = tf.constant([3.0, 4.0])
        calls = {
            "sum": (lambda x, y: x + y, [a, b]),
            "named": (lambda x, y: {"d": x - y}, {"x": a, "y": b}),
        }
        made = TE._OutfeedHostCall.create_cpu_hostcall(calls)
        with v1.Session() as s:
            out["values"] = {k: _round(v) for k, v in s.run(made).items()}
        out["bad_dict"] = _outcome(
            TE._OutfeedHostCall.create_cpu_hostcall, {"h": (lambda x: x, {"z": a})}
        )
        out["bad"] = _outcome(TE._OutfeedHostCall.create_cpu_hostcall, {"h": (3, [a])})
        hook = TE._OutfeedHostCallHook(made)
        hook.begin()
        with v1.Session() as s:
            hook.after_create_session(s, None)
            args = hook.before_run(None)
            out["hook_fetches"] = _round(s.run(args.fetches))
            hook.end(s)
    return out


def _round(value):
    if isinstance(value, dict):
        return {k: _round(v) for k, v in sorted(value.items())}
    if hasattr(value, "tolist"):
        return [round(float(x), 5) for x in value.reshape(-1).tolist()]
    return value


def _outfeed():
    out = {}
    with tf.Graph().as_default():
        ctx = _Ctx("train", on_cpu=False, replicas=2)
        host = TE._OutfeedHostCall(ctx)
        out["empty_enqueue"] = _describe(host.create_enqueue_op())
        out["empty_hostcall"] = _describe(host.create_tpu_hostcall())
        host.record(
            {
                "host_call": (lambda x: [x * 2.0], [tf.zeros([4, 3])]),
                "eval_metrics": (lambda p, q: {"q": q}, {"p": tf.zeros([4]), "q": tf.ones([4, 2])}),
            }
        )
        ops = host.create_enqueue_op()
        out["enqueue"] = [op.type for op in ops]
        out["enqueue_inputs"] = [[t.shape.as_list() for t in op.inputs] for op in ops]
        out["hostcall"] = _describe(host.create_tpu_hostcall())
        every = TE._OutfeedHostCall(ctx, outfeed_every_n_steps=3)
        every.record({"h": (lambda x: x, [tf.zeros([2])])})
        out["every_without_step"] = _outcome(every.create_enqueue_op)
        out["every_with_step"] = _outcome(every.create_enqueue_op, tf.constant(2))
        scalar = TE._OutfeedHostCall(ctx)
        scalar.record({"h": (lambda x: x, [tf.constant(1.0)])})
        out["scalar_hostcall"] = _outcome(scalar.create_tpu_hostcall)
    return out


def _model_fn(features, labels, mode, params):
    with v1.variable_scope("m", reuse=v1.AUTO_REUSE):
        w = v1.get_variable("w", [3, 1], initializer=v1.ones_initializer())
    logits = tf.matmul(features["x"], w)
    loss = tf.reduce_mean(tf.square(logits - labels)) if labels is not None else None
    _model_fn.seen = sorted(k for k in params if k != "context"), "context" in params
    _model_fn.batch = params.get("batch_size")
    train_op = None
    if mode == "train":
        step = v1.train.get_or_create_global_step()
        train_op = v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
    metrics = (
        (
            lambda labels, logits: {"mse": v1.metrics.mean_squared_error(labels, logits)},
            [labels, logits],
        )
        if mode == "eval"
        else None
    )
    return TE.TPUEstimatorSpec(
        mode,
        loss=loss,
        train_op=train_op,
        predictions={"p": logits},
        eval_metrics=metrics,
        export_outputs={"serving_default": tf.estimator.export.PredictOutput({"p": logits})},
    )


def _no_params(features, labels, mode):
    return None


def _wrapper():
    out = {}
    for mode in ("train", "eval", "infer"):
        for on_cpu in (True, False):
            with tf.Graph().as_default():
                v1.train.get_or_create_global_step()
                wrapper = TE._ModelFnWrapper(
                    _model_fn, TC.RunConfig(), {"k": 1}, _Ctx(mode, on_cpu)
                )
                labels = tf.ones([4, 1]) if mode != "infer" else None
                spec = wrapper.call_without_tpu({"x": tf.ones([4, 3])}, labels, False)
                key = f"{mode}_{'cpu' if on_cpu else 'tpu'}"
                out[key] = [type(spec).__name__, _model_fn.seen, _model_fn.batch]
                if mode == "infer":
                    export = wrapper.call_without_tpu({"x": tf.ones([4, 3])}, None, True)
                    out[key + "_export"] = [type(export).__name__, _model_fn.seen, _model_fn.batch]
    with tf.Graph().as_default():
        ctx = _Ctx("train", on_cpu=False)
        wrapper = TE._ModelFnWrapper(_model_fn, TC.RunConfig(), {}, ctx)
        dynamic = v1.placeholder(tf.float32, [None, 3])
        out["dynamic_shape"] = _outcome(wrapper.call_without_tpu, {"x": dynamic}, None, False)
        out["no_params"] = _outcome(
            TE._ModelFnWrapper(_no_params, TC.RunConfig(), {}, ctx).call_without_tpu,
            {"x": tf.ones([4, 3])},
            None,
            False,
        )
        no_labels = lambda features, mode, params: None  # noqa: E731
        out["labels_refused"] = _outcome(
            TE._ModelFnWrapper(no_labels, TC.RunConfig(), {}, ctx).call_without_tpu,
            {"x": tf.ones([4, 3])},
            tf.ones([4, 1]),
            False,
        )
        out["predictions_not_dict"] = _outcome(wrapper._verify_tpu_spec_predictions, tf.ones([2]))
        out["predictions_dynamic"] = _outcome(wrapper._verify_tpu_spec_predictions, {"a": dynamic})
        out["predictions_ok"] = _outcome(wrapper._verify_tpu_spec_predictions, {"a": tf.ones([2])})
        chief = tf.estimator.EstimatorSpec(
            "train",
            loss=tf.constant(1.0),
            train_op=tf.no_op(),
            training_chief_hooks=[v1.train.StopAtStepHook(1)],
        )
        out["chief_hooks"] = _outcome(wrapper._verify_estimator_spec, chief)
        out["embedding_none"] = _outcome(wrapper._add_embedding_features, {}, True)
    return out


def _dequeue(with_signals=False):
    def dequeue_fn():
        features, labels = {"x": tf.ones([4, 3])}, tf.ones([4, 1])
        if not with_signals:
            return TE._Inputs(features=features, labels=labels)
        signals = {"stopping": tf.zeros([4, 1], tf.bool), "padding_mask": tf.zeros([4], tf.int32)}
        return TE._Inputs(features=features, labels=None, signals=signals)

    return dequeue_fn


def _programs():
    out = {}
    for mode, build in (
        ("train", TE._train_on_tpu_system),
        ("eval", TE._eval_on_tpu_system),
        ("infer", TE._predict_on_tpu_system),
    ):
        with tf.Graph().as_default() as g:
            v1.train.get_or_create_global_step()
            ctx = _Ctx(mode, on_cpu=False)
            wrapper = TE._ModelFnWrapper(_model_fn, TC.RunConfig(), {}, ctx)
            result = build(ctx, wrapper, _dequeue(mode == "infer"))
            out[mode] = _describe(result)
            host = result[2].create_tpu_hostcall()
            out[mode + "_hostcall"] = _describe(host)
            types = {op.type for op in g.get_operations()}
            out[mode + "_ops"] = sorted(types & {"TPUCompilationResult", "TPUReplicateMetadata"})
    return out


def _inference():
    out = {}
    with tf.Graph().as_default():
        features = {"x": tf.ones([4, 3])}
        comp, capture = TE._build_tpu_computation_for_inference(
            _model_fn, features, None, TC.RunConfig(), {}
        )
        tensors = comp()
        spec, outputs, outputs_list, predictions = capture.get()
        out["tpu_computation"] = [
            _describe(tensors),
            type(spec).__name__,
            sorted(outputs),
            len(outputs_list),
            sorted(predictions),
        ]
        comp2, capture2 = TE._build_computation_for_inference(_model_fn, None, TC.RunConfig(), {})
        out["computation_capture_before"] = _outcome(capture2.get)
        del comp2
    return out


def _embedding():
    out = {
        name: [c.__name__ for c in getattr(EMB, name)]
        for name in (
            "_EMBEDDING_COLUMN_CLASSES",
            "_SUPPORTED_FEATURE_COLUMNS",
            "_SUPPORTED_OPTIMIZERS",
            "_TPU_DEVICE_SPECIFIC_EMBEDDING_COLUMNS",
        )
    }
    cls = {c.__name__: c for c in EMB._SUPPORTED_OPTIMIZERS}
    params = {
        "adagrad": cls["AdagradParameters"](0.1),
        "adam": cls["AdamParameters"](0.1),
        "sgd": cls["StochasticGradientDescentParameters"](0.1),
        "ftrl": cls["FtrlParameters"](0.1),
        "momentum": cls["MomentumParameters"](0.1, 0.9),
        "rmsprop": cls["RMSPropParameters"](0.1, 0.9, 0.0, 1e-7),
        "proximal": cls["ProximalAdagradParameters"](0.1),
    }
    for key, p in params.items():
        names = EMB._get_slot_variable_names("scope", "emb", p)
        out["slots_" + key] = None if names is None else [type(names).__name__, list(names)]
        bare = EMB._get_slot_variable_names("", "emb", p)
        out["slots_bare_" + key] = None if bare is None else list(bare)
    unknown = _outcome(EMB._get_slot_variable_names, "s", "e", "adagrad")
    out["slots_unknown"] = unknown[:2]
    return out


def record(workdir=None):
    del workdir
    return {
        "validate": _validate(),
        "cpu_hostcall": _cpu_hostcall(),
        "outfeed": _outfeed(),
        "wrapper": _wrapper(),
        "programs": _programs(),
        "inference": _inference(),
        "embedding": _embedding(),
    }


if __name__ == "__main__":
    _values.main("private_tpu_computation", record, sys.argv[1:])
