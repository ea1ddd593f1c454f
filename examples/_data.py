"""Small built-in data for the examples: 4 numeric features, a colour, 3 classes."""

import numpy as np

rng = np.random.RandomState(7)
X = rng.normal(size=(512, 4)).astype("float32")
COLOR = np.array(["red", "green", "blue"])[rng.randint(0, 3, 512)]
Y = np.argmax(X @ rng.normal(size=(4, 3)), 1).astype("int64")


def train_input_fn(batch=32):
    import tensorflow as tf

    return lambda: tf.data.Dataset.from_tensor_slices((X[:384], Y[:384])).repeat().batch(batch)


def eval_input_fn(batch=32):
    import tensorflow as tf

    return lambda: tf.data.Dataset.from_tensor_slices((X[384:], Y[384:])).batch(batch)
