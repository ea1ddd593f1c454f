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


def record(workdir):
    return {
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
