"""Legacy Estimator's call conventions that libraries built on its internals rely on.

``python library_conventions.py library_conventions OUT_DIR`` writes ``OUT_DIR/values.json``:

- ``class_level``: ``Estimator._assert_members_are_not_overridden`` replaced on the class
  by ``staticmethod(lambda _: None)`` (as an ensemble library does): a subclass overriding
  ``evaluate`` constructs, and what the replacement receives (a subclass's, and
  ``model_to_estimator``'s estimator);
- ``empty_fetches``: what ``session.run([])`` / ``({})`` / ``(())`` return inside a hook's
  ``after_create_session`` and ``before_run`` during training and evaluation, and
  ``tf.train.Checkpoint(...).restore(...).initialize_or_restore(session)`` there;
- ``listeners``: how many times a ``CheckpointSaverListener`` is called when the model_fn's
  own ``CheckpointSaverHook`` holds it and ``train(saving_listeners=...)`` names it again,
  or when it is named twice;
- ``subclass_steps``: a subclass overriding legacy's training and evaluation steps as
  libraries do (``_train_model_default`` building its own graph from
  ``_get_features_and_labels_from_input_fn`` and ``_call_model_fn`` and handing it to
  ``_train_with_estimator_spec``; ``evaluate`` running ``_evaluate_build_graph`` and
  ``_evaluate_run`` in its own graph; ``_export_all_saved_models`` adding meta graphs with
  ``_add_meta_graph_for_mode``): the order of the calls, what each receives, the losses,
  metrics, variables and exported tags;
- ``eval_summaries``: what ``evaluate`` writes to its event file when ``eval_metric_ops``
  hold serialized ``Summary`` protos (a text summary under ``architecture/``, a scalar),
  unparsable bytes and a float.
"""

import glob
import json
import os
import sys

import numpy as np
import tensorflow as tf

ARTIFACTS = ("library_conventions",)
v1 = tf.compat.v1
X = np.random.RandomState(3).normal(size=(16, 2)).astype("float32")
Y = (X.sum(axis=1, keepdims=True) > 0).astype("float32")


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(4)


def _model_fn(extra_metrics=None, chief_hooks=None):
    def model_fn(features, labels, mode):
        init = v1.constant_initializer(0.1)  # fixed weights: the numbers repeat across runs
        logits = v1.layers.dense(features["x"], 1, name="out", kernel_initializer=init)
        loss = v1.losses.sigmoid_cross_entropy(labels, logits)
        opt = v1.train.GradientDescentOptimizer(0.1)
        train_op = opt.minimize(loss, global_step=v1.train.get_global_step())
        metrics = {"mean_logit": v1.metrics.mean(logits)}
        metrics.update(extra_metrics() if extra_metrics and mode == "eval" else {})
        return tf.estimator.EstimatorSpec(
            mode,
            loss=loss,
            train_op=train_op,
            eval_metric_ops=metrics,
            training_chief_hooks=chief_hooks() if chief_hooks else None,
        )

    return model_fn


def _config(model_dir, **kwargs):
    kwargs.setdefault("save_checkpoints_steps", 2)
    return tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=1, **kwargs)


# -- class-level calls ----------------------------------------------------------------------
class _Overrides(tf.estimator.Estimator):
    def evaluate(self, *args, **kwargs):
        return {"overridden": True}


def class_level(workdir):
    Estimator = tf.estimator.Estimator
    seen = []
    saved = Estimator.__dict__["_assert_members_are_not_overridden"]
    Estimator._assert_members_are_not_overridden = staticmethod(
        lambda est: seen.append(type(est).__name__)
    )
    try:
        est = _Overrides(_model_fn(), model_dir=os.path.join(workdir, "overrides"))
        model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(2,))])
        model.compile("sgd", "mse")
        keras_est = tf.keras.estimator.model_to_estimator(
            keras_model=model, model_dir=os.path.join(workdir, "keras")
        )
    finally:
        Estimator._assert_members_are_not_overridden = saved
    return {
        "constructed": est.evaluate(None) == {"overridden": True},
        "keras_is_estimator": isinstance(keras_est, Estimator),
        "patch_received_instances": len(seen),
        "patch_received_subclass": "_Overrides" in seen,
    }


# -- empty fetches --------------------------------------------------------------------------
class _EmptyRunHook(tf.estimator.SessionRunHook):
    def __init__(self, record):
        self.record = record

    def begin(self):
        self.extra = v1.get_variable("extra", initializer=5.0, use_resource=True)
        self.status = tf.train.Checkpoint(extra=self.extra).restore(None)

    def _runs(self, session, where):
        for name, fetches in (("list", []), ("dict", {}), ("tuple", ())):
            result = session.run(fetches)
            self.record[f"{where}_{name}"] = [type(result).__name__, len(result)]

    def after_create_session(self, session, coord):
        self._runs(session, "after_create_session")
        self.status.initialize_or_restore(session)
        self.record["restored_extra"] = float(session.run(self.extra))

    def before_run(self, run_context):
        self._runs(run_context.session, "before_run")


def empty_fetches(workdir):
    est = tf.estimator.Estimator(_model_fn(), config=_config(os.path.join(workdir, "empty")))
    train, evaluate = {}, {}
    est.train(input_fn, hooks=[_EmptyRunHook(train)], max_steps=2)
    est.evaluate(input_fn, steps=1, hooks=[_EmptyRunHook(evaluate)])
    return {"train": train, "eval": evaluate}


# -- saving listeners -----------------------------------------------------------------------
class _CountingListener(tf.estimator.CheckpointSaverListener):
    def __init__(self):
        self.calls = {"begin": 0, "before_save": 0, "after_save": 0, "end": 0}

    def begin(self):
        self.calls["begin"] += 1

    def before_save(self, session, global_step_value):
        self.calls["before_save"] += 1

    def after_save(self, session, global_step_value):
        self.calls["after_save"] += 1

    def end(self, session, global_step_value):
        self.calls["end"] += 1


def listeners(workdir):
    out = {}
    own = _CountingListener()
    model_dir = os.path.join(workdir, "own_hook")

    def chief_hooks():
        return [v1.train.CheckpointSaverHook(model_dir, save_steps=2, listeners=[own])]

    est = tf.estimator.Estimator(
        _model_fn(chief_hooks=chief_hooks), config=_config(model_dir, save_checkpoints_steps=None)
    )
    est.train(input_fn, max_steps=4, saving_listeners=[own])
    out["in_model_fn_hook_and_argument"] = own.calls
    twice = _CountingListener()
    est = tf.estimator.Estimator(_model_fn(), config=_config(os.path.join(workdir, "twice")))
    est.train(input_fn, max_steps=4, saving_listeners=[twice, twice])
    out["named_twice"] = twice.calls
    return out


# -- what evaluation writes -------------------------------------------------------------------
def _summary_metrics():
    with tf.name_scope("architecture"):
        text = v1.summary.text("ensembles", tf.constant("| linear | dnn |"))
    scalar = v1.summary.scalar("complexity", tf.constant(2.5))
    both = v1.summary.merge([text, scalar])
    return {
        "architecture/adanet/ensembles": (text, tf.no_op()),
        "merged": (both, tf.no_op()),
        "not_a_summary": (tf.constant(b"plain bytes"), tf.no_op()),
        "a_float": (tf.constant(1.25, tf.float64), tf.no_op()),
    }


def _event_values(folder):
    values = []
    for path in sorted(glob.glob(os.path.join(folder, "events.out.tfevents.*"))):
        for event in v1.train.summary_iterator(path):
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                if kind == "simple_value":
                    content = round(float(value.simple_value), 6)
                elif kind == "tensor":
                    content = [x.decode() for x in value.tensor.string_val] or "numeric"
                else:
                    content = kind
                plugin = value.metadata.plugin_data.plugin_name
                values.append([int(event.step), value.tag, kind, content, plugin])
    return sorted(values)


def eval_summaries(workdir):
    model_dir = os.path.join(workdir, "eval_summaries")
    est = tf.estimator.Estimator(_model_fn(_summary_metrics), config=_config(model_dir))
    est.train(input_fn, max_steps=2)
    results = est.evaluate(input_fn, steps=1)
    values = [v for v in _event_values(est.eval_dir()) if v[1] != "checkpoint_path"]
    kinds = {k: type(v).__name__ for k, v in results.items()}
    return {"event_values": values, "result_types": kinds}


# -- legacy's training and evaluation steps, overridden -----------------------------------
def _kinds(values):
    return sorted(type(v).__name__ for v in values)


class _Steps(tf.estimator.Estimator):
    calls = []

    def _train_model_default(self, input_fn, hooks, saving_listeners):
        self.calls.append(["_train_model_default", _kinds(hooks), len(saving_listeners)])
        with tf.Graph().as_default() as g:
            v1.set_random_seed(self._config.tf_random_seed)
            global_step = self._create_and_assert_global_step(g)
            features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
                input_fn, "train"
            )
            spec = self._call_model_fn(features, labels, "train", self.config)
            worker_hooks = list(input_hooks) + [v1.train.StepCounterHook(every_n_steps=100)]
            return self._train_with_estimator_spec(
                spec, worker_hooks, hooks, global_step, saving_listeners
            )

    def _train_with_estimator_spec(self, spec, worker_hooks, hooks, global_step, listeners):
        self.calls.append(
            ["_train_with_estimator_spec", _kinds(worker_hooks), _kinds(hooks), global_step.name]
        )
        loss = super()._train_with_estimator_spec(spec, worker_hooks, hooks, global_step, listeners)
        self.calls.append(["loss", float(loss)])
        return loss

    def _convert_eval_steps_to_hooks(self, steps):
        hooks = super()._convert_eval_steps_to_hooks(steps)
        self.calls.append(["_convert_eval_steps_to_hooks", steps, len(hooks)])
        return hooks

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        hooks = list(hooks or []) + self._convert_eval_steps_to_hooks(steps)
        checkpoint_path = checkpoint_path or self.latest_checkpoint()
        with tf.Graph().as_default():
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(
                input_fn, hooks, checkpoint_path
            )
            self.calls.append(["_evaluate_build_graph", sorted(eval_dict), len(all_hooks)])
            return self._evaluate_run(
                checkpoint_path=checkpoint_path,
                scaffold=scaffold,
                update_op=update_op,
                eval_dict=eval_dict,
                all_hooks=all_hooks,
                output_dir=self.eval_dir(name),
            )

    def _export_all_saved_models(
        self,
        export_dir_base,
        input_receiver_fn_map,
        assets_extra=None,
        as_text=False,
        checkpoint_path=None,
        strip_default_attrs=True,
    ):
        path = os.path.join(export_dir_base, "steps_export")
        builder = v1.saved_model.Builder(path)
        self._add_meta_graph_for_mode(
            builder,
            input_receiver_fn_map,
            checkpoint_path or self.latest_checkpoint(),
            mode="infer",
            export_tags=["serve", "custom"],
        )
        builder.save()
        return path.encode()


def _steps_model_fn(features, labels, mode):
    if mode != "infer":
        return _model_fn()(features, labels, mode)
    init = v1.constant_initializer(0.1)
    logits = v1.layers.dense(features["x"], 1, name="out", kernel_initializer=init)
    return tf.estimator.EstimatorSpec(mode, predictions={"logit": logits})


def _serving_input_receiver_fn():
    x = v1.placeholder(tf.float32, [None, 2], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def subclass_steps(workdir):
    model_dir = os.path.join(workdir, "steps")
    Estimator = tf.estimator.Estimator
    original = Estimator.__dict__["_assert_members_are_not_overridden"]
    Estimator._assert_members_are_not_overridden = staticmethod(lambda _: None)
    try:  # legacy refuses subclasses overriding private members unless switched off
        est = _Steps(_steps_model_fn, config=_config(model_dir))
    finally:
        Estimator._assert_members_are_not_overridden = original
    est.train(input_fn, steps=3, saving_listeners=[_CountingListener()])
    est.train(input_fn, max_steps=5)
    results = est.evaluate(input_fn, steps=2, name="held")
    exported = est.export_saved_model(workdir, _serving_input_receiver_fn)
    tags = sorted(
        sorted(m.meta_info_def.tags) for m in _saved_model_proto(exported.decode()).meta_graphs
    )
    return {
        "calls": _Steps.calls,
        "results": {k: float(v) for k, v in sorted(results.items())},
        "kernel": est.get_variable_value("out/kernel").round(6).tolist(),
        "eval_events": [v[1] for v in _event_values(est.eval_dir("held"))],
        "export_tags": tags,
    }


def _saved_model_proto(path):
    from tensorflow.core.protobuf import saved_model_pb2

    proto = saved_model_pb2.SavedModel()
    with open(os.path.join(path, "saved_model.pb"), "rb") as f:
        proto.ParseFromString(f.read())
    return proto


def record(workdir):
    return {
        "subclass_steps": subclass_steps(workdir),
        "class_level": class_level(workdir),
        "empty_fetches": empty_fetches(workdir),
        "listeners": listeners(workdir),
        "eval_summaries": eval_summaries(workdir),
    }


def main(argv):
    import tempfile

    name, out_dir = argv
    assert name == "library_conventions", name
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as workdir:
        values = record(workdir)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(values, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
