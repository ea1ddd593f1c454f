"""Two legacy modules libraries used in their tests: `export.function` and `fake_summary_writer`.

Usage::

    python private_test_utils.py private_export_function OUT_DIR
    python private_test_utils.py private_fake_summary_writer OUT_DIR

Each writes ``OUT_DIR/expected.json``.

``private_export_function``: a linear model_fn (``get_variable`` with a constant
initializer, a ``tf.Variable`` with a callable initial value, Adam, the global step) run per
mode as graph functions over shared variables: 3 train steps, evaluate, predict, then a
4th train step, evaluate and predict again (``before`` / ``after``), with the variables at
each point. On TF 2.15 ``ModelFunction`` itself fails for every model_fn returning an
EstimatorSpec (its per-mode hook ``EstimatorSpecFunction._defun`` is no longer called by
TF 2.15's ``tf.function``: the model_fn is traced as a plain function, whose variables
are not collected, hence ``No variables to optimize``; the error is recorded as
``model_function_error``), so the
legacy numbers come from the machinery it was built on and legacy's own tests exercise:
one ``export.function._EstimatorWrappedGraph`` per mode sharing a
``VariableHolder(share_variables=True)``. Under tfport, ``model_function_numbers`` runs
the same model_fn through ``ModelFunction`` (and a saved and reloaded copy).

``private_fake_summary_writer``: ``FakeSummaryWriter.install()``, then (1) a
``MonitoredSession`` with a ``SummarySaverHook`` (every 2 steps) and a ``StepCounterHook``
over a graph whose scalar summaries follow a dataset element read once per run, 6 steps;
(2) an Estimator trained 6 steps (``save_summary_steps=2``, checkpoints every 3 steps, a
``tf.compat.v1.summary.scalar`` in its model_fn) and evaluated one step. Records, for each
writer the cache made, the ``{tag: simple_value}`` per step (``global_step/sec`` left out:
wall-time based), the number of graphs and meta graphs added and the session logs (status,
checkpoint file name).
"""

import json
import os
import shutil
import sys

import numpy as np

ARTIFACTS = ("private_export_function", "private_fake_summary_writer")
LR = 0.1


def _data():
    rng = np.random.RandomState(2715)
    x = rng.normal(size=(8, 3)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5]], "float32") + 0.3).astype("float32")
    w0 = rng.uniform(-1.0, 1.0, size=(3, 1)).astype("float32")
    return x, y, w0


def model_fn(features, labels, mode, params):
    import tensorflow as tf

    w = tf.compat.v1.get_variable(
        "w", shape=[3, 1], initializer=tf.compat.v1.constant_initializer(params["w0"])
    )
    b = tf.Variable(lambda: tf.constant([0.25]), name="b")
    pred = tf.matmul(features["x"], w) + b
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"y": pred})
    loss = tf.reduce_mean(tf.square(pred - labels))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, predictions={"y": pred, "loss": loss})
    optimizer = tf.compat.v1.train.AdamOptimizer(params["lr"])
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, predictions={"y": pred})


def _np(value):
    return np.asarray(value).tolist()


def _variables(by_name):
    return {name: _np(v.numpy()) for name, v in sorted(by_name.items())}


def _section(call, x, y):
    """3 train steps, evaluate, predict (`before`); one more train step, ... (`after`)."""
    features = {"x": x}
    out = {"train": [_np(call("train", features, y)["predictions"]["y"]) for _ in range(3)]}
    out["eval"] = {k: _np(v) for k, v in call("eval", features, y)["predictions"].items()}
    out["infer"] = _np(call("infer", features, None)["predictions"]["y"])
    return out


def model_function_numbers(save_dir):
    """The script through `export.function.ModelFunction` (tfport), saved and reloaded."""
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.export import function

    x, y, w0 = _data()
    mfn = function.ModelFunction.from_function(model_fn, params={"w0": w0, "lr": LR})
    numbers = {"before": _section(mfn.call, x, y), "variables_before": _variables(mfn.variables)}
    tf.saved_model.save(mfn, save_dir)
    loaded = tf.saved_model.load(save_dir)

    def call(mode, features, labels):
        fn = loaded._functions[mode]
        return fn(features) if labels is None else fn(features, labels)

    numbers["after"] = _after(call, x, y)
    by_name = loaded._variables_by_name
    names = [n for n in by_name._unconditional_dependency_names if not n.startswith("_")]
    numbers["variables_after"] = _variables({n: getattr(by_name, n) for n in names})
    return numbers


def _after(call, x, y):
    features = {"x": x}
    out = {"train": [_np(call("train", features, y)["predictions"]["y"])]}
    out["eval"] = {k: _np(v) for k, v in call("eval", features, y)["predictions"].items()}
    out["infer"] = _np(call("infer", features, None)["predictions"]["y"])
    return out


def wrapped_graph_numbers():
    """The same through legacy's `_EstimatorWrappedGraph` per mode (legacy stack only)."""
    import tensorflow as tf
    from tensorflow.python.eager import wrap_function
    from tensorflow_estimator.python.estimator.export import function

    x, y, w0 = _data()
    params = {"w0": w0, "lr": LR}
    holder = wrap_function.VariableHolder(share_variables=True)
    fns = {}
    for mode in ("train", "eval", "infer"):
        fn, takes_labels = function._wrap_and_verify_model_fn(model_fn, mode, params=params)
        graph = function._EstimatorWrappedGraph(holder)
        args = [{"x": tf.constant(x)}] + ([tf.constant(y)] if mode != "infer" else [])
        fns[mode] = graph.wrap_model_fn(fn, mode, args=args, kwargs={})
        tf.compat.v1.initializers.variables(graph.variables.values())

    def call(mode, features, labels):
        features = {"x": tf.constant(features["x"])}
        return fns[mode](features) if labels is None else fns[mode](features, tf.constant(labels))

    numbers = {"before": _section(call, x, y), "variables_before": _variables(holder.variables)}
    numbers["after"] = _after(call, x, y)
    numbers["variables_after"] = _variables(holder.variables)
    return numbers


def _model_function_error(tmp):
    try:
        model_function_numbers(tmp)
    except (TypeError, ValueError) as err:  # TF 2.15: the per-mode hook is not called
        lines = [line.strip() for line in str(err).splitlines() if line.strip()]
        name = type(err).__name__
        return lines[-1] if lines[-1].startswith(name) else f"{name}: {lines[-1]}"
    return None


def _record(writer):
    """What a FakeSummaryWriter holds, as JSON data."""
    steps = {str(step): simple_values(writer, step) for step in sorted(writer.summaries)}
    logs = [
        [int(log.status), os.path.basename(log.checkpoint_path)]
        for log in writer._added_session_logs
    ]
    return {
        "summaries": steps,
        "graphs": len(writer._added_graphs),
        "meta_graphs": len(writer._added_meta_graphs),
        "session_logs": logs,
    }


def simple_values(writer, step):
    """`{tag: simple_value}` at `step`, `global_step/sec` left out (legacy's own filter)."""
    return {
        v.tag: v.simple_value
        for s in writer.summaries[step]
        for v in s.value
        if v.tag != "global_step/sec"
    }


def monitored_session_writer(logdir):
    """A MonitoredSession with SummarySaverHook and StepCounterHook; returns the fake writer."""
    import tensorflow as tf

    with tf.Graph().as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        # the n-th run's element: the summary and the train op read it in the same run
        element = tf.compat.v1.data.make_one_shot_iterator(tf.data.Dataset.range(100)).get_next()
        value = tf.cast(element, tf.float32) * 1.5 + 0.25
        tf.compat.v1.summary.scalar("my_summary", value)
        tf.compat.v1.summary.scalar("half", value / 2.0)
        train_op = tf.compat.v1.assign_add(step, element * 0 + 1)
        hooks = [
            tf.compat.v1.train.SummarySaverHook(
                save_steps=2, output_dir=logdir, summary_op=tf.compat.v1.summary.merge_all()
            ),
            tf.compat.v1.train.StepCounterHook(every_n_steps=2, output_dir=logdir),
        ]
        with tf.compat.v1.train.MonitoredSession(hooks=hooks) as session:
            for _ in range(6):
                session.run(train_op)
        return tf.compat.v1.summary.FileWriterCache.get(logdir)


def _input_fn():
    import tensorflow as tf

    x, y, _ = _data()
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).batch(4).repeat()


def estimator_model_fn(features, labels, mode, params):
    import tensorflow as tf

    spec = model_fn(features, labels, mode, params)
    if mode == tf.estimator.ModeKeys.TRAIN:
        tf.compat.v1.summary.scalar("my_loss_x2", spec.loss * 2.0)
    return spec


def estimator_writers(model_dir):
    """An Estimator trained 6 steps and evaluated 1; returns the train and eval fake writers."""
    import tensorflow as tf

    _, _, w0 = _data()
    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_summary_steps=2, save_checkpoints_steps=3, log_step_count_steps=2
    )
    est = tf.estimator.Estimator(estimator_model_fn, config=config, params={"w0": w0, "lr": LR})
    est.train(_input_fn, steps=6)
    est.evaluate(_input_fn, steps=1)
    cache = tf.compat.v1.summary.FileWriterCache
    return cache.get(model_dir), cache.get(os.path.join(model_dir, "eval"))


def fake_summary_writer_numbers(work_dir):
    """Install, run both sections, uninstall; the recorded summaries."""
    from tensorflow_estimator.python.estimator.hooks import fake_summary_writer

    fake_summary_writer.FakeSummaryWriter.install()
    try:
        session = monitored_session_writer(os.path.join(work_dir, "session"))
        train, evaluation = estimator_writers(os.path.join(work_dir, "estimator"))
    finally:
        fake_summary_writer.FakeSummaryWriter.uninstall()
    writers = {"session": session, "train": train, "eval": evaluation}
    for name, writer in writers.items():
        assert type(writer).__name__ == "FakeSummaryWriter", (name, type(writer))
    return {name: _record(writer) for name, writer in writers.items()}


def main(name, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    work = os.path.join(out_dir, ".work")
    if name == "private_export_function":
        numbers = {
            "model_function_error": _model_function_error(os.path.join(work, "saved")),
            "numbers": wrapped_graph_numbers(),
        }
    else:
        numbers = fake_summary_writer_numbers(work)
    shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(numbers, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ARTIFACTS:
        main(sys.argv[1], sys.argv[2])
    else:
        sys.exit(
            "usage: private_test_utils.py "
            "{private_export_function,private_fake_summary_writer} OUT_DIR"
        )
