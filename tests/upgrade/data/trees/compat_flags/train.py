"""Trains a tiny model for a few steps: TF 2.x-era code written against tf.compat.v1."""
import tensorflow.compat.v1 as tf

import model
import util

flags = tf.flags
FLAGS = flags.FLAGS
flags.DEFINE_string("out", None, "where to write the numbers (JSON)")
flags.DEFINE_integer("steps", 3, "training steps")

tf.disable_v2_behavior()


def main(_):
    tf.logging.set_verbosity(tf.logging.WARN)
    with tf.Graph().as_default():
        tf.set_random_seed(7)
        x, y = util.data()
        loss = model.loss(x, y)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        losses = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(FLAGS.steps):
                losses.append(float(sess.run([loss, train_op])[0]))
            weights = sess.run(tf.trainable_variables())
    util.write({"losses": losses, "weights": [w.tolist() for w in weights]})


if __name__ == "__main__":
    tf.app.run(main)
