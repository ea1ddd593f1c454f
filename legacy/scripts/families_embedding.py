"""TPUEstimator with a TPU EmbeddingConfigSpec, run on CPU (``use_tpu=False``).

Usage::

    python families_embedding.py CASE MODEL_DIR OUT_JSON
    python families_embedding.py --jobs CASE,MODEL_DIR,OUT_JSON,USE_TPU [...]

Each case trains 40 steps (resuming from any checkpoint in MODEL_DIR, checkpoints every
20 steps), evaluates, predicts and writes ``eval_metrics``, ``predictions`` and
``variables`` (the step-40 checkpoint's names) to OUT_JSON. The model reads a
``tf.compat.v1.tpu.experimental.embedding_column`` through
``tf.compat.v1.feature_column.input_layer`` and two
``tf.compat.v1.tpu.experimental.shared_embedding_columns`` through ``DenseFeatures``;
the ``EmbeddingConfigSpec`` names all three with the case's optimization parameters, and
the model_fn's optimizer is of the same kind:

- ``families_embedding_adagrad``: ``AdagradParameters`` + ``AdagradOptimizer``.
- ``families_embedding_adam``: ``AdamParameters`` + ``AdamOptimizer``.
- ``families_embedding_sgd``: ``StochasticGradientDescentParameters`` +
  ``GradientDescentOptimizer``.

``--jobs`` runs several cases in one process; USE_TPU ``1`` builds the TPUEstimator with
``use_tpu=True`` (the legacy stack then fails on a machine without TPU cores).
"""

import json
import os
import sys

import numpy as np

CASES = ("families_embedding_adagrad", "families_embedding_adam", "families_embedding_sgd")

STEPS = 40
BATCH = 16
VOCAB = 7


def _data():
    rng = np.random.RandomState(23)
    user = rng.randint(0, VOCAB, size=(64, 1)).astype("int64")
    item = rng.randint(0, VOCAB, size=(64, 2)).astype("int64")
    query = rng.randint(0, VOCAB, size=(64, 1)).astype("int64")
    x = rng.normal(size=(64, 2)).astype("float32")
    y = ((user[:, 0] + item[:, 0] + (x[:, 0] > 0)) % 2).astype("float32")[:, None]
    return {"user": user, "item": item, "query": query, "x": x}, y


def _columns(tf):
    fc = tf.compat.v1.feature_column
    tpu_fc = tf.compat.v1.tpu.experimental
    user = fc.categorical_column_with_identity("user", VOCAB)
    item = fc.categorical_column_with_identity("item", VOCAB)
    query = fc.categorical_column_with_identity("query", VOCAB)
    embedded = tpu_fc.embedding_column(user, 3, combiner="mean")
    shared = tpu_fc.shared_embedding_columns([item, query], 2, combiner="sqrtn")
    return embedded, list(shared)


def _model_fn_for(tf, embedded, shared, optimizer):
    def model_fn(features, labels, mode, params):
        net = tf.compat.v1.feature_column.input_layer(features, [embedded])
        net_shared = tf.compat.v1.keras.layers.DenseFeatures(shared)(features)
        net = tf.concat([net, net_shared, features["x"]], 1)
        net = tf.compat.v1.layers.dense(net, 4, activation=tf.nn.tanh, name="hidden")
        logits = tf.compat.v1.layers.dense(net, 1, name="logits")
        probs = tf.sigmoid(logits)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
                mode, predictions={"probabilities": probs}
            )
        loss = tf.compat.v1.losses.sigmoid_cross_entropy(labels, logits)
        if mode == tf.estimator.ModeKeys.EVAL:

            def metric_fn(labels, probs):
                return {
                    "accuracy": tf.compat.v1.metrics.accuracy(labels, tf.round(probs)),
                    "auc": tf.compat.v1.metrics.auc(labels, probs),
                }

            return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
                mode, loss=loss, eval_metrics=(metric_fn, [labels, probs])
            )
        opt = optimizer()
        if params["use_tpu"]:
            opt = tf.compat.v1.tpu.CrossShardOptimizer(opt)
        train_op = opt.minimize(loss, tf.compat.v1.train.get_global_step())
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def run(case, model_dir, use_tpu=False):
    """Trains, evaluates and predicts CASE on MODEL_DIR; returns its numbers."""
    import tensorflow as tf

    tpu_exp = tf.compat.v1.tpu.experimental
    kind = case.rsplit("_", 1)[1]
    parameters, optimizer = {
        "adagrad": (
            tpu_exp.AdagradParameters(0.2, initial_accumulator=0.1),
            lambda: tf.compat.v1.train.AdagradOptimizer(0.2, initial_accumulator_value=0.1),
        ),
        "adam": (
            tpu_exp.AdamParameters(0.05, beta1=0.9, beta2=0.99, epsilon=1e-6),
            lambda: tf.compat.v1.train.AdamOptimizer(0.05, beta1=0.9, beta2=0.99, epsilon=1e-6),
        ),
        "sgd": (
            tpu_exp.StochasticGradientDescentParameters(0.3),
            lambda: tf.compat.v1.train.GradientDescentOptimizer(0.3),
        ),
    }[kind]
    embedded, shared = _columns(tf)
    spec = tf.compat.v1.estimator.tpu.experimental.EmbeddingConfigSpec(
        feature_columns=[embedded, *shared], optimization_parameters=parameters
    )
    features, labels = _data()

    def input_fn(params):
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        return ds.repeat().batch(params["batch_size"], drop_remainder=True)

    def predict_input_fn(params):
        ds = tf.data.Dataset.from_tensor_slices(features)
        return ds.batch(params["batch_size"], drop_remainder=True)

    config = tf.compat.v1.estimator.tpu.RunConfig(
        model_dir=model_dir,
        tf_random_seed=5,
        save_checkpoints_steps=20,
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=10),
    )
    est = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=_model_fn_for(tf, embedded, shared, optimizer),
        config=config,
        use_tpu=use_tpu,
        train_batch_size=BATCH,
        eval_batch_size=BATCH,
        predict_batch_size=BATCH,
        embedding_config_spec=spec,
    )
    est.train(input_fn, max_steps=STEPS)
    metrics = est.evaluate(input_fn, steps=4)
    preds = [float(p["probabilities"][0]) for p in est.predict(predict_input_fn)]
    ckpt = tf.train.latest_checkpoint(model_dir)
    return {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": preds,
        "variables": sorted(name for name, _ in tf.train.list_variables(ckpt)),
        "steps": STEPS,
        "batch_size": BATCH,
    }


def main(case, model_dir, out_json, use_tpu=False):
    """Runs CASE on MODEL_DIR and writes its numbers to OUT_JSON."""
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; this script has: {', '.join(CASES)}")
    result = run(case, os.path.abspath(model_dir), use_tpu)
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--jobs":
        for job in sys.argv[2:]:
            case, model_dir, out_json, use_tpu = job.split(",")
            main(case, model_dir, out_json, use_tpu == "1")
    elif len(sys.argv) != 4 or sys.argv[1] not in CASES:
        sys.exit(f"usage: families_embedding.py {{{','.join(CASES)}}} MODEL_DIR OUT_JSON")
    else:
        main(*sys.argv[1:])
