"""A small CNN Estimator in the style of the 2018 official models (TF1)."""

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import json

import numpy as np
import tensorflow as tf

tf.app.flags.DEFINE_string("model_dir", None, "Where checkpoints go.")
tf.app.flags.DEFINE_integer("train_steps", 4, "Training steps.")
tf.app.flags.DEFINE_float("weight_decay", 1e-4, "L2 regularization scale.")
FLAGS = tf.app.flags.FLAGS


def cnn_model_fn(features, labels, mode, params):
  regularizer = tf.contrib.layers.l2_regularizer(scale=FLAGS.weight_decay)
  x = tf.reshape(features["image"], [-1, 8, 8, 1])
  x = tf.layers.conv2d(
      x, filters=4, kernel_size=3, padding="same", activation=tf.nn.relu,
      kernel_initializer=tf.contrib.layers.variance_scaling_initializer(),
      kernel_regularizer=regularizer, name="conv1")
  x = tf.layers.max_pooling2d(x, pool_size=2, strides=2)
  x = tf.contrib.layers.flatten(x)
  x = tf.contrib.layers.fully_connected(
      x, 8, weights_initializer=tf.contrib.layers.xavier_initializer(),
      weights_regularizer=regularizer, scope="fc1")
  logits = tf.layers.dense(
      x, params["num_classes"], kernel_initializer=tf.contrib.layers.xavier_initializer(),
      name="logits")
  predictions = {"classes": tf.argmax(logits, axis=1)}
  if mode == tf.estimator.ModeKeys.PREDICT:
    return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions)
  loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
  loss += tf.losses.get_regularization_loss()
  if mode == tf.estimator.ModeKeys.TRAIN:
    optimizer = tf.train.MomentumOptimizer(learning_rate=0.05, momentum=0.9)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
      train_op = optimizer.minimize(loss, tf.train.get_or_create_global_step())
    return tf.estimator.EstimatorSpec(mode=mode, loss=loss, train_op=train_op)
  metrics = {"accuracy": tf.metrics.accuracy(labels, predictions["classes"])}
  return tf.estimator.EstimatorSpec(mode=mode, loss=loss, eval_metric_ops=metrics)


def input_fn():
  rng = np.random.RandomState(0)
  images = rng.normal(size=(32, 64)).astype(np.float32)
  labels = (images[:, :32].sum(axis=1) > 0).astype(np.int32)
  dataset = tf.data.Dataset.from_tensor_slices(({"image": images}, labels))
  return dataset.repeat().batch(8)


def main(_):
  classifier = tf.estimator.Estimator(
      model_fn=cnn_model_fn, model_dir=FLAGS.model_dir, params={"num_classes": 2},
      config=tf.estimator.RunConfig(tf_random_seed=3))
  classifier.train(input_fn=input_fn, max_steps=FLAGS.train_steps)
  result = classifier.evaluate(input_fn=input_fn, steps=2)
  names = sorted(classifier.get_variable_names())
  print(json.dumps({"accuracy": float(result["accuracy"]), "variables": names}))


if __name__ == "__main__":
  tf.app.run(main)
