"""An encoder block as TF 1.x language models wrote it."""
import tensorflow as tf


def dense(x, units, name):
    with tf.variable_scope(name):
        w = tf.get_variable("kernel", [x.shape[-1].value, units],
                            initializer=tf.truncated_normal_initializer(stddev=0.02))
        b = tf.get_variable("bias", [units], initializer=tf.zeros_initializer())
        return tf.tensordot(x, w, axes=1) + b


def block(x, hidden):
    with tf.variable_scope("block"):
        h = tf.nn.relu(dense(x, hidden, "dense"))
        h = tf.contrib.layers.layer_norm(h, begin_norm_axis=-1, begin_params_axis=-1)
        dropped = tf.nn.dropout(h, 0.8, seed=5)
        noise = tf.random_uniform(tf.shape(h), seed=6)
        pooled = tf.reduce_mean(dropped + noise, axis=1, keep_dims=True)
        length = tf.to_float(tf.shape(h)[1])
        picked = tf.argmax(tf.squeeze(pooled, [1]), dimension=1)
        return {"normed": h, "pooled": pooled / length, "picked": picked}
