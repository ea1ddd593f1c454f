"""More legacy public API: each head in a custom model_fn and in a canned estimator,
add_metrics, numpy/pandas input, early stopping inside train_and_evaluate.

Usage::

    python api_more.py CASE MODEL_DIR OUT_JSON

Custom model_fns (one dense layer, 40 steps of batch 16, checkpoints 0/20/40):

- ``api_custom_multiclass``: ``MultiClassHead(3, weight_column="w", label_vocabulary=...)``
  trained through ``train_op_fn``, string labels from ``numpy_input_fn``, wrapped by
  ``add_metrics`` (a v1 metric tuple and a Keras metric).
- ``api_custom_multilabel``: ``MultiLabelHead(3, thresholds=[0.3, 0.6])`` with an
  ``optimizer``, ``regularization_losses`` (an L2 term) and ``update_ops`` (a counter of
  the rows trained on).
- ``api_custom_regression``: ``RegressionHead(label_dimension=2, loss_fn=...,
  inverse_link_fn=...)`` on ``pandas_input_fn`` with a DataFrame of labels.
- ``api_custom_poisson``: ``PoissonRegressionHead(weight_column="w")`` on
  ``pandas_input_fn`` with a Series of labels.
- ``api_custom_logistic``: ``LogisticRegressionHead()``; the Estimator's input_fns call
  ``numpy_input_fn(...)()`` themselves and hand back its ``(features, labels)`` tensors.

Canned estimators:

- ``api_canned_multi_head``: ``DNNEstimator(head=MultiHead([BinaryClassHead,
  MultiClassHead, MultiLabelHead, RegressionHead], head_weights=...))``.
- ``api_canned_multilabel_vocab``: ``LinearEstimator(head=MultiLabelHead(3,
  weight_column="w", thresholds=[0.5], label_vocabulary=[...],
  classes_for_class_based_metrics=[two names]))`` on string labels given as a
  ``SparseTensor`` (a tf.data input_fn).
- ``api_tae_early_stop``: ``LinearEstimator(head=LogisticRegressionHead())`` wrapped by
  ``add_metrics`` in ``train_and_evaluate`` (``throttle_secs=0``: an evaluation after
  every checkpoint but the first) with ``stop_if_no_decrease_hook`` (checking every step)
  in the ``TrainSpec``; validation rows are labelled against the training rule, so the
  eval loss rises and the hook stops training (``max_steps`` 200) after the evaluation of
  step 40 (at step 40, or one later: the hooks read the global step in the train op's
  own ``session.run``). Metrics and predictions are those of the step-40 checkpoint.

Both canned head cases also export (a raw float input ``x``), load the SavedModel and
record every signature's outputs on 8 rows (``served``).
"""

import glob
import json
import os
import sys

import numpy as np

CASES = (
    "api_custom_multiclass",
    "api_custom_multilabel",
    "api_custom_regression",
    "api_custom_poisson",
    "api_custom_logistic",
    "api_canned_multi_head",
    "api_canned_multilabel_vocab",
    "api_tae_early_stop",
)
STEPS, BATCH = 40, 16


def _data():
    rng = np.random.RandomState(11)
    x = rng.normal(size=(96, 3)).astype("float32")
    w = rng.uniform(0.5, 1.5, size=(96, 1)).astype("float32")
    cls = ((x[:, 0] > 0).astype("int64") + (x[:, 1] > 0.3)).reshape(-1, 1)
    multi = np.stack([x[:, 0] > 0, x[:, 1] > 0, x[:, 0] + x[:, 2] > 0], 1).astype("int64")
    reg = np.stack([x[:, 0] - 0.5 * x[:, 1], 0.3 * x[:, 2] + 1.0], 1).astype("float32")
    counts = rng.poisson(np.exp(0.4 * x[:, 0])).astype("float32").reshape(-1, 1)
    prob = (1.0 / (1.0 + np.exp(-2.0 * x[:, 1]))).astype("float32").reshape(-1, 1)
    return {"x": x, "w": w, "cls": cls, "multi": multi, "reg": reg, "counts": counts, "p": prob}


def _config(tf, model_dir):
    return tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)


def _sgd(tf, rate):
    """A Keras SGD whose iterations are the global step (as the canned estimators set it)."""
    opt = tf.keras.optimizers.legacy.SGD(rate)
    opt.iterations = tf.compat.v1.train.get_or_create_global_step()
    return opt


def _numpy_fns(tf, features, labels, eval_batch=40):
    train = tf.compat.v1.estimator.inputs.numpy_input_fn(
        features, labels, batch_size=BATCH, num_epochs=None, shuffle=False
    )
    evaluate = tf.compat.v1.estimator.inputs.numpy_input_fn(
        features, labels, batch_size=eval_batch, num_epochs=1, shuffle=False
    )
    return train, evaluate


def _predictions(est, input_fn):
    rows = []
    for p in est.predict(input_fn):
        rows.append(
            {
                str(k): np.asarray(v).astype("float64").tolist()
                for k, v in p.items()
                if np.asarray(v).dtype.kind in "fi"
            }
        )
    return rows[:24]


def _serve(tf, est, rows):
    """Exports EST (a raw float input "x" [None, 3]), loads the SavedModel and runs every
    signature that takes "x" on ROWS: {signature: {output: values}} (names only for the
    others)."""
    import tempfile

    def serving_input_fn():
        x = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    served = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = est.export_saved_model(tmp, serving_input_fn)
        path = path.decode() if isinstance(path, bytes) else path
        loaded = tf.saved_model.load(path)
        for name in sorted(loaded.signatures):
            fn = loaded.signatures[name]
            if "x" not in fn.structured_input_signature[1]:
                served[name] = None
                continue
            outputs = fn(x=tf.constant(rows))
            served[name] = {
                k: (
                    [[b.decode() for b in r] for r in v.numpy()]
                    if v.dtype == tf.string
                    else v.numpy().astype("float64").tolist()
                )
                for k, v in outputs.items()
            }
    return served


def _finish(tf, est, metrics, predictions, model_dir, out_json, extra=None):
    ckpt = tf.train.latest_checkpoint(model_dir)
    out = {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": predictions,
        "variables": sorted(n for n, _ in tf.train.list_variables(ckpt)),
        "steps": STEPS,
        "batch_size": BATCH,
    }
    out.update(extra or {})
    with open(out_json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def _custom(tf, head, model_dir, train_fn, eval_fn, out_json, how="optimizer", metric_fn=None):
    """Trains a one-layer custom model_fn over HEAD, evaluates and predicts."""

    def model_fn(features, labels, mode):
        x = features["x"]
        layer = tf.compat.v1.layers.Dense(head.logits_dimension, name="logits")
        logits = layer(x)
        kwargs = {}
        if how == "train_op_fn":
            optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)

            def train_op_fn(loss):
                return optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())

            kwargs["train_op_fn"] = train_op_fn
        else:
            kwargs["optimizer"] = _sgd(tf, 0.1)
            kwargs["trainable_variables"] = tf.compat.v1.trainable_variables()
        if how == "update_ops" and mode == tf.estimator.ModeKeys.TRAIN:
            # A counter of the rows trained on (summed over replicas, were there any).
            seen = tf.compat.v1.get_variable(
                "rows_seen",
                [],
                tf.float32,
                tf.compat.v1.zeros_initializer(),
                trainable=False,
                aggregation=tf.VariableAggregation.SUM,
            )
            rows = tf.cast(tf.shape(x)[0], tf.float32)
            kwargs["update_ops"] = [tf.compat.v1.assign_add(seen, rows)]
            # Computed in each replica's model_fn (a kernel_regularizer would add its loss
            # in the first replica only: the others reuse the variable).
            l2 = 0.01 * tf.reduce_sum(tf.square(layer.kernel))
            kwargs["regularization_losses"] = [l2]
        return head.create_estimator_spec(features, mode, logits, labels, **kwargs)

    est = tf.estimator.Estimator(model_fn, config=_config(tf, model_dir))
    if metric_fn is not None:
        est = tf.estimator.add_metrics(est, metric_fn)
    est.train(train_fn, max_steps=STEPS)
    metrics = est.evaluate(eval_fn)
    _finish(tf, est, metrics, _predictions(est, eval_fn), model_dir, out_json)


def custom_multiclass(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    vocab = ["low", "mid", "high"]
    labels = np.array(vocab)[d["cls"]]
    head = tf.estimator.MultiClassHead(3, weight_column="w", label_vocabulary=vocab)

    def metric_fn(labels, predictions, features):
        mean_prob = tf.compat.v1.metrics.mean(tf.reduce_max(predictions["probabilities"], 1))
        weighted = tf.keras.metrics.Mean(name="mean_weight")
        weighted.update_state(features["w"])
        return {"extra/max_prob": mean_prob, "extra/mean_weight": weighted}

    train_fn, eval_fn = _numpy_fns(tf, {"x": d["x"], "w": d["w"]}, labels)
    _custom(tf, head, model_dir, train_fn, eval_fn, out_json, "train_op_fn", metric_fn)


def custom_multilabel(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    head = tf.estimator.MultiLabelHead(3, thresholds=[0.3, 0.6])
    train_fn, eval_fn = _numpy_fns(tf, {"x": d["x"]}, d["multi"], eval_batch=48)
    _custom(tf, head, model_dir, train_fn, eval_fn, out_json, "update_ops")


def custom_regression(model_dir, out_json):
    import pandas as pd
    import tensorflow as tf

    d = _data()
    frame = pd.DataFrame({"a": d["x"][:, 0], "b": d["x"][:, 1], "c": d["x"][:, 2]})
    targets = pd.DataFrame({"t0": d["reg"][:, 0], "t1": d["reg"][:, 1]})

    def loss_fn(labels, logits):
        return tf.math.abs(labels - logits) + 0.5 * tf.math.square(labels - logits)

    head = tf.estimator.RegressionHead(
        label_dimension=2, loss_fn=loss_fn, inverse_link_fn=lambda t: 2.0 * tf.math.tanh(t)
    )

    def adapt(input_fn):
        def fn():
            features, labels = input_fn()
            x = tf.stack([features["a"], features["b"], features["c"]], 1)
            return {"x": x}, tf.stack([labels["t0"], labels["t1"]], 1)

        return fn

    def pandas_fns():
        train = tf.compat.v1.estimator.inputs.pandas_input_fn(
            frame, targets, batch_size=BATCH, num_epochs=None, shuffle=False
        )
        evaluate = tf.compat.v1.estimator.inputs.pandas_input_fn(
            frame, targets, batch_size=40, num_epochs=1, shuffle=False
        )
        return train, evaluate

    train_fn, eval_fn = pandas_fns()
    _custom(tf, head, model_dir, adapt(train_fn), adapt(eval_fn), out_json)


def custom_poisson(model_dir, out_json):
    import pandas as pd
    import tensorflow as tf

    d = _data()
    frame = pd.DataFrame({"a": d["x"][:, 0], "b": d["x"][:, 1], "w": d["w"][:, 0]})
    target = pd.Series(d["counts"][:, 0])
    head = tf.estimator.PoissonRegressionHead(weight_column="w")

    def adapt(input_fn):
        def fn():
            features, labels = input_fn()
            x = tf.stack([features["a"], features["b"]], 1)
            return {"x": x, "w": features["w"]}, tf.expand_dims(labels, 1)

        return fn

    train_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(
        frame, target, batch_size=BATCH, num_epochs=None, shuffle=False
    )
    eval_fn = tf.compat.v1.estimator.inputs.pandas_input_fn(
        frame, target, batch_size=48, num_epochs=1, shuffle=False
    )
    _custom(tf, head, model_dir, adapt(train_fn), adapt(eval_fn), out_json)


def custom_logistic(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    head = tf.estimator.LogisticRegressionHead()
    train_fn, eval_fn = _numpy_fns(tf, {"x": d["x"]}, d["p"])

    def call(input_fn):
        def fn():
            features, labels = input_fn()  # the queue's (features, labels) tensors
            return features, labels

        return fn

    _custom(tf, head, model_dir, call(train_fn), call(eval_fn), out_json)


def canned_multi_head(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    head = tf.estimator.MultiHead(
        [
            tf.estimator.BinaryClassHead(name="bin"),
            tf.estimator.MultiClassHead(3, name="mc"),
            tf.estimator.MultiLabelHead(3, name="ml"),
            tf.estimator.RegressionHead(label_dimension=2, name="reg"),
        ],
        head_weights=[1.0, 0.5, 1.0, 2.0],
    )
    labels = {
        "bin": (d["cls"] > 0).astype("int64"),
        "mc": d["cls"],
        "ml": d["multi"],
        "reg": d["reg"],
    }
    est = tf.estimator.DNNEstimator(
        head=head,
        hidden_units=[8],
        feature_columns=[tf.feature_column.numeric_column("x", shape=[3])],
        optimizer=tf.keras.optimizers.legacy.Adagrad(0.1),
        config=_config(tf, model_dir),
    )
    train_fn, eval_fn = _numpy_fns(tf, {"x": d["x"]}, labels, eval_batch=48)
    est.train(train_fn, max_steps=STEPS)
    metrics = est.evaluate(eval_fn)
    served = {"served": _serve(tf, est, d["x"][:8])}
    _finish(tf, est, metrics, _predictions(est, eval_fn), model_dir, out_json, served)


def canned_multilabel_vocab(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    vocab = ["pets", "toys", "food"]
    names = np.where(d["multi"] == 1, np.array(vocab), "")  # padded with "" (no label)
    head = tf.estimator.MultiLabelHead(
        3,
        weight_column="w",
        thresholds=[0.5],
        label_vocabulary=vocab,
        classes_for_class_based_metrics=["toys", "food"],
    )
    est = tf.estimator.LinearEstimator(
        head=head,
        feature_columns=[tf.feature_column.numeric_column("x", shape=[3])],
        optimizer=tf.keras.optimizers.legacy.SGD(0.2),
        config=_config(tf, model_dir),
    )

    def input_fn(batch, repeat):
        def fn():
            ds = tf.data.Dataset.from_tensor_slices(({"x": d["x"], "w": d["w"]}, names))
            ds = ds.repeat() if repeat else ds
            ds = ds.batch(batch, drop_remainder=repeat)
            return ds.map(lambda f, labels: (f, tf.sparse.from_dense(labels)))

        return fn

    est.train(input_fn(BATCH, True), max_steps=STEPS)
    metrics = est.evaluate(input_fn(48, False))
    predictions = _predictions(est, input_fn(48, False))
    served = {"served": _serve(tf, est, d["x"][:8])}
    _finish(tf, est, metrics, predictions, model_dir, out_json, served)


def tae_early_stop(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    features = {"x0": d["x"][:, 0], "x1": d["x"][:, 1], "x2": d["x"][:, 2]}
    columns = [tf.feature_column.numeric_column(k) for k in sorted(features)]
    est = tf.estimator.LinearEstimator(
        head=tf.estimator.LogisticRegressionHead(),
        feature_columns=columns,
        optimizer=tf.keras.optimizers.legacy.SGD(0.5),
        config=_config(tf, model_dir),
    )

    def metric_fn(labels, predictions):
        return {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, predictions["predictions"])}

    est = tf.estimator.add_metrics(est, metric_fn)
    train_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        features, d["p"], batch_size=BATCH, num_epochs=None, shuffle=False
    )
    eval_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        features, 1.0 - d["p"], batch_size=48, num_epochs=1, shuffle=False
    )
    stop = tf.estimator.experimental.stop_if_no_decrease_hook(
        est, "loss", max_steps_without_decrease=15, run_every_secs=None, run_every_steps=1
    )
    train_spec = tf.estimator.TrainSpec(train_fn, max_steps=200, hooks=[stop])
    eval_spec = tf.estimator.EvalSpec(eval_fn, steps=None, throttle_secs=0)
    tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    history = {}
    for path in glob.glob(os.path.join(est.eval_dir(), "events.out.tfevents*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag in ("loss", "mae"):
                    history.setdefault(event.step, {})[value.tag] = value.simple_value
    # The step training stops at can differ by one between two legacy runs (the hooks read
    # the global step in the same session.run as the train op), so the numbers compared
    # are those of the step-40 checkpoint and of the evaluations up to it.
    ckpt40 = os.path.join(model_dir, "model.ckpt-40")
    metrics = est.evaluate(eval_fn, checkpoint_path=ckpt40)
    rows = []
    for p in est.predict(eval_fn, checkpoint_path=ckpt40):
        rows.append({k: np.asarray(v).astype("float64").tolist() for k, v in p.items()})
    extra = {
        "global_step": int(est.get_variable_value("global_step")),
        "eval_steps": sorted(history),
        "eval_history": {str(k): v for k, v in history.items() if k <= 40},
    }
    _finish(tf, est, metrics, rows[:24], model_dir, out_json, extra)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes OUT_JSON."""
    {
        "api_custom_multiclass": custom_multiclass,
        "api_custom_multilabel": custom_multilabel,
        "api_custom_regression": custom_regression,
        "api_custom_poisson": custom_poisson,
        "api_custom_logistic": custom_logistic,
        "api_canned_multi_head": canned_multi_head,
        "api_canned_multilabel_vocab": canned_multilabel_vocab,
        "api_tae_early_stop": tae_early_stop,
    }[case](model_dir, out_json)


if __name__ == "__main__":
    main(*sys.argv[1:4])
