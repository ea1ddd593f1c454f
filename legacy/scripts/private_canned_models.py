"""Legacy canned internals libraries construct directly: the Keras DNN models, the linear
model layer, the SDCA solver and its hash tables, the k-means model_fn (TF 2.15).

``python private_canned_models.py private_canned_models OUT_DIR`` writes
``OUT_DIR/values.json``. Variables get fixed values (``_fill``) before anything is computed,
so numbers do not depend on random initializers. SDCA's kernel visits a batch's examples in
an unseeded random order, so its steps are recorded after convergence (60 steps on four
examples). The test runs ``record()`` under tfport and compares.
"""

import collections
import os
import sys
import tempfile

import _values
import numpy as np
import tensorflow as tf
from tensorflow_estimator.python.estimator.canned import dnn, kmeans, linear
from tensorflow_estimator.python.estimator.canned.linear_optimizer.python.utils import (
    sdca_ops,
)
from tensorflow_estimator.python.estimator.canned.linear_optimizer.python.utils import (
    sharded_mutable_dense_hashtable as tables,
)

ARTIFACTS = ("private_canned_models",)
v1 = tf.compat.v1
SDCA_STEPS = 60


def _fill(variables):
    """Assigns each variable values from its name length and shape (deterministic)."""
    ops = []
    for v in variables:
        shape = v.shape.as_list()
        n = int(np.prod(shape)) if shape else 1
        values = np.linspace(-0.5, 0.7, n).reshape(shape) * (1 + len(v.op.name) % 3) / 2
        if "variance" in v.op.name:
            values = np.abs(values) + 0.25
        ops.append(v.assign(values.astype(v.dtype.as_numpy_dtype)))
    return tf.group(*ops)


def _names(variables):
    return sorted(v.op.name for v in variables)


def _columns():
    x = tf.feature_column.numeric_column("x", shape=(3,))
    c = tf.feature_column.categorical_column_with_vocabulary_list("c", ["a", "b", "c"])
    return x, c


def _features():
    return {
        "x": tf.constant([[1.0, 2.0, -1.0], [0.5, -0.5, 0.0]]),
        "c": tf.constant([["b"], ["c"]]),
    }


def _dnn_v1():
    out = {}
    for where in ("top", "scoped"):
        with tf.Graph().as_default():
            x, c = _columns()
            cols = [x, tf.feature_column.embedding_column(c, 2)]
            if where == "scoped":
                scope = v1.variable_scope("dnn", partitioner=None)
            else:
                scope = v1.variable_scope(v1.get_variable_scope())
            with scope:
                model = dnn._DNNModel(2, [3, 2], cols, tf.nn.relu, None, None, False, name="dnn")
                logits = model(_features(), tf.estimator.ModeKeys.PREDICT)
                again = model(_features(), tf.estimator.ModeKeys.EVAL)
            fill = _fill(v1.global_variables())
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                sess.run(v1.tables_initializer())
                sess.run(fill)
                got, got2 = sess.run([logits, again])
            out[where] = {
                "variables": _names(v1.global_variables()),
                "trainable_weights": _names(model.trainable_weights),
                "logits": got.tolist(),
                "second_call_same": bool(np.allclose(got, got2)),
                "summaries": sorted(
                    s.name.split(":")[0] for s in v1.get_collection(v1.GraphKeys.SUMMARIES)
                ),
            }
    return out


def _dnn_v2():
    out = {}
    for batch_norm in (False, True):
        with tf.Graph().as_default():
            x, c = _columns()
            cols = [x, tf.feature_column.indicator_column(c)]
            model = dnn._DNNModelV2(2, [4], cols, tf.nn.relu, None, batch_norm, name="dnn")
            logits = model(_features(), tf.estimator.ModeKeys.PREDICT)
            fill = _fill(v1.global_variables())
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                sess.run(v1.tables_initializer())
                sess.run(fill)
                got = sess.run(logits)
            out[f"batch_norm_{batch_norm}"] = {
                "variables": _names(v1.global_variables()),
                "trainable_weights": _names(model.trainable_weights),
                "logits": got.tolist(),
            }
    with tf.Graph().as_default():
        try:
            dnn._DNNModelV2(
                2, [4], [tf.compat.v1.feature_column.numeric_column("x")], tf.nn.relu, None, False
            )
            out["v1_columns"] = "accepted"
        except ValueError:
            out["v1_columns"] = "ValueError"
    return out


def _linear_layer():
    with tf.Graph().as_default():
        x, c = _columns()
        layer = linear._LinearModelLayer([x, c], units=2, name="linear_model")
        values = layer(_features())
        fill = _fill(v1.global_variables())
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(v1.tables_initializer())
            sess.run(fill)
            got = sess.run(values)
        config = layer.get_config()
        clone = linear._LinearModelLayer.from_config(config)
        return {
            "variables": _names(v1.global_variables()),
            "outputs": got.tolist(),
            "config": {k: config[k] for k in ("units", "sparse_combiner", "name", "trainable")},
            "config_columns": len(config["feature_columns"]),
            "clone": [type(clone).__name__, clone.name],
        }


def _sparse_column():
    with tf.Graph().as_default():
        col = sdca_ops._SparseFeatureColumn([0, 1, 1], [5, 6, 10], [1.0, 1.0, 0.5])
        bare = sdca_ops._SparseFeatureColumn(np.array([0, 2]), [2, 2], None)
        with v1.Session() as sess:
            got = sess.run([col.example_indices, col.feature_indices, col.feature_values])
            bare_got = sess.run([bare.example_indices, bare.feature_indices])
        return {
            "dtypes": [
                t.dtype.name for t in (col.example_indices, col.feature_indices, col.feature_values)
            ],
            "values": [g.tolist() for g in got],
            "bare": [g.tolist() for g in bare_got] + [bare.feature_values],
        }


def _prune():
    Pair = collections.namedtuple("Pair", ["id_tensor", "weight_tensor"])
    with tf.Graph().as_default():
        ids = tf.SparseTensor(
            [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 0]],
            tf.constant([3, 3, -1, 4, 1, 2], tf.int64),
            [3, 3],
        )
        weights = tf.SparseTensor(ids.indices, [0.5, 1.5, 9.0, 2.0, 1.0, 3.0], [3, 3])
        sdca = linear.LinearSDCA("id")
        out = {}
        for key, pair in (("weighted", Pair(ids, weights)), ("unweighted", Pair(ids, None))):
            col = sdca._prune_and_unique_sparse_ids(pair)
            with v1.Session() as sess:
                got = sess.run([col.example_indices, col.feature_indices, col.feature_values])
            out[key] = sorted(zip(*[g.tolist() for g in got]))
        return out


def _sdca_case(loss_type, l1, with_values):
    with tf.Graph().as_default():
        sparse_w = tf.Variable(tf.zeros([3]), name="sparse_w")
        dense_w = tf.Variable(tf.zeros([2]), name="dense_w")
        values = [1.0, 2.0, 1.0, 0.5, 1.0] if with_values else None
        examples = {
            "sparse_features": [
                sdca_ops._SparseFeatureColumn([0, 1, 1, 2, 3], [0, 1, 2, 0, 2], values)
            ],
            "dense_features": [tf.constant([[1.0, 0.5], [0.0, -1.0], [2.0, 1.0], [-1.0, 0.0]])],
            "example_labels": tf.constant([1.0, 0.0, 1.0, 0.0]),
            "example_weights": tf.constant([1.0, 1.0, 2.0, 1.0]),
            "example_ids": tf.constant(["a", "b", "c", "d"]),
        }
        variables = {"sparse_features_weights": [sparse_w], "dense_features_weights": [dense_w]}
        options = {
            "loss_type": loss_type,
            "symmetric_l1_regularization": l1,
            "symmetric_l2_regularization": 2.0,
            "adaptive": False,
        }
        model = sdca_ops._SDCAModel(examples, variables, options)
        step = model.update_weights(model.minimize())
        if not with_values:  # the losses multiply by the values: legacy fails without them
            try:
                model.unregularized_loss(examples)
                error = "accepted"
            except ValueError:
                error = "ValueError"
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                for _ in range(SDCA_STEPS):
                    sess.run(step)
                weights = sess.run([sparse_w, dense_w])
            return {"loss_error": error, "weights": [w.tolist() for w in weights]}
        losses = [
            model.unregularized_loss(examples),
            model.regularized_loss(examples),
            model.predictions(examples),
            model.approximate_duality_gap(),
        ]
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            before = sess.run(losses[:3])
            for _ in range(SDCA_STEPS):
                sess.run(step)
            after = sess.run(losses + [sparse_w, dense_w, model._hashtable.size()])
        return {
            "variables": _names(v1.global_variables()),
            "before": [float(before[0]), float(before[1]), before[2].tolist()],
            "after": [float(after[0]), float(after[1]), after[2].tolist(), float(after[3])],
            "weights": [after[4].tolist(), after[5].tolist()],
            "examples_seen": int(after[6]),
        }


def _sdca():
    out = {
        "logistic": _sdca_case("logistic_loss", 0.0, True),
        "squared_l1": _sdca_case("squared_loss", 0.2, True),
        "hinge_no_values": _sdca_case("hinge_loss", 0.0, False),
    }
    with tf.Graph().as_default():
        w = tf.Variable(tf.zeros([2]), name="w")
        ex = {
            "sparse_features": [],
            "dense_features": [tf.ones([2, 2])],
            "example_labels": tf.ones([2]),
            "example_weights": tf.ones([2]),
            "example_ids": tf.constant(["a", "b"]),
        }
        var = {"sparse_features_weights": [], "dense_features_weights": [w]}
        errors = {}
        for key, options in (
            (
                "loss",
                {
                    "loss_type": "bad",
                    "symmetric_l1_regularization": 0.0,
                    "symmetric_l2_regularization": 1.0,
                },
            ),
            (
                "l2",
                {
                    "loss_type": "squared_loss",
                    "symmetric_l1_regularization": 0.0,
                    "symmetric_l2_regularization": 0.0,
                },
            ),
            (
                "l1",
                {
                    "loss_type": "squared_loss",
                    "symmetric_l1_regularization": -1.0,
                    "symmetric_l2_regularization": 1.0,
                },
            ),
        ):
            try:
                sdca_ops._SDCAModel(ex, var, options)
                errors[key] = "accepted"
            except ValueError:
                errors[key] = "ValueError"
        try:
            sdca_ops._SDCAModel(
                dict(ex, dense_features=(tf.ones([2, 2]),)),
                var,
                {
                    "loss_type": "squared_loss",
                    "symmetric_l1_regularization": 0.0,
                    "symmetric_l2_regularization": 1.0,
                },
            )
            errors["not_list"] = "accepted"
        except ValueError as e:
            errors["not_list"] = str(e)
        out["errors"] = errors
        model = sdca_ops._SDCAModel(
            ex,
            var,
            {
                "loss_type": "squared_loss",
                "symmetric_l1_regularization": 0.5,
                "symmetric_l2_regularization": 4.0,
            },
        )
        step = model.minimize()
        hook = linear._SDCAUpdateWeightsHook(model, step)
        hook.begin()
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for _ in range(SDCA_STEPS):
                sess.run(hook.before_run(None).fetches)
            out["hook_weights"] = sess.run(w).tolist()
        out["options"] = [
            model._num_loss_partitions(),
            model._num_table_shards(),
            model._adaptive(),
            model._symmetric_l1_regularization(),
        ]
        out["slots"] = {k: _names(v) for k, v in sorted(model._slots.items())}
    return out


def _filled(keys, values, empty):
    """The (key, value) pairs of an export, empty buckets dropped, sorted."""
    keys = np.asarray(keys).reshape(len(keys), -1)[:, 0].tolist()
    values = np.asarray(values).reshape(len(keys), -1)[:, 0].tolist()
    return sorted((k, v) for k, v in zip(keys, values) if k != empty)


def _tables():
    out = {}
    with tf.Graph().as_default():
        table = tables._ShardedMutableDenseHashTable(
            tf.int64, tf.float32, -1.0, empty_key=-100, deleted_key=-101, num_shards=3, name="t"
        )
        keys = tf.constant([1, 2, 3, 4, 5, 6, 7], tf.int64)
        insert = table.insert(keys, tf.constant([0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5]))
        found = table.lookup(tf.constant([1, 5, 9, -3, 7], tf.int64))
        exported = table.export_sharded()
        pairs = tables._ShardedMutableDenseHashTable(
            tf.int64,
            tf.float32,
            [0.0, 0.0],
            empty_key=[0, 0],
            deleted_key=[1, 1],
            num_shards=2,
        )
        vec_keys = tf.constant([[2, 7], [3, 9], [-5, 4]], tf.int64)
        vec_insert = pairs.insert(vec_keys, tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        vec_found = pairs.lookup(tf.constant([[3, 9], [2, 8], [-5, 4]], tf.int64))
        single = tables._MutableDenseHashTable(tf.int64, tf.float32, 0.0, 0, 1, name="single")
        single_insert = single.insert(tf.constant([4, 5], tf.int64), tf.constant([4.0, 5.0]))
        saver = v1.train.Saver()
        with v1.Session() as sess:
            out["size_empty"] = int(sess.run(table.size()))
            sess.run([insert, vec_insert, single_insert])
            out["lookup"] = sess.run(found).tolist()
            out["size"] = int(sess.run(table.size()))
            keys_list, values_list = sess.run(exported)
            out["shards"] = [_filled(k, v, -100) for k, v in zip(keys_list, values_list)]
            out["vector_lookup"] = sess.run(vec_found).tolist()
            out["vector_size"] = int(sess.run(pairs.size()))
            out["single"] = [
                int(sess.run(single.size())),
                _filled(*sess.run(single.export()), 0),
                sess.run(single.lookup(tf.constant([5, 6], tf.int64))).tolist(),
            ]
            with tempfile.TemporaryDirectory() as folder:
                path = saver.save(sess, os.path.join(folder, "model.ckpt"))
                out["checkpoint"] = sorted(name for name, _ in tf.train.list_variables(path))
        out["names"] = [table.name, [s.name for s in table.table_shards], single.name]
        out["num_shards"] = table._num_shards
        try:
            table.lookup(tf.constant([1, 2], tf.int32))
            out["wrong_dtype"] = "accepted"
        except TypeError as e:
            out["wrong_dtype"] = str(e)
        try:
            table.insert(tf.zeros([1, 1, 1], tf.int64), tf.zeros([1]))
            out["rank3"] = "accepted"
        except ValueError as e:
            out["rank3"] = str(e)
    return out


def _kmeans():
    points = np.array([[0.0, 0.0], [0.2, 0.1], [5.0, 5.0], [5.2, 4.9], [0.1, -0.1]], np.float32)
    centers = np.array([[1.0, 1.0], [4.0, 4.0]], np.float32)
    out = {}
    with tf.Graph().as_default():
        v1.train.create_global_step()
        fn = kmeans._ModelFn(2, centers, "squared_euclidean", 1, False, 1, 2, 0.01, None)
        spec = fn.model_fn(
            tf.constant(points), tf.estimator.ModeKeys.TRAIN, tf.estimator.RunConfig()
        )
        out["spec"] = {
            "predictions": sorted(spec.predictions),
            "exports": sorted(spec.export_outputs),
            "metrics": sorted(spec.eval_metric_ops),
            "hooks": len(spec.training_hooks),
        }

    def input_fn():
        return tf.compat.v1.data.Dataset.from_tensors(points)

    def train_fn():
        return input_fn().repeat()

    with tempfile.TemporaryDirectory() as model_dir:
        est = kmeans.KMeansClustering(
            2, model_dir=model_dir, initial_clusters=centers, use_mini_batch=False
        )
        est.train(train_fn, max_steps=3)
        index = est._predict_one_key(input_fn, kmeans.KMeansClustering.CLUSTER_INDEX)
        out["cluster_index"] = [int(i) for i in index]
        distances = est._predict_one_key(input_fn, kmeans.KMeansClustering.ALL_DISTANCES)
        out["all_distances"] = [np.round(d, 5).tolist() for d in distances]
        out["centers"] = np.round(est.cluster_centers(), 5).tolist()
    return out


def record():
    return {
        "dnn_v1": _dnn_v1(),
        "dnn_v2": _dnn_v2(),
        "linear_layer": _linear_layer(),
        "sparse_column": _sparse_column(),
        "prune": _prune(),
        "sdca": _sdca(),
        "tables": _tables(),
        "kmeans": _kmeans(),
    }


if __name__ == "__main__":
    _values.main("private_canned_models", record, sys.argv[1:])
