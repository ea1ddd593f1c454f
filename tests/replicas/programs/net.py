"""The regression net's programs, written the way users write them (run by `tfport run`).

    python net.py ROOT OUT_JSON CASE ...

Each CASE trains, evaluates and predicts (or exports) once on one device and once on
`mirrored:2` (`tfport.to_accelerator`, one process: both runs share one TensorFlow
start-up), each in its own model_dir under ROOT, seeded with `tf_random_seed` so both
start from the same weights. OUT_JSON maps `CASE/default` and `CASE/mirrored:2` to
`{"variables": ..., "metrics": ..., "predictions": ...}`, or to `{"error": "Type: message"}`
(its lines joined) when the run raised.

CASE:
  premade        the premade-estimator tutorial: DNNClassifier on iris-shaped data,
                 from_tensor_slices(...).shuffle(1000).repeat().batch(256); evaluation
                 on a partial batch
  feature_cols   the feature-column tutorial: a pandas DataFrame, numeric, bucketized,
                 vocabulary (indicator) and hashed (embedding) columns, pandas_input_fn
                 for training, numpy_input_fn for evaluation
  ctr            a CTR model: pandas input_fn, embedding columns, DNNLinearCombined
  ranking        a ranking pipeline: TFRecordDataset -> batch(B) -> parse_example (a
                 sparse VarLenFeature); training's input_fn returns an iterator's
                 tensors, reshaped to [B, LIST] (the batch as a number), evaluation's a
                 Dataset reshaped to [B, LIST, D] in its map; model_fn reshapes to
                 [-1, LIST, D]
  hub_module     a model_fn building its layers in its own variable_scope(None,
                 default_name=...) and make_template, exported with export_saved_model
  tfrecord_linear  a CTR library's tfrecord example: TFRecordDataset -> map(parse_single_
                 example) -> repeat(2) -> batch(64), finite (its short last batch: 44
                 rows), into a model_fn calling tf.compat.v1.feature_column.linear_model;
                 trained until the data ends, evaluated on 75 records (64 + 11)
  tpu_conv       ResNet-style TPUEstimator (use_tpu=False), conv2d + batch_normalization
                 from tf.compat.v1.layers, iterations_per_loop=2, TF1 control flow (a
                 v1 while_loop, as after disable_v2_behavior())
  tpu_conv_tpu   the same with use_tpu=True (TPUEstimator's CPU fallback)
"""

import json
import os
import sys

import numpy as np
import pandas as pd
import tensorflow as tf

import tfport

v1 = tf.compat.v1
fc = tf.feature_column
SEED = 11
STRATEGIES = ("default", "mirrored:2")


def _config(model_dir, **kwargs):
    return tf.estimator.RunConfig(
        model_dir=model_dir, tf_random_seed=SEED, save_checkpoints_steps=None, **kwargs
    )


def _variables(model_dir):
    reader = tf.train.load_checkpoint(model_dir)
    names = [n for n in reader.get_variable_to_shape_map() if not _slot(n)]
    return {n: np.asarray(reader.get_tensor(n)).tolist() for n in sorted(names)}


def _slot(name):
    return name.endswith(("/Adagrad", "/Adam", "/Adam_1", "/Momentum", "/Ftrl", "/Ftrl_1"))


def _numbers(value):
    return np.asarray(value, dtype=np.float64).tolist()


def _predictions(est, input_fn, key):
    return [_numbers(p[key]) for p in est.predict(input_fn)]


# --- premade: the premade-estimator tutorial ------------------------------------------

IRIS_COLUMNS = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth"]


def _iris(n, seed):
    rng = np.random.RandomState(seed)
    x = rng.uniform(0.5, 7.5, size=(n, 4)).astype("float32")
    y = (x[:, 2] > 3.0).astype("int64") + (x[:, 3] > 5.0).astype("int64")
    return pd.DataFrame(x, columns=IRIS_COLUMNS), pd.Series(y, name="Species")


def _iris_input(features, labels, training=True, batch_size=256):
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    if training:
        dataset = dataset.shuffle(1000).repeat()
    return dataset.batch(batch_size)


def premade(model_dir, wrap):
    train_x, train_y = _iris(120, 1)
    test_x, test_y = _iris(30, 2)
    columns = [fc.numeric_column(key=key) for key in IRIS_COLUMNS]
    classifier = wrap(
        tf.estimator.DNNClassifier(
            feature_columns=columns,
            hidden_units=[30, 10],
            n_classes=3,
            config=_config(model_dir),
        )
    )
    classifier.train(input_fn=lambda: _iris_input(train_x, train_y), steps=10)
    metrics = classifier.evaluate(
        input_fn=lambda: _iris_input(test_x, test_y, training=False, batch_size=16)
    )
    predict_x = {key: test_x[key].values[:5] for key in IRIS_COLUMNS}
    predictions = _predictions(
        classifier,
        lambda: tf.data.Dataset.from_tensor_slices(predict_x).batch(4),
        "probabilities",
    )
    return metrics, predictions


# --- feature_cols: the feature-column tutorial ----------------------------------------


def _pets(n, seed):
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(
        {
            "Age": rng.randint(1, 60, size=n).astype("int64"),
            "Fee": rng.uniform(0, 200, size=n).astype("float32"),
            "Type": rng.choice(["Dog", "Cat"], size=n),
            "Breed": rng.choice([f"breed{i}" for i in range(25)], size=n),
        }
    )
    target = ((frame["Age"] < 20) ^ (frame["Type"] == "Cat")).astype("int64")
    return frame, target


def _pet_columns():
    age = fc.numeric_column("Age")
    return [
        fc.numeric_column("Fee", normalizer_fn=lambda x: x / 100.0),
        fc.bucketized_column(age, boundaries=[5, 10, 20, 40]),
        fc.indicator_column(fc.categorical_column_with_vocabulary_list("Type", ["Dog", "Cat"])),
        fc.embedding_column(fc.categorical_column_with_hash_bucket("Breed", 16), dimension=4),
    ]


def feature_cols(model_dir, wrap):
    train, train_y = _pets(96, 3)
    test, test_y = _pets(37, 4)  # 37 = 32 + a partial batch of 5
    est = wrap(
        tf.estimator.DNNClassifier(
            feature_columns=_pet_columns(),
            hidden_units=[16, 8],
            optimizer="Adagrad",
            config=_config(model_dir),
        )
    )
    est.train(
        v1.estimator.inputs.pandas_input_fn(
            train, train_y, batch_size=32, num_epochs=None, shuffle=False
        ),
        steps=8,
    )
    metrics = est.evaluate(
        v1.estimator.inputs.numpy_input_fn(
            {key: test[key].values for key in test.columns},
            test_y.values,
            batch_size=32,
            num_epochs=1,
            shuffle=False,
        )
    )
    predictions = _predictions(
        est, v1.estimator.inputs.pandas_input_fn(test[:6], shuffle=False, batch_size=4), "logistic"
    )
    return metrics, predictions


# --- ctr: a CTR model on a pandas input_fn -------------------------------------------


def _clicks(n, seed):
    rng = np.random.RandomState(seed)
    frame = pd.DataFrame(
        {
            "user": np.array([f"u{i}" for i in rng.randint(0, 50, size=n)]),
            "item": np.array([f"i{i}" for i in rng.randint(0, 80, size=n)]),
            "hour": rng.randint(0, 24, size=n).astype("int64"),
            "price": rng.lognormal(size=n).astype("float32"),
        }
    )
    label = ((frame["hour"] > 12) ^ (frame["price"] > 1.0)).astype("int64")
    return frame, label


def ctr(model_dir, wrap):
    train, label = _clicks(160, 5)
    user = fc.categorical_column_with_hash_bucket("user", 32)
    item = fc.categorical_column_with_hash_bucket("item", 48)
    hour = fc.categorical_column_with_identity("hour", 24)
    est = wrap(
        tf.estimator.DNNLinearCombinedClassifier(
            linear_feature_columns=[user, item, hour, fc.crossed_column(["user", "hour"], 64)],
            dnn_feature_columns=[
                fc.embedding_column(user, 6),
                fc.embedding_column(item, 6),
                fc.numeric_column("price"),
            ],
            dnn_hidden_units=[16, 8],
            config=_config(model_dir),
        )
    )
    est.train(
        v1.estimator.inputs.pandas_input_fn(
            train, label, batch_size=40, num_epochs=2, shuffle=False
        ),
        steps=6,
    )
    metrics = est.evaluate(
        v1.estimator.inputs.pandas_input_fn(train[:50], label[:50], batch_size=40, shuffle=False)
    )
    predictions = _predictions(
        est, v1.estimator.inputs.pandas_input_fn(train[:6], shuffle=False), "logistic"
    )
    return metrics, predictions


# --- tfrecord_linear: a finite parse_single_example pipeline into a v1 linear_model -----

CLICK_SPEC = {
    "c1": tf.io.FixedLenFeature([1], tf.int64),
    "c2": tf.io.FixedLenFeature([1], tf.int64),
    "i1": tf.io.FixedLenFeature([1], tf.float32),
    "label": tf.io.FixedLenFeature([1], tf.float32),
}


def _click_records(path, n, seed):
    rng = np.random.RandomState(seed)
    with tf.io.TFRecordWriter(path) as writer:
        for _ in range(n):
            feature = {
                "c1": tf.train.Feature(int64_list=tf.train.Int64List(value=[rng.randint(10)])),
                "c2": tf.train.Feature(int64_list=tf.train.Int64List(value=[rng.randint(10)])),
                "i1": tf.train.Feature(float_list=tf.train.FloatList(value=[rng.rand()])),
                "label": tf.train.Feature(float_list=tf.train.FloatList(value=[rng.randint(2)])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())


def _click_input(path, epochs):
    def parse(record):
        features = tf.io.parse_single_example(record, features=CLICK_SPEC)
        return features, features.pop("label")

    def input_fn():
        return tf.data.TFRecordDataset(path).map(parse).repeat(epochs).batch(64)

    return input_fn


def _linear_model_fn(features, labels, mode):
    columns = [
        fc.categorical_column_with_identity("c1", 10),
        fc.categorical_column_with_identity("c2", 10),
        fc.numeric_column("i1"),
    ]
    logits = v1.feature_column.linear_model(features, columns)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"logits": logits})
    loss = v1.losses.sigmoid_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        accuracy = v1.metrics.accuracy(labels, tf.cast(logits > 0, tf.float32))
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"acc": accuracy})
    optimizer = v1.train.GradientDescentOptimizer(0.1)
    train_op = optimizer.minimize(loss, global_step=v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def tfrecord_linear(model_dir, wrap):
    os.makedirs(model_dir, exist_ok=True)
    train, test = os.path.join(model_dir, "train.tfr"), os.path.join(model_dir, "test.tfr")
    _click_records(train, 150, 3)
    _click_records(test, 75, 4)
    est = wrap(tf.estimator.Estimator(_linear_model_fn, config=_config(model_dir)))
    est.train(_click_input(train, 2))  # 300 rows: 4 batches of 64, then 44
    metrics = est.evaluate(_click_input(test, 1))  # 64, then 11 (6 + 5 on 2 replicas)
    predictions = _predictions(est, _click_input(test, 1), "logits")[:8]
    return metrics, predictions


# --- ranking: a tfrecord pipeline reshaping on the batch dimension ---------------------

LIST, DIM, BATCH = 4, 3, 8


def _ranking_records(path):
    rng = np.random.RandomState(6)
    with tf.io.TFRecordWriter(path) as writer:
        for _ in range(40):
            values = rng.normal(size=LIST * DIM).astype("float32")
            relevance = rng.randint(0, 3, size=LIST).astype("float32")
            feature = {
                "doc": tf.train.Feature(float_list=tf.train.FloatList(value=values)),
                "relevance": tf.train.Feature(float_list=tf.train.FloatList(value=relevance)),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())


def _ranking_dataset(path, epochs):
    spec = {
        "doc": tf.io.VarLenFeature(tf.float32),  # sparse, as list-of-examples parsers give
        "relevance": tf.io.FixedLenFeature([LIST], tf.float32),
    }
    dataset = tf.data.TFRecordDataset(path).repeat(epochs).batch(BATCH, drop_remainder=True)
    return dataset.map(lambda serialized: tf.io.parse_example(serialized, spec))


def _ranking_train_input(path):
    def input_fn():  # tensors from an iterator, reshaped with the batch as a number
        features = v1.data.make_one_shot_iterator(_ranking_dataset(path, None)).get_next()
        relevance = tf.reshape(features.pop("relevance"), [BATCH, LIST])
        return features, relevance

    return input_fn


def _ranking_eval_input(path):
    def input_fn():  # a Dataset, reshaped in its map
        def dense(features):
            docs = tf.reshape(tf.sparse.to_dense(features["doc"]), [BATCH, LIST, DIM])
            return {"doc": docs}, tf.reshape(features["relevance"], [BATCH, LIST])

        return _ranking_dataset(path, 1).map(dense)

    return input_fn


def _ranking_model_fn(features, labels, mode, params):
    docs = features["doc"]
    if isinstance(docs, tf.SparseTensor):
        docs = tf.sparse.to_dense(docs)
    docs = tf.reshape(docs, [-1, LIST, DIM])
    flat = tf.reshape(docs, [-1, DIM])
    hidden = v1.layers.dense(flat, 8, activation=tf.nn.relu, name="hidden")
    scores = tf.reshape(v1.layers.dense(hidden, 1, name="score"), [-1, LIST])
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"scores": scores})
    target = labels / tf.maximum(tf.reduce_sum(labels, axis=1, keepdims=True), 1e-6)
    loss = v1.losses.softmax_cross_entropy(target, scores)
    if mode == tf.estimator.ModeKeys.EVAL:
        top = tf.cast(tf.equal(tf.argmax(scores, 1), tf.argmax(labels, 1)), tf.float32)
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"top1": v1.metrics.mean(top)}
        )
    optimizer = v1.train.AdagradOptimizer(0.2)
    train_op = optimizer.minimize(loss, global_step=v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def ranking(model_dir, wrap):
    path = os.path.join(model_dir + "_data.tfrecord")
    _ranking_records(path)
    est = wrap(tf.estimator.Estimator(_ranking_model_fn, config=_config(model_dir)))
    est.train(_ranking_train_input(path), steps=8)
    metrics = est.evaluate(_ranking_eval_input(path))
    predictions = _predictions(est, _ranking_eval_input(path), "scores")[:8]
    return metrics, predictions


# --- hub_module: a module with its own variable scopes, exported ----------------------


def _tower(x):
    hidden = v1.layers.dense(x, 8, activation=tf.nn.tanh, name="hidden")
    return v1.layers.dense(hidden, 1, name="out")


def _hub_model_fn(features, labels, mode, params):
    with v1.variable_scope(None, default_name="module"):
        embed = v1.get_variable("embed", [4, 6], initializer=v1.glorot_uniform_initializer())
        x = tf.matmul(features["x"], embed)
    tower = v1.make_template("tower", _tower)
    logits = tower(x)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode,
            predictions={"score": tf.sigmoid(logits)},
            export_outputs={
                "serving_default": tf.estimator.export.PredictOutput({"score": tf.sigmoid(logits)})
            },
        )
    loss = v1.losses.sigmoid_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, eval_metric_ops={"auc": v1.metrics.auc(labels, tf.sigmoid(logits))}
        )
    train_op = v1.train.GradientDescentOptimizer(0.5).minimize(
        loss, global_step=v1.train.get_global_step()
    )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


HUB_X = np.random.RandomState(8).normal(size=(64, 4)).astype("float32")
HUB_Y = (HUB_X[:, :1] + HUB_X[:, 1:2] > 0).astype("float32")


def _hub_input(epochs):
    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": HUB_X}, HUB_Y)).repeat(epochs).batch(16)

    return input_fn


def hub_module(model_dir, wrap):
    est = wrap(tf.estimator.Estimator(_hub_model_fn, config=_config(model_dir)))
    est.train(_hub_input(None), steps=6)
    metrics = est.evaluate(_hub_input(1))

    def serving():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})

    export_dir = est.export_saved_model(os.path.join(model_dir, "export"), serving)
    loaded = tf.saved_model.load(export_dir)
    outputs = loaded.signatures["serving_default"](x=tf.constant(HUB_X[:6]))
    return metrics, _numbers(outputs["score"])


# --- tpu_conv: a ResNet-style TPUEstimator ---------------------------------------------

IMAGES = np.random.RandomState(9).uniform(size=(48, 8, 8, 3)).astype("float32")
CLASSES = np.random.RandomState(10).randint(0, 4, size=48).astype("int64")


def _conv_model_fn(features, labels, mode, params):
    training = mode == tf.estimator.ModeKeys.TRAIN
    init = v1.variance_scaling_initializer()  # ResNet's: a truncated normal
    x = v1.layers.conv2d(features, 8, 3, padding="same", use_bias=False, kernel_initializer=init)
    x = v1.layers.batch_normalization(x, training=training, momentum=0.9)
    x = tf.nn.relu(x)
    x = v1.layers.conv2d(x, 8, 3, strides=2, padding="same", kernel_initializer=init)
    x = tf.reduce_mean(x, axis=[1, 2])
    logits = v1.layers.dense(x, 4, kernel_initializer=v1.random_normal_initializer(stddev=0.01))
    if mode == tf.estimator.ModeKeys.PREDICT:
        return v1.estimator.tpu.TPUEstimatorSpec(mode, predictions={"logits": logits})
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:

        def metric_fn(labels, logits):
            return {"accuracy": v1.metrics.accuracy(labels, tf.argmax(logits, 1))}

        return v1.estimator.tpu.TPUEstimatorSpec(
            mode, loss=loss, eval_metrics=(metric_fn, [labels, logits])
        )
    optimizer = v1.train.MomentumOptimizer(0.1, 0.9)
    if params["use_tpu"]:
        optimizer = v1.tpu.CrossShardOptimizer(optimizer)
    with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, global_step=v1.train.get_global_step())
    return v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def _conv_input(params):
    dataset = tf.data.Dataset.from_tensor_slices((IMAGES, CLASSES))
    return dataset.repeat().batch(params["batch_size"], drop_remainder=True)


def _tpu_conv(model_dir, wrap, use_tpu):
    config = v1.estimator.tpu.RunConfig(
        model_dir=model_dir,
        tf_random_seed=SEED,
        save_checkpoints_steps=None,
        tpu_config=v1.estimator.tpu.TPUConfig(iterations_per_loop=2),
    )
    est = wrap(
        v1.estimator.tpu.TPUEstimator(
            model_fn=_conv_model_fn,
            config=config,
            use_tpu=use_tpu,
            train_batch_size=16,
            eval_batch_size=16,
            predict_batch_size=16,
            params={"use_tpu": use_tpu},
        )
    )
    est.train(_conv_input, steps=6)
    metrics = est.evaluate(_conv_input, steps=2)
    predictions = [_numbers(p["logits"]) for _, p in zip(range(4), est.predict(_conv_input))]
    return metrics, predictions


def _v1_control_flow(run):
    """`run()` with TF1 control flow, as programs calling `disable_v2_behavior()` have it
    (the steps-per-loop `while_loop` is then a v1 loop in the graph itself)."""
    v1.disable_control_flow_v2()
    try:
        return run()
    finally:
        v1.enable_control_flow_v2()


def tpu_conv(model_dir, wrap):
    return _v1_control_flow(lambda: _tpu_conv(model_dir, wrap, False))


def tpu_conv_tpu(model_dir, wrap):
    return _v1_control_flow(lambda: _tpu_conv(model_dir, wrap, True))


CASES = {
    f.__name__: f
    for f in (
        premade,
        feature_cols,
        ctr,
        tfrecord_linear,
        ranking,
        hub_module,
        tpu_conv,
        tpu_conv_tpu,
    )
}


def run(case, spec, strategy, root):
    model_dir = os.path.join(root, f"{case}_{spec.replace(':', '')}")
    try:
        metrics, predictions = CASES[case](
            model_dir, lambda est: tfport.to_accelerator(est, strategy)
        )
    except Exception as error:  # the net records which error a case raised
        lines = " | ".join(x.strip() for x in str(error).splitlines() if x.strip())
        return {"error": f"{type(error).__name__}: {lines[:1500]}"}
    return {
        "variables": _variables(model_dir),
        "metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": predictions,
    }


def main(argv):
    root, out, cases = argv[0], argv[1], argv[2:]
    strategies = {spec: tfport.distribute.resolve(spec) for spec in STRATEGIES}  # devices first
    results = {
        f"{case}/{spec}": run(case, spec, strategy, root)
        for case in cases
        for spec, strategy in strategies.items()
    }
    with open(out, "w") as f:
        json.dump(results, f)


if __name__ == "__main__":
    main(sys.argv[1:])
