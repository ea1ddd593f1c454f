"""50 `tf.compat.v1.train.AdamOptimizer` steps of a small model (dense layers, a sparse
embedding column, seeded dropout, batch norm) from fixed initial weights.

``python library_adam.py library_adam OUT_DIR`` writes ``OUT_DIR/values.json``: the loss of
every step and every variable (Adam slots and beta powers included) after steps 1, 10 and
50. Issue 41 measured a fine-tune ending 1.5e-4 from legacy's loss; this case holds tfport
to legacy's numbers for Adam's dense and sparse updates over 50 steps.
"""

import json
import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

ARTIFACTS = ("library_adam",)
v1 = tf.compat.v1
rng = np.random.RandomState(11)
X = rng.normal(size=(64, 8)).astype("float32")
Y = (X @ rng.normal(size=(8, 1)) + 0.1 * rng.normal(size=(64, 1))).astype("float32")
W1 = rng.normal(size=(12, 16)).astype("float32") * 0.3
W2 = rng.normal(size=(16, 1)).astype("float32") * 0.3
IDS = rng.randint(0, 50, size=(64, 1)).astype("int64")
KEPT = (1, 10, 50)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X, "id": IDS}, Y)).repeat().batch(16)


class Record(v1.train.SessionRunHook):
    def __init__(self, out):
        self.out = out

    def begin(self):
        self.step = v1.train.get_global_step()
        self.loss = v1.get_collection(v1.GraphKeys.LOSSES)[0]
        self.vars = sorted(v1.global_variables(), key=lambda v: v.name)

    def before_run(self, run_context):
        return v1.train.SessionRunArgs(self.loss)

    def after_run(self, run_context, run_values):
        self.out["loss"].append(float(run_values.results))
        step = int(run_context.session.run(self.step))
        if step in KEPT:
            values = run_context.session.run(self.vars)
            self.out[str(step)] = {
                v.name: np.asarray(x).tolist() for v, x in zip(self.vars, values)
            }


def model_fn(features, labels, mode):
    ids = v1.feature_column.categorical_column_with_identity("id", 50)
    column = v1.feature_column.embedding_column(ids, 4, initializer=v1.constant_initializer(0.05))
    x = tf.concat([features["x"], v1.feature_column.input_layer(features, [column])], 1)
    x = v1.layers.dropout(x, 0.2, training=mode == "train", seed=3)
    x = v1.layers.batch_normalization(x, training=mode == "train")
    init1, init2 = v1.constant_initializer(W1), v1.constant_initializer(W2)
    h = v1.layers.dense(x, 16, activation=tf.nn.relu, kernel_initializer=init1, name="h")
    out = v1.layers.dense(h, 1, kernel_initializer=init2, name="out")
    loss = v1.losses.mean_squared_error(labels, out)
    with tf.control_dependencies(v1.get_collection(v1.GraphKeys.UPDATE_OPS)):
        train_op = v1.train.AdamOptimizer(0.01).minimize(
            loss, global_step=v1.train.get_global_step()
        )
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def record(model_dir):
    out = {"loss": []}
    config = tf.estimator.RunConfig(
        model_dir=model_dir, tf_random_seed=1, save_checkpoints_steps=1000
    )
    est = tf.estimator.Estimator(model_fn, config=config)
    est.train(input_fn, hooks=[Record(out)], max_steps=50)
    return out


def main(argv):
    name, out_dir = argv
    assert name == "library_adam", name
    os.makedirs(out_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as model_dir:
        values = record(model_dir)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(values, f, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
