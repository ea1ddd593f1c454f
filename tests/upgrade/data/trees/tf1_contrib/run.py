"""Runs one encoder block on fixed tokens: TF 1.x code (tf.contrib, tf.flags)."""
import json

import numpy as np
import tensorflow as tf

import encoder

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("out", None, "where to write the numbers (JSON)")
flags.DEFINE_integer("hidden", 16, "hidden units")


def main(_):
    tf.logging.set_verbosity(tf.logging.WARN)
    tokens = np.random.RandomState(1).normal(size=(4, 6, 16)).astype(np.float32)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 6, 16])
        out = encoder.block(x, FLAGS.hidden)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(out, {x: tokens})
            names = sorted(v.op.name for v in tf.global_variables())
    numbers = {k: v.tolist() for k, v in values.items()}
    numbers["variables"] = names
    with tf.gfile.GFile(FLAGS.out, "w") as f:
        json.dump(numbers, f)


if __name__ == "__main__":
    flags.mark_flag_as_required("out")
    tf.app.run()
