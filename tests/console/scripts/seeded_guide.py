"""Seeded runs, written as the TF2 migration guide and the tutorials wrote them.

``python seeded_guide.py OUT_DIR``: trains four Estimators 10 steps each with
``RunConfig(tf_random_seed=7)`` (checkpoints at 0, 5, 10) on OUT_DIR/<name>: the guide's
TF2-style model_fn (tf.keras layers and metrics, ``tf.keras.optimizers.Adam`` with
``iterations = global_step`` and ``get_updates``), a ``tf.compat.v1.layers`` model_fn, a
``tf.keras.layers`` model_fn with dropout, and a canned DNNClassifier. Writes
OUT_DIR/out.json with each evaluation and one draw of Python's and numpy's global
generators (which the script never seeds).
"""

import json
import os
import random
import sys

import numpy as np
import tensorflow as tf

X = np.random.RandomState(0).normal(size=(64, 3)).astype("float32")
Y = (X.sum(1) > 0).astype("int64")


def train_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)


def eval_input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(32)


loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def tf2_model_fn(features, labels, mode):
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(4, kernel_regularizer="l2", input_shape=(3,)),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Dense(2),
        ]
    )
    training = mode == tf.estimator.ModeKeys.TRAIN
    predictions = model(features["x"], training=training)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)
    reg_losses = model.get_losses_for(None) + model.get_losses_for(features["x"])
    total_loss = loss_obj(labels, predictions) + tf.math.add_n(reg_losses)
    accuracy_obj = tf.keras.metrics.Accuracy(name="acc_obj")
    accuracy_obj.update_state(y_true=labels, y_pred=tf.math.argmax(predictions, axis=1))
    train_op = None
    if training:
        optimizer = tf.keras.optimizers.Adam()
        optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
        update_ops = model.get_updates_for(None) + model.get_updates_for(features["x"])
        minimize_op = optimizer.get_updates(total_loss, model.trainable_variables)[0]
        train_op = tf.group(minimize_op, *update_ops)
    return tf.estimator.EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=total_loss,
        train_op=train_op,
        eval_metric_ops={"Accuracy": accuracy_obj},
    )


def _spec(mode, labels, logits):
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    step = tf.compat.v1.train.get_global_step()
    train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def v1_layers_model_fn(features, labels, mode):
    hidden = tf.compat.v1.layers.dense(features["x"], 8, activation=tf.nn.relu)
    return _spec(mode, labels, tf.compat.v1.layers.dense(hidden, 2))


def keras_layers_model_fn(features, labels, mode):
    hidden = tf.keras.layers.Dense(8, activation="relu")(features["x"])
    hidden = tf.keras.layers.Dropout(0.3)(hidden, training=mode == "train")
    return _spec(mode, labels, tf.keras.layers.Dense(2)(hidden))


def main(out_dir):
    out = {}
    for name, model_fn in (
        ("tf2_guide", tf2_model_fn),
        ("v1_layers", v1_layers_model_fn),
        ("keras_layers", keras_layers_model_fn),
        ("canned_dnn", None),
    ):
        config = tf.estimator.RunConfig(
            model_dir=os.path.join(out_dir, name), save_checkpoints_steps=5, tf_random_seed=7
        )
        if model_fn is None:
            est = tf.estimator.DNNClassifier(
                [8], [tf.feature_column.numeric_column("x", shape=(3,))], config=config
            )
        else:
            est = tf.estimator.Estimator(model_fn, config=config)
        est.train(train_input_fn, max_steps=10)
        out[name] = {k: float(v) for k, v in est.evaluate(eval_input_fn).items()}
    out["python_random"] = random.random()
    out["numpy_random"] = float(np.random.rand())
    with open(os.path.join(out_dir, "out.json"), "w") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1])
