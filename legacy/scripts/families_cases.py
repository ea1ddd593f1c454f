"""The estimator families legacy guides still used: KMeans, the logit-fn builders, RNNs.

Usage::

    python families_cases.py CASE MODEL_DIR OUT_JSON

Each case trains 40 steps (resuming from any checkpoint in MODEL_DIR, checkpoints every
20 steps), evaluates, predicts and writes ``eval_metrics``, ``predictions`` and
``variables`` (the step-40 checkpoint's names) to OUT_JSON; the KMeans cases also write
``cluster_centers``, ``score``, ``cluster_index`` and ``transform``.

- ``families_kmeans``: ``tf.compat.v1.estimator.experimental.KMeans``, 4 clusters of 2-d
  points, random initialization, mini-batch (2 steps per iteration; each batch holds
  all 64 points).
- ``families_kmeans_pp``: 3 clusters, kmeans++ initialization, full batch, cosine distance,
  ``feature_columns``.
- ``families_logit_fns``: a custom model_fn summing ``dnn_logit_fn_builder`` and
  ``linear_logit_fn_builder`` logits (v1), Adagrad + Ftrl.
- ``families_rnn_simple_rnn``: ``RNNClassifier``, 3 classes, ``units=[4]``,
  ``cell_type='simple_rnn'``, a sequence numeric and a sequence embedding column.
- ``families_rnn_lstm``: binary ``RNNClassifier``, ``units=4``, ``cell_type='lstm'``.
- ``families_rnn_gru``: ``RNNEstimator`` with a ``RegressionHead``, an ``rnn_cell_fn`` of
  stacked GRU cells, a context column, Adam.
"""

import json
import os
import sys

import numpy as np

CASES = (
    "families_kmeans",
    "families_kmeans_pp",
    "families_logit_fns",
    "families_rnn_simple_rnn",
    "families_rnn_lstm",
    "families_rnn_gru",
)

STEPS = 40
BATCH = 16
MAX_LEN = 5
PAD = -1


def _points():
    rng = np.random.RandomState(7)
    centers = np.array([[0.0, 0.0], [4.0, 4.0], [-4.0, 3.0], [3.0, -4.0]], "float32")
    idx = rng.randint(0, 4, 64)
    return (centers[idx] + rng.normal(scale=0.7, size=(64, 2))).astype("float32")


def _run_kmeans(model_dir, pp):
    import tensorflow as tf

    points = _points()

    def train_input_fn():
        ds = tf.data.Dataset.from_tensor_slices({"p": points})
        # Every batch holds all points: choosing the initial centres reads one batch
        # (before step 0), so a run resumed from step 0 still sees the same batches.
        return ds.repeat().batch(64)

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices({"p": points}).batch(32)

    # Mini-batch updates race between threads: one thread each keeps runs reproducible.
    session = tf.compat.v1.ConfigProto(
        inter_op_parallelism_threads=1, intra_op_parallelism_threads=1
    )
    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=20, tf_random_seed=3, session_config=session
    )
    kmeans = tf.compat.v1.estimator.experimental.KMeans
    if pp:
        est = kmeans(
            num_clusters=3,
            initial_clusters=kmeans.KMEANS_PLUS_PLUS_INIT,
            distance_metric=kmeans.COSINE_DISTANCE,
            use_mini_batch=False,
            seed=11,
            config=config,
            feature_columns=[tf.feature_column.numeric_column("p", shape=[2])],
        )
    else:
        est = kmeans(
            num_clusters=4,
            use_mini_batch=True,
            mini_batch_steps_per_iteration=2,
            seed=5,
            config=config,
        )
    est.train(train_input_fn, max_steps=STEPS)
    preds = list(est.predict(eval_input_fn))
    return {
        "eval_metrics": est.evaluate(eval_input_fn),
        "predictions": [[float(v) for v in p["all_distances"]] for p in preds],
        "cluster_index": [int(p["cluster_index"]) for p in preds],
        "cluster_centers": est.cluster_centers().tolist(),
        "score": float(est.score(eval_input_fn)),
        "transform": [list(map(float, t)) for t in est.transform(eval_input_fn)],
    }


def families_kmeans(model_dir):
    return _run_kmeans(model_dir, pp=False)


def families_kmeans_pp(model_dir):
    return _run_kmeans(model_dir, pp=True)


def _tabular():
    rng = np.random.RandomState(11)
    x = rng.normal(size=(96, 3)).astype("float32")
    color = np.array(["red", "green", "blue"])[rng.randint(0, 3, 96)]
    y = (np.argmax(x, 1) + (color == "red")) % 3
    return {"x": x, "color": color}, y.astype("int64")


def families_logit_fns(model_dir):
    import tensorflow as tf

    features, labels = _tabular()
    fc = tf.feature_column
    color = fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"])
    dnn_columns = [fc.numeric_column("x", shape=[3]), fc.embedding_column(color, 2)]
    linear_columns = [fc.numeric_column("x", shape=[3]), color]
    experimental = tf.compat.v1.estimator.experimental

    def model_fn(features, labels, mode):
        dnn_fn = experimental.dnn_logit_fn_builder(
            units=3,
            hidden_units=[8, 4],
            feature_columns=dnn_columns,
            activation_fn=tf.nn.relu,
            dropout=None,
            input_layer_partitioner=None,
            batch_norm=False,
        )
        linear_fn = experimental.linear_logit_fn_builder(units=3, feature_columns=linear_columns)
        with tf.compat.v1.variable_scope("dnn"):
            dnn_logits = dnn_fn(features=features, mode=mode)
        with tf.compat.v1.variable_scope("linear"):
            linear_logits = linear_fn(features=features)
        logits = dnn_logits + linear_logits
        probs = tf.nn.softmax(logits)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"probabilities": probs})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        step = tf.compat.v1.train.get_global_step()
        v1 = tf.compat.v1
        dnn_vars = v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, "dnn")
        linear_vars = v1.get_collection(v1.GraphKeys.TRAINABLE_VARIABLES, "linear")
        train_op = tf.group(
            v1.train.AdagradOptimizer(0.1).minimize(loss, var_list=dnn_vars),
            v1.train.FtrlOptimizer(0.2).minimize(loss, var_list=linear_vars),
            v1.assign_add(step, 1),
        )
        metrics = {"accuracy": v1.metrics.accuracy(labels, tf.argmax(logits, 1))}
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metric_ops=metrics
        )

    def input_fn(train):
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        return ds.repeat().batch(BATCH) if train else ds.batch(32)

    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=20, tf_random_seed=9
    )
    est = tf.estimator.Estimator(model_fn, config=config)
    est.train(lambda: input_fn(True), max_steps=STEPS)
    metrics = est.evaluate(lambda: input_fn(False))
    preds = [p["probabilities"].tolist() for p in est.predict(lambda: input_fn(False))]
    return {"eval_metrics": metrics, "predictions": preds[:32]}


def _sequences():
    rng = np.random.RandomState(21)
    n = 64
    lengths = rng.randint(1, MAX_LEN + 1, n)
    values = rng.normal(size=(n, MAX_LEN)).astype("float32")
    tokens = rng.randint(0, 6, (n, MAX_LEN)).astype("int64")
    mask = np.arange(MAX_LEN)[None, :] < lengths[:, None]
    values = np.where(mask, values, PAD).astype("float32")
    tokens = np.where(mask, tokens, PAD).astype("int64")
    age = rng.uniform(0, 1, (n, 1)).astype("float32")
    score = (values * mask).sum(1) + 0.3 * (tokens == 2).sum(1)
    return {"price": values, "token": tokens, "age": age}, score.astype("float32")


def _to_sparse(features):
    import tensorflow as tf

    out = dict(features)
    for key in ("price", "token"):
        dense = features[key]
        idx = tf.where(tf.not_equal(dense, PAD))
        out[key] = tf.SparseTensor(
            idx, tf.gather_nd(dense, idx), tf.shape(dense, out_type=tf.int64)
        )
    return out


def _run_rnn(model_dir, cell):
    import tensorflow as tf

    features, score = _sequences()
    if cell == "simple_rnn":
        labels = np.digitize(score, [-0.5, 0.8]).astype("int64")
    elif cell == "lstm":
        labels = (score > 0.2).astype("int64")
    else:
        labels = score[:, None]

    fc = tf.feature_column
    token = fc.sequence_categorical_column_with_identity("token", num_buckets=6)
    columns = [fc.sequence_numeric_column("price"), fc.embedding_column(token, dimension=3)]
    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=20, tf_random_seed=4
    )
    exp = tf.estimator.experimental
    if cell == "simple_rnn":
        est = exp.RNNClassifier(
            sequence_feature_columns=columns,
            units=[4],
            cell_type="simple_rnn",
            n_classes=3,
            config=config,
        )
    elif cell == "lstm":
        est = exp.RNNClassifier(
            sequence_feature_columns=columns, units=4, cell_type="lstm", config=config
        )
    else:

        def rnn_cell_fn():
            cells = [tf.keras.layers.GRUCell(4), tf.keras.layers.GRUCell(3)]
            return tf.keras.layers.StackedRNNCells(cells)

        est = exp.RNNEstimator(
            head=tf.estimator.RegressionHead(),
            sequence_feature_columns=columns,
            context_feature_columns=[fc.numeric_column("age")],
            rnn_cell_fn=rnn_cell_fn,
            optimizer=tf.keras.optimizers.legacy.Adam(0.01),
            config=config,
        )

    def input_fn(train):
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        ds = ds.repeat().batch(BATCH) if train else ds.batch(32)
        return ds.map(lambda f, y: (_to_sparse(f), y))

    est.train(lambda: input_fn(True), max_steps=STEPS)
    metrics = est.evaluate(lambda: input_fn(False))
    key = "predictions" if cell == "gru" else "probabilities"
    preds = [p[key].tolist() for p in est.predict(lambda: input_fn(False))]
    return {"eval_metrics": metrics, "predictions": preds[:32]}


def families_rnn_simple_rnn(model_dir):
    return _run_rnn(model_dir, "simple_rnn")


def families_rnn_lstm(model_dir):
    return _run_rnn(model_dir, "lstm")


def families_rnn_gru(model_dir):
    return _run_rnn(model_dir, "gru")


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes its numbers to OUT_JSON."""
    import tensorflow as tf

    model_dir = os.path.abspath(model_dir)
    result = globals()[case](model_dir)
    ckpt = tf.train.latest_checkpoint(model_dir)
    result["variables"] = sorted(name for name, _ in tf.train.list_variables(ckpt))
    result["steps"] = STEPS
    with open(out_json, "w") as f:
        json.dump(_plain(result), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        sys.exit(f"usage: families_cases.py {{{','.join(CASES)}}} MODEL_DIR OUT_JSON")
    main(*sys.argv[1:])
