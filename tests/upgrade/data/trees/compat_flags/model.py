"""The model, imported as `from tensorflow.compat import v1 as tf`."""
from tensorflow.compat import v1 as tf


def loss(x, y):
    w = tf.get_variable("w", [4, 8], initializer=tf.glorot_uniform_initializer())
    b = tf.get_variable("b", [8], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.matmul(x, w) + b)
    v = tf.get_variable("v", [8, 1], initializer=tf.random_normal_initializer(stddev=0.1))
    return tf.reduce_mean(tf.square(tf.matmul(h, v) - y), keep_dims=False)
