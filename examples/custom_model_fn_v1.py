"""A TF1-style custom model_fn: `tf.compat.v1` layers, optimizer, metrics and an export.

tfport run examples/custom_model_fn_v1.py OUT
"""

import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402

v1 = tf.compat.v1
out = sys.argv[1]


def model_fn(features, labels, mode):
    hidden = v1.layers.dense(features, 16, activation=tf.nn.relu, name="hidden")
    logits = v1.layers.dense(hidden, 3, name="logits")
    predictions = {"class_ids": tf.argmax(logits, 1), "probabilities": tf.nn.softmax(logits)}
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode,
            predictions=predictions,
            export_outputs={"serving_default": tf.estimator.export.PredictOutput(predictions)},
        )
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = v1.train.AdamOptimizer(0.01).minimize(loss, global_step=v1.train.get_global_step())
    metrics = {"accuracy": v1.metrics.accuracy(labels, predictions["class_ids"])}
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op, eval_metric_ops=metrics)


est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(out, "m"))
est.train(_data.train_input_fn(), max_steps=100)
print("accuracy", est.evaluate(_data.eval_input_fn())["accuracy"])


def serving_input_receiver_fn():
    x = v1.placeholder(tf.float32, [None, 4], name="x")
    return tf.estimator.export.TensorServingInputReceiver(x, {"x": x})


export = est.export_saved_model(os.path.join(out, "export"), serving_input_receiver_fn)
print("exported", export.decode())
