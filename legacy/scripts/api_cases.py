"""Legacy public API beyond the canned families: numpy/pandas input, heads, in-memory eval.

Usage::

    python api_cases.py CASE MODEL_DIR OUT_JSON

``api_numpy_head``: a custom model_fn (one dense layer) over ``BinaryClassHead(thresholds
=[0.3])`` fed by ``numpy_input_fn`` (batch 16, shuffle=False), an ``InMemoryEvaluatorHook``
every 20 iterations (``eval_mem``), early stopping that never fires.
``api_pandas_poisson``: ``LinearEstimator(head=PoissonRegressionHead())`` on
``pandas_input_fn``. ``api_multi_head``: ``MultiHead([MultiClassHead(3, name="a"),
RegressionHead(name="b")])`` in a custom model_fn. All: 40 steps, checkpoints 0/20/40.
"""

import json
import sys

import numpy as np

CASES = ("api_numpy_head", "api_pandas_poisson", "api_multi_head")
STEPS, BATCH = 40, 16


def _data():
    rng = np.random.RandomState(7)
    x = rng.normal(size=(96, 3)).astype("float32")
    y = (x[:, 0] - x[:, 1] > 0).astype("int64").reshape(-1, 1)
    counts = rng.poisson(np.exp(0.3 * x[:, 0])).astype("float32").reshape(-1, 1)
    return x, y, counts


def _sgd(tf, rate):
    """A Keras SGD whose iterations are the global step (as the canned estimators set it)."""
    opt = tf.keras.optimizers.legacy.SGD(rate)
    opt.iterations = tf.compat.v1.train.get_or_create_global_step()
    return opt


def _finish(tf, est, eval_fn, model_dir, out_json, extra=None):
    metrics = est.evaluate(eval_fn)
    preds = []
    for p in est.predict(eval_fn):
        preds.append(
            {
                str(k): np.asarray(v).astype("float64").tolist()
                for k, v in p.items()
                if np.asarray(v).dtype.kind == "f"
            }
        )
    ckpt = tf.train.latest_checkpoint(model_dir)
    out = {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": preds[:24],
        "variables": sorted(n for n, _ in tf.train.list_variables(ckpt)),
        "steps": STEPS,
        "batch_size": BATCH,
    }
    out.update(extra or {})
    with open(out_json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def numpy_head(model_dir, out_json):
    import tensorflow as tf

    x, y, _ = _data()
    head = tf.estimator.BinaryClassHead(thresholds=[0.3])

    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 1, name="logits")
        return head.create_estimator_spec(
            features,
            mode,
            logits,
            labels,
            optimizer=_sgd(tf, 0.1),
            trainable_variables=tf.compat.v1.trainable_variables(),
        )

    train_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=BATCH, num_epochs=None, shuffle=False
    )
    eval_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=40, num_epochs=1, shuffle=False
    )
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)
    est = tf.estimator.Estimator(model_fn, config=config)
    mem = tf.estimator.experimental.InMemoryEvaluatorHook(est, eval_fn, name="mem", every_n_iter=20)
    stop = tf.estimator.experimental.stop_if_higher_hook(
        est, "accuracy", 2.0, run_every_secs=None, run_every_steps=10
    )
    est.train(train_fn, hooks=[mem, stop], max_steps=STEPS)
    in_memory = {}
    for event_file in tf.io.gfile.glob(est.eval_dir("mem") + "/*tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(event_file):
            for v in event.summary.value:
                if v.HasField("simple_value"):
                    in_memory.setdefault(str(event.step), {})[v.tag] = v.simple_value
    _finish(tf, est, eval_fn, model_dir, out_json, {"in_memory": in_memory})


def pandas_poisson(model_dir, out_json):
    import pandas as pd
    import tensorflow as tf

    x, _, counts = _data()
    frame = pd.DataFrame({"a": x[:, 0], "b": x[:, 1]})
    target = pd.Series(counts[:, 0])
    columns = [tf.feature_column.numeric_column("a"), tf.feature_column.numeric_column("b")]
    est = tf.estimator.LinearEstimator(
        head=tf.estimator.PoissonRegressionHead(),
        feature_columns=columns,
        optimizer=tf.keras.optimizers.legacy.SGD(0.05),
        config=tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20),
    )
    train_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(
        frame, target, batch_size=BATCH, num_epochs=None, shuffle=False
    )
    eval_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(
        frame, target, batch_size=48, num_epochs=1, shuffle=False
    )
    est.train(train_fn, max_steps=STEPS)
    _finish(tf, est, eval_fn, model_dir, out_json)


def multi_head(model_dir, out_json):
    import tensorflow as tf

    x, y, counts = _data()
    cls = (y[:, 0] + (x[:, 2] > 0)).astype("int64").reshape(-1, 1)
    head = tf.estimator.MultiHead(
        [tf.estimator.MultiClassHead(3, name="a"), tf.estimator.RegressionHead(name="b")]
    )

    def model_fn(features, labels, mode):
        logits = tf.compat.v1.layers.dense(features["x"], 4, name="logits")
        return head.create_estimator_spec(
            features,
            mode,
            logits,
            labels,
            optimizer=_sgd(tf, 0.1),
            trainable_variables=tf.compat.v1.trainable_variables(),
        )

    ys = {"a": cls, "b": counts}
    train_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x}, ys, batch_size=BATCH, num_epochs=None, shuffle=False
    )
    eval_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x}, ys, batch_size=48, num_epochs=1, shuffle=False
    )
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)
    est = tf.estimator.Estimator(model_fn, config=config)
    est.train(train_fn, max_steps=STEPS)
    _finish(tf, est, eval_fn, model_dir, out_json)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes OUT_JSON."""
    {
        "api_numpy_head": numpy_head,
        "api_pandas_poisson": pandas_poisson,
        "api_multi_head": multi_head,
    }[case](model_dir, out_json)


if __name__ == "__main__":
    main(*sys.argv[1:4])
