"""Canned estimators of every family and feature column kind, their data, and helpers.

Importable as a module and usable as `cases.py:FACTORY` by `tfport keras export` /
`tfport verify` (each factory takes the model_dir).
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf

fc = tf.feature_column
COLORS = ["red", "green", "blue"]
TAGS = ["a", "b", "c", "d"]
ROWS = 16


def features(seed: int = 0) -> dict:
    """One batch: single- and multi-valent categorical features with OOV and pad values."""
    rng = np.random.RandomState(seed)
    tags = np.array(TAGS + ["zz", ""], dtype=object)[rng.randint(0, 6, (ROWS, 3))]
    tags[:, 0] = np.array(TAGS, dtype=object)[rng.randint(0, 4, ROWS)]
    tags[3] = ""  # a row with no value at all
    ident = rng.randint(-1, 8, (ROWS, 1)).astype("int64")  # -1: pad, 6 and 7: out of range
    tag_w = rng.uniform(0.5, 2.0, (ROWS, 3)).astype("float32")
    tag_w[tags == ""] = 0.0  # feature columns drop 0.0 weights as they drop '' values
    return {
        "x": rng.normal(size=(ROWS, 4)).astype("float32"),
        "color": np.array(COLORS + ["pink", ""], dtype=object)[rng.randint(0, 5, ROWS)],
        "tags": tags,
        "tag_w": tag_w,
        "h": np.array([f"k{i}" for i in rng.randint(0, 50, ROWS)], dtype=object).reshape(-1, 1),
        "ident": ident,
        "code": rng.choice([3, 7, 11, 42, 99, -1], (ROWS, 1)).astype("int64"),
    }


def labels(kind: str, seed: int = 0) -> np.ndarray:
    rng = np.random.RandomState(seed + 1)
    if kind == "regression":
        return rng.normal(size=(ROWS, 1)).astype("float32")
    if kind == "binary_vocab":
        return np.array(["no", "yes"], dtype=object)[rng.randint(0, 2, ROWS)].reshape(-1, 1)
    return rng.randint(0, 3 if kind == "multi" else 2, (ROWS, 1)).astype("int64")


def _x():
    return fc.numeric_column("x", shape=(4,))


def _color():
    return fc.categorical_column_with_vocabulary_list("color", COLORS)


def _tags(oov: int = 0):
    return fc.categorical_column_with_vocabulary_list("tags", TAGS, num_oov_buckets=oov)


def _bucket():
    return fc.bucketized_column(fc.numeric_column("x0"), [-1.0, 0.0, 0.5])


def _config(model_dir):
    return tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=3)


# --- the five canned goldens' configurations (legacy/scripts/estimator_cases.py) ---


def golden_canned_dnn(model_dir):
    return tf.compat.v1.estimator.DNNClassifier(
        hidden_units=[16, 8], feature_columns=[_x()], n_classes=3, config=_config(model_dir)
    )


def golden_canned_linear(model_dir):
    return tf.compat.v1.estimator.LinearClassifier(
        feature_columns=[_x(), _color()], n_classes=3, config=_config(model_dir)
    )


def golden_canned_combined(model_dir):
    return tf.compat.v1.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[_color()],
        dnn_feature_columns=[_x()],
        dnn_hidden_units=[16, 8],
        n_classes=3,
        config=_config(model_dir),
    )


def golden_canned_dnn_v2(model_dir):
    columns = [_x(), fc.embedding_column(_color(), dimension=2)]
    return tf.estimator.DNNClassifier(
        hidden_units=[16, 8],
        feature_columns=columns,
        n_classes=3,
        optimizer="Adam",
        config=_config(model_dir),
    )


def golden_canned_linear_regressor_v2(model_dir):
    return tf.estimator.LinearRegressor(feature_columns=[_x(), _color()], config=_config(model_dir))


# --- every feature column kind, every family, v1 and v2 ---


def dnn_columns_v2(model_dir):
    """Bucketized, indicator(hash), embedding(mean, multivalent, OOV buckets),
    embedding(identity, sqrtn), indicator(weighted)."""
    columns = [
        _x(),
        _bucket(),
        fc.indicator_column(fc.categorical_column_with_hash_bucket("h", 7)),
        fc.embedding_column(_tags(oov=2), 3, combiner="mean"),
        fc.embedding_column(fc.categorical_column_with_identity("ident", 8), 2, combiner="sqrtn"),
        fc.indicator_column(fc.weighted_categorical_column(_tags(), "tag_w")),
    ]
    return tf.estimator.DNNRegressor(
        hidden_units=[8, 4], feature_columns=columns, label_dimension=1, config=_config(model_dir)
    )


def linear_columns_v2(model_dir):
    """Vocabulary (multivalent), weighted, hashed, identity (default), int vocabulary with
    OOV buckets, bucketized, crossed; mean combiner; 3 classes."""
    columns = [
        _x(),
        _bucket(),
        _tags(),
        fc.weighted_categorical_column(
            fc.categorical_column_with_vocabulary_list("tags", TAGS), "tag_w"
        ),
        fc.categorical_column_with_hash_bucket("h", 11),
        fc.categorical_column_with_identity("ident", 6, default_value=0),
        fc.categorical_column_with_vocabulary_list(
            "code", [3, 7, 11], dtype=tf.int64, num_oov_buckets=3
        ),
        fc.crossed_column(["color", _bucket()], 13),
    ]
    return tf.estimator.LinearClassifier(
        feature_columns=columns,
        n_classes=3,
        sparse_combiner="mean",
        optimizer=tf.keras.optimizers.legacy.Ftrl(0.5),
        config=_config(model_dir),
    )


def combined_crossed_embedding_v1(model_dir):
    """Wide & deep, v1: crossed column on both sides (linear, and embedded in the DNN),
    string label vocabulary (binary)."""
    cross = fc.crossed_column(["color", "h"], 17)
    return tf.compat.v1.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[cross, _color(), fc.categorical_column_with_hash_bucket("h", 5)],
        dnn_feature_columns=[_x(), fc.embedding_column(cross, 3), fc.embedding_column(_tags(), 2)],
        dnn_hidden_units=[6],
        label_vocabulary=["no", "yes"],
        linear_optimizer=tf.compat.v1.train.FtrlOptimizer(0.5),
        config=_config(model_dir),
    )


def shared_embeddings_v2(model_dir):
    """Wide & deep, v2 `shared_embeddings`: one table (created at the root, legacy name
    `color_tags_shared_embedding`) read by a weighted multivalent column and a column with
    an OOV bucket, combiner sqrtn. TensorFlow makes shared embeddings in graph mode only
    (TF 2.15 too), hence the graph."""
    with tf.Graph().as_default():
        color = fc.categorical_column_with_vocabulary_list("color", COLORS, num_oov_buckets=1)
        tags = fc.weighted_categorical_column(_tags(), "tag_w")
        shared = fc.shared_embeddings([tags, color], dimension=3, combiner="sqrtn")
    return tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[_color()],
        dnn_feature_columns=[_x(), *shared],
        dnn_hidden_units=[5],
        n_classes=3,
        config=_config(model_dir),
    )


def shared_embedding_columns_v1(model_dir):
    """v1 `shared_embedding_columns` (the table under the input layer), combiner mean."""
    v1 = tf.compat.v1.feature_column
    with tf.Graph().as_default():
        color = v1.categorical_column_with_vocabulary_list("color", COLORS, num_oov_buckets=1)
        shared = v1.shared_embedding_columns([_tags(), color], dimension=2, combiner="mean")
    return tf.compat.v1.estimator.DNNRegressor(
        hidden_units=[4], feature_columns=[_x(), *shared], config=_config(model_dir)
    )


def dnn_batch_norm_v1(model_dir):
    return tf.compat.v1.estimator.DNNEstimator(
        head=tf.estimator.MultiClassHead(3),
        hidden_units=[5, 4],
        feature_columns=[_x(), fc.embedding_column(_color(), 2)],
        activation_fn=tf.nn.tanh,
        batch_norm=True,
        config=_config(model_dir),
    )


def linear_estimator_v1(model_dir):
    return tf.compat.v1.estimator.LinearEstimator(
        head=tf.estimator.RegressionHead(label_dimension=1),
        feature_columns=[_x(), fc.indicator_column(_color())],
        optimizer=tf.compat.v1.train.FtrlOptimizer(0.5),
        config=_config(model_dir),
    )


def baseline_v1(model_dir):
    return tf.compat.v1.estimator.BaselineClassifier(n_classes=3, config=_config(model_dir))


def baseline_v2(model_dir):
    return tf.estimator.BaselineRegressor(config=_config(model_dir), optimizer="Adam")


TRAINED = {  # name -> (factory, label kind, steps)
    "dnn_columns_v2": (dnn_columns_v2, "regression", 3),
    "linear_columns_v2": (linear_columns_v2, "multi", 3),
    "combined_crossed_embedding_v1": (combined_crossed_embedding_v1, "binary_vocab", 3),
    "dnn_batch_norm_v1": (dnn_batch_norm_v1, "multi", 3),
    "shared_embeddings_v2": (shared_embeddings_v2, "multi", 3),
    "shared_embedding_columns_v1": (shared_embedding_columns_v1, "regression", 3),
    "linear_estimator_v1": (linear_estimator_v1, "regression", 3),
    "baseline_v1": (baseline_v1, "multi", 3),
    "baseline_v2": (baseline_v2, "regression", 3),
}
GOLDENS = {
    "canned_dnn": golden_canned_dnn,
    "canned_linear": golden_canned_linear,
    "canned_combined": golden_canned_combined,
    "canned_dnn_v2": golden_canned_dnn_v2,
    "canned_linear_regressor_v2": golden_canned_linear_regressor_v2,
}


def with_x0(feats: dict) -> dict:
    """`x0`, the bucketized source, is the first column of `x`."""
    out = dict(feats)
    out["x0"] = feats["x"][:, :1].copy()
    return out


def input_fn(feats: dict, label_kind: str | None = None):
    def fn():
        data = (feats, labels(label_kind)) if label_kind else feats
        dataset = tf.data.Dataset.from_tensor_slices(data).batch(ROWS)
        return dataset.repeat() if label_kind else dataset

    return fn


def train(estimator, label_kind: str, steps: int) -> None:
    estimator.train(input_fn(with_x0(features(1)), label_kind), steps=steps)


def predict(estimator, feats: dict) -> dict:
    rows = list(estimator.predict(input_fn(feats)))
    return {key: np.stack([row[key] for row in rows]) for key in rows[0]}
