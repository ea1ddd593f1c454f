# coding=utf-8
"""Fine-tunes the tiny BERT-style model for sentence classification (TF1 TPUEstimator)."""

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import json
import os

import numpy as np
import modeling
import optimization
import tensorflow as tf

flags = tf.flags

FLAGS = flags.FLAGS

flags.DEFINE_string("bert_config_file", None, "The config json file of the model.")
flags.DEFINE_string("data_file", None, "TFRecord file (written with fake data if missing).")
flags.DEFINE_string("output_dir", None, "Where the checkpoints are written.")
flags.DEFINE_string("init_checkpoint", None, "Initial checkpoint (usually pre-trained).")
flags.DEFINE_integer("max_seq_length", 8, "Sequence length.")
flags.DEFINE_integer("num_labels", 2, "Number of classes.")
flags.DEFINE_integer("train_batch_size", 4, "Total batch size for training.")
flags.DEFINE_integer("eval_batch_size", 4, "Total batch size for eval.")
flags.DEFINE_float("learning_rate", 5e-5, "The initial learning rate for Adam.")
flags.DEFINE_integer("num_train_steps", 3, "Number of training steps.")
flags.DEFINE_integer("num_warmup_steps", 1, "Number of warmup steps.")
flags.DEFINE_integer("save_checkpoints_steps", 1000, "How often to save checkpoints.")
flags.DEFINE_integer("iterations_per_loop", 1, "Steps per estimator call.")
flags.DEFINE_bool("use_tpu", False, "Whether to use TPU or GPU/CPU.")


def write_fake_data(path, vocab_size, seq_length, num_labels, count=16):
  rng = np.random.RandomState(2)
  writer = tf.python_io.TFRecordWriter(path)
  for _ in range(count):
    label = rng.randint(0, num_labels)
    ids = rng.randint(1, vocab_size // 2, seq_length) + label * (vocab_size // 2 - 1)
    feature = lambda v: tf.train.Feature(int64_list=tf.train.Int64List(value=list(v)))
    features = {
        "input_ids": feature(ids),
        "input_mask": feature([1] * seq_length),
        "segment_ids": feature([0] * seq_length),
        "label_ids": feature([label]),
    }
    writer.write(tf.train.Example(
        features=tf.train.Features(feature=features)).SerializeToString())
  writer.close()


def create_model(bert_config, is_training, input_ids, input_mask, segment_ids, labels,
                 num_labels):
  model = modeling.BertModel(
      config=bert_config, is_training=is_training, input_ids=input_ids,
      input_mask=input_mask, token_type_ids=segment_ids)
  output_layer = model.get_pooled_output()
  hidden_size = output_layer.shape[-1].value
  output_weights = tf.get_variable(
      "output_weights", [num_labels, hidden_size],
      initializer=tf.truncated_normal_initializer(stddev=0.02))
  output_bias = tf.get_variable(
      "output_bias", [num_labels], initializer=tf.zeros_initializer())
  with tf.variable_scope("loss"):
    if is_training:
      output_layer = tf.nn.dropout(output_layer, keep_prob=0.9)
    logits = tf.nn.bias_add(tf.matmul(output_layer, output_weights, transpose_b=True),
                            output_bias)
    log_probs = tf.nn.log_softmax(logits, axis=-1)
    one_hot_labels = tf.one_hot(labels, depth=num_labels, dtype=tf.float32)
    per_example_loss = -tf.reduce_sum(one_hot_labels * log_probs, axis=-1)
    loss = tf.reduce_mean(per_example_loss)
    return (loss, per_example_loss, logits)


def model_fn_builder(bert_config, num_labels, init_checkpoint, learning_rate,
                     num_train_steps, num_warmup_steps, use_tpu):
  def model_fn(features, labels, mode, params):
    is_training = (mode == tf.estimator.ModeKeys.TRAIN)
    (total_loss, per_example_loss, logits) = create_model(
        bert_config, is_training, features["input_ids"], features["input_mask"],
        features["segment_ids"], features["label_ids"], num_labels)

    tvars = tf.trainable_variables()
    initialized_variable_names = {}
    scaffold_fn = None
    if init_checkpoint:
      (assignment_map, initialized_variable_names
      ) = modeling.get_assignment_map_from_checkpoint(tvars, init_checkpoint)
      if use_tpu:
        def tpu_scaffold():
          tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
          return tf.train.Scaffold()
        scaffold_fn = tpu_scaffold
      else:
        tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
    tf.logging.info("%d of %d variables from the checkpoint",
                    len(initialized_variable_names) // 2, len(tvars))

    if mode == tf.estimator.ModeKeys.TRAIN:
      train_op = optimization.create_optimizer(
          total_loss, learning_rate, num_train_steps, num_warmup_steps, use_tpu)
      return tf.contrib.tpu.TPUEstimatorSpec(
          mode=mode, loss=total_loss, train_op=train_op, scaffold_fn=scaffold_fn)

    def metric_fn(per_example_loss, label_ids, logits):
      predictions = tf.argmax(logits, axis=-1, output_type=tf.int32)
      accuracy = tf.metrics.accuracy(labels=label_ids, predictions=predictions)
      loss = tf.metrics.mean(values=per_example_loss)
      return {"eval_accuracy": accuracy, "eval_loss": loss}

    eval_metrics = (metric_fn, [per_example_loss, features["label_ids"], logits])
    return tf.contrib.tpu.TPUEstimatorSpec(
        mode=mode, loss=total_loss, eval_metrics=eval_metrics, scaffold_fn=scaffold_fn)

  return model_fn


def file_based_input_fn_builder(input_file, seq_length, is_training, drop_remainder):
  name_to_features = {
      "input_ids": tf.FixedLenFeature([seq_length], tf.int64),
      "input_mask": tf.FixedLenFeature([seq_length], tf.int64),
      "segment_ids": tf.FixedLenFeature([seq_length], tf.int64),
      "label_ids": tf.FixedLenFeature([], tf.int64),
  }

  def _decode_record(record, name_to_features):
    example = tf.parse_single_example(record, name_to_features)
    for name in list(example.keys()):
      t = example[name]
      if t.dtype == tf.int64:
        t = tf.to_int32(t)
      example[name] = t
    return example

  def input_fn(params):
    batch_size = params["batch_size"]
    d = tf.data.TFRecordDataset(input_file)
    if is_training:
      d = d.repeat()
    d = d.apply(tf.contrib.data.map_and_batch(
        lambda record: _decode_record(record, name_to_features),
        batch_size=batch_size, drop_remainder=drop_remainder))
    return d

  return input_fn


def main(_):
  tf.logging.set_verbosity(tf.logging.INFO)
  bert_config = modeling.BertConfig.from_json_file(FLAGS.bert_config_file)
  tf.gfile.MakeDirs(FLAGS.output_dir)
  if not tf.gfile.Exists(FLAGS.data_file):
    write_fake_data(FLAGS.data_file, bert_config.vocab_size, FLAGS.max_seq_length,
                    FLAGS.num_labels)
  run_config = tf.contrib.tpu.RunConfig(
      model_dir=FLAGS.output_dir,
      save_checkpoints_steps=FLAGS.save_checkpoints_steps,
      tf_random_seed=7,
      tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=FLAGS.iterations_per_loop))
  model_fn = model_fn_builder(
      bert_config, FLAGS.num_labels, FLAGS.init_checkpoint, FLAGS.learning_rate,
      FLAGS.num_train_steps, FLAGS.num_warmup_steps, FLAGS.use_tpu)
  estimator = tf.contrib.tpu.TPUEstimator(
      use_tpu=FLAGS.use_tpu, model_fn=model_fn, config=run_config,
      train_batch_size=FLAGS.train_batch_size, eval_batch_size=FLAGS.eval_batch_size)
  estimator.train(
      input_fn=file_based_input_fn_builder(FLAGS.data_file, FLAGS.max_seq_length, True, True),
      max_steps=FLAGS.num_train_steps)
  result = estimator.evaluate(
      input_fn=file_based_input_fn_builder(FLAGS.data_file, FLAGS.max_seq_length, False, True),
      steps=2)
  output_eval_file = os.path.join(FLAGS.output_dir, "eval_results.json")
  with tf.gfile.GFile(output_eval_file, "w") as writer:
    writer.write(json.dumps({k: float(v) for k, v in result.items()}))
  print("eval", json.dumps({k: float(v) for k, v in sorted(result.items())}))


if __name__ == "__main__":
  flags.mark_flag_as_required("bert_config_file")
  flags.mark_flag_as_required("data_file")
  flags.mark_flag_as_required("output_dir")
  tf.app.run()
