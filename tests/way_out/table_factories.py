"""Custom model_fns over partitioned tables and raw string lookups, for `tfport keras
export`; loaded as a script under tfport.

`partitioned`: int ids looked up in partitioned embedding tables (`mod` and `div`
strategies, fixed-size and min-max partitioners, one left in one part) and dense layers
with partitioned kernels: no strings, so its export runs on JAX too. `strings`: a word hashed
(`to_hash_bucket_fast`, `to_hash_bucket_strong`) and looked up in vocabulary tables
(`StaticVocabularyTable` from a text file, `StaticHashTable`), plus feature columns with
a partitioned embedding through the v1 `DenseFeatures` layer.
"""

from __future__ import annotations

import os

import numpy as np
import tensorflow as tf

WORDS = ["paris", "lima", "oslo", "kyiv", "rome"]  # 'cairo' is out of every vocabulary
CODES = [10, 20, 30, 40]


def _train_spec(mode, labels, logits, predictions):
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.5)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def partitioned_model_fn(features, labels, mode):
    ids = features["ids"]
    with tf.compat.v1.variable_scope("words", partitioner=tf.compat.v1.fixed_size_partitioner(3)):
        words = tf.compat.v1.get_variable("table", [11, 4])  # parts of 4, 4, 3 rows
    by_mod = tf.compat.v1.nn.embedding_lookup(words, ids)  # partition_strategy='mod'
    partitioner = tf.compat.v1.min_max_variable_partitioner(max_partitions=2, min_slice_size=64)
    with tf.compat.v1.variable_scope("tags", partitioner=partitioner):
        tags = tf.compat.v1.get_variable("table", [11, 3])  # 132 bytes: parts of 6, 5 rows
    by_div = tf.nn.embedding_lookup(tags, ids)  # TF2's lookup: 'div'
    single = tf.compat.v1.min_max_variable_partitioner(max_partitions=4)  # 256K slices
    with tf.compat.v1.variable_scope("one", partitioner=single):  # one part each
        ones = tf.compat.v1.get_variable("table", [11, 2])
        net = [tf.reduce_mean(by_mod, 1), tf.reduce_max(by_div, 1)]
        net = tf.concat([*net, tf.reduce_sum(tf.nn.embedding_lookup(ones, ids), 1)], -1)
        net = tf.compat.v1.layers.dense(net, 5, activation=tf.nn.tanh, name="hidden")
    with tf.compat.v1.variable_scope("", partitioner=tf.compat.v1.fixed_size_partitioner(2)):
        logits = tf.compat.v1.layers.dense(net, 3, name="logits")  # a partitioned kernel
    return _train_spec(mode, labels, logits, logits)


def partitioned(model_dir):
    return tf.estimator.Estimator(partitioned_model_fn, model_dir=model_dir)


def _columns():
    fc = tf.feature_column
    city = fc.categorical_column_with_hash_bucket("word", 9)
    return [fc.embedding_column(city, 3, combiner="mean"), fc.numeric_column("code")]


def strings_model_fn(features, labels, mode, params):
    word, code = features["word"], features["code"]
    if params.get("legacy_hash"):  # `tf.strings.to_hash_bucket`: no Keras form
        hashed = tf.strings.to_hash_bucket(word, 6)
    else:
        hashed = tf.strings.to_hash_bucket_fast(word, 6)
    strong = tf.strings.to_hash_bucket_strong(word, 5, [7, 11])
    line, number = tf.lookup.TextFileIndex.WHOLE_LINE, tf.lookup.TextFileIndex.LINE_NUMBER
    init = tf.lookup.TextFileInitializer(params["vocabulary"], tf.string, line, tf.int64, number)
    vocab = tf.lookup.StaticVocabularyTable(init, num_oov_buckets=2).lookup(word)
    values = tf.constant([3, 0, 2, 1], tf.int64)
    by_code = tf.lookup.StaticHashTable(
        tf.lookup.KeyValueTensorInitializer(tf.constant(CODES, tf.int64), values), -1
    ).lookup(code)
    table = tf.compat.v1.get_variable("ids/embeddings", [6 + 5 + 7 + 5, 4])
    ids = tf.stack([hashed, strong + 6, vocab + 11, by_code + 19], axis=1)
    net = tf.reduce_sum(tf.nn.embedding_lookup(table, ids), axis=1)
    dense_features = tf.compat.v1.keras.layers.DenseFeatures(
        _columns(), partitioner=tf.compat.v1.fixed_size_partitioner(2)
    )
    net = tf.concat([net, dense_features(features)], -1)
    logits = tf.compat.v1.layers.dense(net, 2, name="logits")
    return _train_spec(mode, labels, logits, {"logits": logits})


def _vocabulary(model_dir) -> str:
    path = os.path.join(model_dir, "words.txt")
    with open(path, "w") as f:
        f.write("\n".join(WORDS) + "\n")
    return path


def strings(model_dir):
    params = {"vocabulary": _vocabulary(model_dir)}
    return tf.estimator.Estimator(strings_model_fn, model_dir=model_dir, params=params)


def legacy_hash(model_dir):
    """The same model_fn hashing with `tf.strings.to_hash_bucket` (refused)."""
    params = {"vocabulary": _vocabulary(model_dir), "legacy_hash": True}
    return tf.estimator.Estimator(strings_model_fn, model_dir=model_dir, params=params)


def rows(case: str, seed: int, n: int = 32) -> tuple[dict, np.ndarray]:
    """Features of `case` and labels."""
    rng = np.random.RandomState(seed)
    if case == "partitioned":
        ids = rng.randint(0, 11, (n, 3)).astype("int64")
        return {"ids": ids}, ids[:, 0] % 3
    feats = {
        "word": rng.choice([*WORDS, "cairo"], n),
        "code": rng.choice([*CODES, 50], n).astype("int64"),
    }
    feats["word"][0], feats["code"][0] = "cairo", 50  # out of every vocabulary
    return feats, (feats["code"] > 25).astype("int64")


def input_fn(feats: dict, labels: np.ndarray | None = None):
    def make():
        data = dict(feats) if labels is None else (dict(feats), labels)
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(8)
        return dataset if labels is None else dataset.repeat()

    return make
