"""Data and output, with `tf = tf.compat.v1` after `import tensorflow as tf`."""
import json

import numpy as np
import tensorflow as tf

tf = tf.compat.v1


def data():
    rng = np.random.RandomState(0)
    x = rng.normal(size=(32, 4)).astype("float32")
    y = (x.sum(axis=1, keepdims=True) > 0).astype("float32")
    return tf.constant(x), tf.constant(y)


def write(numbers):
    tf.logging.info("writing %s", tf.flags.FLAGS.out)
    with tf.gfile.GFile(tf.flags.FLAGS.out, "w") as f:
        json.dump(numbers, f)
