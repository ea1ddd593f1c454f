#!/usr/bin/env bash
# A TF1 source tree (tf.app.flags, tf.contrib.layers, tf.estimator) upgraded by
# `tfport upgrade`, then run with plain python.
#   bash examples/upgrade_tf1_tree.sh OUT
set -euo pipefail
out="$1"
mkdir -p "$out/tf1"
cat > "$out/tf1/train.py" <<'PY'
import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("model_dir", None, "where to train")
FLAGS = flags.FLAGS


def model_fn(features, labels, mode):
    hidden = tf.contrib.layers.fully_connected(features, 8)
    logits = tf.layers.dense(hidden, 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss, tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def input_fn():
    x = np.random.RandomState(0).normal(size=(64, 3)).astype("float32")
    y = (x[:, 0] > 0).astype("int64")
    return tf.data.Dataset.from_tensor_slices((x, y)).repeat().batch(16)


def main(_):
    est = tf.estimator.Estimator(model_fn, model_dir=FLAGS.model_dir)
    est.train(input_fn, max_steps=20)
    print("trained to", est.get_variable_value("global_step"))


if __name__ == "__main__":
    tf.app.run()
PY
tfport upgrade "$out/tf1" --out "$out/tf2" --report "$out/report.txt"
cat "$out/report.txt"
python "$out/tf2/train.py" --model_dir "$out/model"
