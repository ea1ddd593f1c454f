"""The TF2 migration guide's model_fn style: Keras layers, a Keras optimizer whose
`iterations` is the global step, and Keras metrics as eval_metric_ops.

    tfport run examples/custom_model_fn_tf2.py OUT
"""

import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402

out = sys.argv[1]


def model_fn(features, labels, mode):
    model = tf.keras.Sequential(
        [tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(3)]
    )
    training = mode == tf.estimator.ModeKeys.TRAIN
    logits = model(features, training=training)
    loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction=tf.keras.losses.Reduction.SUM_OVER_BATCH_SIZE
    )
    loss = loss_obj(labels, logits)
    train_op = None
    if training:
        optimizer = tf.keras.optimizers.Adam(0.01)
        optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
        update_ops = model.get_updates_for(None) + model.get_updates_for(features)
        minimize_op = optimizer.get_updates(loss, model.trainable_variables)[0]
        train_op = tf.group(minimize_op, *update_ops)
    accuracy = tf.keras.metrics.Accuracy()
    accuracy.update_state(labels, tf.argmax(logits, 1))
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": accuracy}
    )


est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(out, "m"))
est.train(_data.train_input_fn(), max_steps=100)
print("accuracy", est.evaluate(_data.eval_input_fn())["accuracy"])
