"""A compiled Keras model becomes an Estimator and trains on every replica `tfport run
--strategy` gives it (the seed scenario).

    tfport run --strategy mirrored:2 examples/keras_to_estimator.py OUT
"""

import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _data  # noqa: E402

out = sys.argv[1]
model = tf.keras.Sequential(
    [
        tf.keras.layers.Dense(16, activation="relu", input_shape=(4,), name="hidden"),
        tf.keras.layers.Dense(3, name="logits"),
    ]
)
model.compile(
    optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9),
    loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
    metrics=["accuracy"],
)
est = tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=os.path.join(out, "m"))
# model_to_estimator names its inputs after the Keras input layer
key = model.input_names[0]


def wrap(fn):
    return lambda: fn().map(lambda x, y: ({key: x}, y))


est.train(wrap(_data.train_input_fn()), max_steps=100)
metrics = est.evaluate(wrap(_data.eval_input_fn()))
strategy = est.config.train_distribute  # tfport run --strategy mirrored:2 sets it
print("accuracy", metrics["accuracy"], "replicas", strategy.num_replicas_in_sync if strategy else 1)
