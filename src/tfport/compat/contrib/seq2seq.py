"""`tf.contrib.seq2seq.sequence_loss`: weighted softmax cross-entropy over sequences.

(The decoder and attention classes have no TF 2.21 equivalent; `tfport upgrade`
reports them.)

Example:
    >>> sequence_loss.__name__
    'sequence_loss'
"""

from __future__ import annotations

from tfport.compat.contrib._tf import v1


def sequence_loss(
    logits,
    targets,
    weights,
    average_across_timesteps: bool = True,
    average_across_batch: bool = True,
    sum_over_timesteps: bool = False,
    sum_over_batch: bool = False,
    softmax_loss_function=None,
    name=None,
):
    """Loss of `logits` [batch, time, classes] against `targets` [batch, time], as TF1's contrib."""
    tf = v1()
    if (average_across_timesteps and sum_over_timesteps) or (
        average_across_batch and sum_over_batch
    ):
        raise ValueError("average_across_* and sum_over_* cannot both be True for one axis")
    with tf.name_scope(name, "sequence_loss", [logits, targets, weights]):
        classes = tf.shape(logits)[2]
        flat_logits = tf.reshape(logits, [-1, classes])
        flat_targets = tf.reshape(targets, [-1])
        if softmax_loss_function is None:
            crossent = tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=flat_targets, logits=flat_logits
            )
        else:
            crossent = softmax_loss_function(labels=flat_targets, logits=flat_logits)
        crossent *= tf.reshape(weights, [-1])
        if average_across_timesteps and average_across_batch:
            return tf.reduce_sum(crossent) / (tf.reduce_sum(weights) + 1e-12)
        if sum_over_timesteps and sum_over_batch:
            return tf.reduce_sum(crossent) / (
                tf.cast(tf.math.count_nonzero(weights), crossent.dtype) + 1e-12
            )
        batch, steps = tf.shape(logits)[0], tf.shape(logits)[1]
        crossent = tf.reshape(crossent, [batch, steps])
        if average_across_timesteps or average_across_batch:
            axis = 1 if average_across_timesteps else 0
            return tf.reduce_sum(crossent, axis) / (tf.reduce_sum(weights, axis) + 1e-12)
        if sum_over_timesteps or sum_over_batch:
            axis = 1 if sum_over_timesteps else 0
            nonzero = tf.cast(tf.math.count_nonzero(weights, axis), crossent.dtype)
            return tf.reduce_sum(crossent, axis) / (nonzero + 1e-12)
        return crossent
