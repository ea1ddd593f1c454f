"""The Keras network of `keras_to_estimator.py` inside a TPUEstimator model_fn: the same
model_fn (CrossShardOptimizer, TPUEstimatorSpec, params["batch_size"]) runs on CPUs and GPUs.

    tfport run examples/keras_to_tpu_estimator.py OUT
"""

import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402

tpu = tf.compat.v1.estimator.tpu
out = sys.argv[1]


def model_fn(features, labels, mode, params):
    net = tf.keras.Sequential(
        [tf.keras.layers.Dense(16, activation="relu"), tf.keras.layers.Dense(3)]
    )
    logits = net(features)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    if params["use_tpu"]:
        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
    train_op = optimizer.minimize(
        loss, var_list=net.trainable_variables, global_step=tf.compat.v1.train.get_global_step()
    )

    def metric_fn(labels, logits):
        return {"accuracy": tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))}

    return tpu.TPUEstimatorSpec(
        mode, loss=loss, train_op=train_op, eval_metrics=(metric_fn, [labels, logits])
    )


def input_fn(params):
    fn = _data.train_input_fn(params["batch_size"])
    return fn().map(lambda x, y: (x, y))


def eval_fn(params):
    import tensorflow as tf

    ds = tf.data.Dataset.from_tensor_slices((_data.X[384:], _data.Y[384:]))
    return ds.batch(params["batch_size"], drop_remainder=True)


config = tpu.RunConfig(
    model_dir=os.path.join(out, "m"), tpu_config=tpu.TPUConfig(iterations_per_loop=10)
)
est = tpu.TPUEstimator(
    model_fn, config=config, use_tpu=True, train_batch_size=32, eval_batch_size=32
)
est.train(input_fn, max_steps=100)
print("accuracy", est.evaluate(eval_fn, steps=4)["accuracy"])
