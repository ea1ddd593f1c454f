# coding=utf-8
"""Masked-LM + next-sentence pretraining with TPUEstimator (TF1 style, tiny)."""

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import os

import numpy as np
import modeling
import optimization
import tensorflow as tf

flags = tf.flags

FLAGS = flags.FLAGS

flags.DEFINE_string("bert_config_file", None, "The config json file of the model.")
flags.DEFINE_string("input_file", None, "TFRecord file (written with fake data if missing).")
flags.DEFINE_string("output_dir", None, "Where the checkpoints are written.")
flags.DEFINE_string("init_checkpoint", None, "Initial checkpoint.")
flags.DEFINE_integer("max_seq_length", 8, "Sequence length.")
flags.DEFINE_integer("max_predictions_per_seq", 2, "Masked positions per sequence.")
flags.DEFINE_integer("train_batch_size", 4, "Total batch size for training.")
flags.DEFINE_float("learning_rate", 5e-5, "The initial learning rate for Adam.")
flags.DEFINE_integer("num_train_steps", 2, "Number of training steps.")
flags.DEFINE_integer("num_warmup_steps", 1, "Number of warmup steps.")
flags.DEFINE_integer("save_checkpoints_steps", 1000, "How often to save checkpoints.")
flags.DEFINE_integer("iterations_per_loop", 1, "Steps per estimator call.")
flags.DEFINE_bool("use_tpu", False, "Whether to use TPU or GPU/CPU.")


def write_fake_data(path, vocab_size, seq_length, num_predictions, count=16):
  rng = np.random.RandomState(1)
  writer = tf.python_io.TFRecordWriter(path)
  for _ in range(count):
    def ints(values):
      return tf.train.Feature(int64_list=tf.train.Int64List(value=list(values)))
    features = {
        "input_ids": ints(rng.randint(1, vocab_size, seq_length)),
        "input_mask": ints([1] * seq_length),
        "segment_ids": ints([0] * (seq_length // 2) + [1] * (seq_length - seq_length // 2)),
        "masked_lm_positions": ints(rng.randint(1, seq_length, num_predictions)),
        "masked_lm_ids": ints(rng.randint(1, vocab_size, num_predictions)),
        "masked_lm_weights": tf.train.Feature(
            float_list=tf.train.FloatList(value=[1.0] * num_predictions)),
        "next_sentence_labels": ints([rng.randint(0, 2)]),
    }
    example = tf.train.Example(features=tf.train.Features(feature=features))
    writer.write(example.SerializeToString())
  writer.close()


def gather_indexes(sequence_tensor, positions):
  shape = modeling.get_shape_list(sequence_tensor, expected_rank=3)
  batch_size, seq_length, width = shape[0], shape[1], shape[2]
  flat_offsets = tf.reshape(tf.range(0, batch_size, dtype=tf.int32) * seq_length, [-1, 1])
  flat_positions = tf.reshape(positions + flat_offsets, [-1])
  flat_sequence_tensor = tf.reshape(sequence_tensor, [batch_size * seq_length, width])
  return tf.gather(flat_sequence_tensor, flat_positions)


def get_masked_lm_output(bert_config, input_tensor, output_weights, positions,
                         label_ids, label_weights):
  input_tensor = gather_indexes(input_tensor, positions)
  with tf.variable_scope("cls/predictions"):
    with tf.variable_scope("transform"):
      input_tensor = tf.layers.dense(
          input_tensor, units=bert_config.hidden_size, activation=modeling.gelu,
          kernel_initializer=modeling.create_initializer(bert_config.initializer_range))
      input_tensor = modeling.layer_norm(input_tensor)
    output_bias = tf.get_variable(
        "output_bias", shape=[bert_config.vocab_size], initializer=tf.zeros_initializer())
    logits = tf.matmul(input_tensor, output_weights, transpose_b=True)
    log_probs = tf.nn.log_softmax(tf.nn.bias_add(logits, output_bias), axis=-1)
    label_ids = tf.reshape(label_ids, [-1])
    label_weights = tf.reshape(label_weights, [-1])
    one_hot_labels = tf.one_hot(label_ids, depth=bert_config.vocab_size, dtype=tf.float32)
    per_example_loss = -tf.reduce_sum(log_probs * one_hot_labels, axis=[-1])
    loss = tf.reduce_sum(label_weights * per_example_loss) / (
        tf.reduce_sum(label_weights) + 1e-5)
  return loss


def get_next_sentence_output(bert_config, input_tensor, labels):
  with tf.variable_scope("cls/seq_relationship"):
    output_weights = tf.get_variable(
        "output_weights", shape=[2, bert_config.hidden_size],
        initializer=modeling.create_initializer(bert_config.initializer_range))
    output_bias = tf.get_variable("output_bias", shape=[2], initializer=tf.zeros_initializer())
    logits = tf.nn.bias_add(tf.matmul(input_tensor, output_weights, transpose_b=True),
                            output_bias)
    log_probs = tf.nn.log_softmax(logits, axis=-1)
    one_hot_labels = tf.one_hot(tf.reshape(labels, [-1]), depth=2, dtype=tf.float32)
    return tf.reduce_mean(-tf.reduce_sum(one_hot_labels * log_probs, axis=-1))


def model_fn_builder(bert_config, init_checkpoint, learning_rate, num_train_steps,
                     num_warmup_steps, use_tpu):
  def model_fn(features, labels, mode, params):
    is_training = (mode == tf.estimator.ModeKeys.TRAIN)
    model = modeling.BertModel(
        config=bert_config, is_training=is_training, input_ids=features["input_ids"],
        input_mask=features["input_mask"], token_type_ids=features["segment_ids"])
    masked_lm_loss = get_masked_lm_output(
        bert_config, model.get_sequence_output(), model.get_embedding_table(),
        features["masked_lm_positions"], features["masked_lm_ids"],
        features["masked_lm_weights"])
    next_sentence_loss = get_next_sentence_output(
        bert_config, model.get_pooled_output(), features["next_sentence_labels"])
    total_loss = masked_lm_loss + next_sentence_loss

    tvars = tf.trainable_variables()
    scaffold_fn = None
    if init_checkpoint:
      (assignment_map, _) = modeling.get_assignment_map_from_checkpoint(tvars, init_checkpoint)
      if use_tpu:
        def tpu_scaffold():
          tf.train.init_from_checkpoint(init_checkpoint, assignment_map)
          return tf.train.Scaffold()
        scaffold_fn = tpu_scaffold
      else:
        tf.train.init_from_checkpoint(init_checkpoint, assignment_map)

    train_op = optimization.create_optimizer(
        total_loss, learning_rate, num_train_steps, num_warmup_steps, use_tpu)
    return tf.contrib.tpu.TPUEstimatorSpec(
        mode=mode, loss=total_loss, train_op=train_op, scaffold_fn=scaffold_fn)

  return model_fn


def input_fn_builder(input_files, max_seq_length, max_predictions_per_seq, is_training):
  def input_fn(params):
    batch_size = params["batch_size"]
    name_to_features = {
        "input_ids": tf.FixedLenFeature([max_seq_length], tf.int64),
        "input_mask": tf.FixedLenFeature([max_seq_length], tf.int64),
        "segment_ids": tf.FixedLenFeature([max_seq_length], tf.int64),
        "masked_lm_positions": tf.FixedLenFeature([max_predictions_per_seq], tf.int64),
        "masked_lm_ids": tf.FixedLenFeature([max_predictions_per_seq], tf.int64),
        "masked_lm_weights": tf.FixedLenFeature([max_predictions_per_seq], tf.float32),
        "next_sentence_labels": tf.FixedLenFeature([1], tf.int64),
    }
    d = tf.data.Dataset.from_tensor_slices(tf.constant(input_files))
    d = d.repeat()
    d = d.apply(tf.contrib.data.parallel_interleave(
        tf.data.TFRecordDataset, sloppy=False, cycle_length=1))
    d = d.apply(tf.contrib.data.map_and_batch(
        lambda record: _decode_record(record, name_to_features),
        batch_size=batch_size, drop_remainder=True))
    return d

  return input_fn


def _decode_record(record, name_to_features):
  example = tf.parse_single_example(record, name_to_features)
  for name in list(example.keys()):
    t = example[name]
    if t.dtype == tf.int64:
      t = tf.to_int32(t)
    example[name] = t
  return example


def main(_):
  tf.logging.set_verbosity(tf.logging.INFO)
  bert_config = modeling.BertConfig.from_json_file(FLAGS.bert_config_file)
  tf.gfile.MakeDirs(FLAGS.output_dir)
  if not tf.gfile.Exists(FLAGS.input_file):
    write_fake_data(FLAGS.input_file, bert_config.vocab_size, FLAGS.max_seq_length,
                    FLAGS.max_predictions_per_seq)
  run_config = tf.contrib.tpu.RunConfig(
      model_dir=FLAGS.output_dir,
      save_checkpoints_steps=FLAGS.save_checkpoints_steps,
      tf_random_seed=12345,
      tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=FLAGS.iterations_per_loop))
  model_fn = model_fn_builder(
      bert_config, FLAGS.init_checkpoint, FLAGS.learning_rate, FLAGS.num_train_steps,
      FLAGS.num_warmup_steps, FLAGS.use_tpu)
  estimator = tf.contrib.tpu.TPUEstimator(
      use_tpu=FLAGS.use_tpu, model_fn=model_fn, config=run_config,
      train_batch_size=FLAGS.train_batch_size)
  train_input_fn = input_fn_builder(
      [FLAGS.input_file], FLAGS.max_seq_length, FLAGS.max_predictions_per_seq, True)
  estimator.train(input_fn=train_input_fn, max_steps=FLAGS.num_train_steps)
  print("pretraining done", os.path.basename(tf.train.latest_checkpoint(FLAGS.output_dir)))


if __name__ == "__main__":
  flags.mark_flag_as_required("bert_config_file")
  flags.mark_flag_as_required("input_file")
  flags.mark_flag_as_required("output_dir")
  tf.app.run()
