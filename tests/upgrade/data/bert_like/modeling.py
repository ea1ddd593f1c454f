# coding=utf-8
"""A tiny BERT-style transformer, written the way 2018-2019 TF1 projects were."""

from __future__ import absolute_import
from __future__ import division
from __future__ import print_function

import collections
import copy
import json
import math
import re

import six
import tensorflow as tf


class BertConfig(object):
  """Configuration for `BertModel`."""

  def __init__(self, vocab_size, hidden_size=16, num_hidden_layers=2,
               num_attention_heads=2, intermediate_size=32, hidden_act="gelu",
               hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1,
               max_position_embeddings=32, type_vocab_size=2,
               initializer_range=0.02):
    self.vocab_size = vocab_size
    self.hidden_size = hidden_size
    self.num_hidden_layers = num_hidden_layers
    self.num_attention_heads = num_attention_heads
    self.hidden_act = hidden_act
    self.intermediate_size = intermediate_size
    self.hidden_dropout_prob = hidden_dropout_prob
    self.attention_probs_dropout_prob = attention_probs_dropout_prob
    self.max_position_embeddings = max_position_embeddings
    self.type_vocab_size = type_vocab_size
    self.initializer_range = initializer_range

  @classmethod
  def from_dict(cls, json_object):
    config = BertConfig(vocab_size=None)
    for (key, value) in six.iteritems(json_object):
      config.__dict__[key] = value
    return config

  @classmethod
  def from_json_file(cls, json_file):
    with tf.gfile.GFile(json_file, "r") as reader:
      text = reader.read()
    return cls.from_dict(json.loads(text))

  def to_json_string(self):
    return json.dumps(copy.deepcopy(self.__dict__), indent=2, sort_keys=True) + "\n"


class BertModel(object):
  """The encoder: embeddings, transformer layers, pooler."""

  def __init__(self, config, is_training, input_ids, input_mask=None,
               token_type_ids=None, scope=None):
    config = copy.deepcopy(config)
    if not is_training:
      config.hidden_dropout_prob = 0.0
      config.attention_probs_dropout_prob = 0.0

    input_shape = get_shape_list(input_ids, expected_rank=2)
    batch_size, seq_length = input_shape[0], input_shape[1]
    if input_mask is None:
      input_mask = tf.ones(shape=[batch_size, seq_length], dtype=tf.int32)
    if token_type_ids is None:
      token_type_ids = tf.zeros(shape=[batch_size, seq_length], dtype=tf.int32)

    with tf.variable_scope(scope, default_name="bert"):
      with tf.variable_scope("embeddings"):
        self.embedding_table = tf.get_variable(
            name="word_embeddings",
            shape=[config.vocab_size, config.hidden_size],
            initializer=create_initializer(config.initializer_range))
        output = tf.gather(self.embedding_table, input_ids)
        token_type_table = tf.get_variable(
            name="token_type_embeddings",
            shape=[config.type_vocab_size, config.hidden_size],
            initializer=create_initializer(config.initializer_range))
        output += tf.gather(token_type_table, token_type_ids)
        full_position_embeddings = tf.get_variable(
            name="position_embeddings",
            shape=[config.max_position_embeddings, config.hidden_size],
            initializer=create_initializer(config.initializer_range))
        output += tf.expand_dims(
            tf.slice(full_position_embeddings, [0, 0], [seq_length, -1]), 0)
        self.embedding_output = layer_norm_and_dropout(
            output, config.hidden_dropout_prob)

      with tf.variable_scope("encoder"):
        mask = tf.cast(tf.reshape(input_mask, [batch_size, 1, seq_length]), tf.float32)
        attention_mask = tf.ones([batch_size, seq_length, 1], tf.float32) * mask
        self.all_encoder_layers = transformer_model(
            self.embedding_output, attention_mask, config)
      self.sequence_output = self.all_encoder_layers[-1]

      with tf.variable_scope("pooler"):
        first_token_tensor = tf.squeeze(self.sequence_output[:, 0:1, :], axis=1)
        self.pooled_output = tf.layers.dense(
            first_token_tensor, config.hidden_size, activation=tf.tanh,
            kernel_initializer=create_initializer(config.initializer_range))

  def get_pooled_output(self):
    return self.pooled_output

  def get_sequence_output(self):
    return self.sequence_output

  def get_embedding_table(self):
    return self.embedding_table


def gelu(x):
  cdf = 0.5 * (1.0 + tf.tanh(
      (math.sqrt(2 / math.pi) * (x + 0.044715 * tf.pow(x, 3)))))
  return x * cdf


def dropout(input_tensor, dropout_prob):
  if dropout_prob is None or dropout_prob == 0.0:
    return input_tensor
  return tf.nn.dropout(input_tensor, 1.0 - dropout_prob)


def layer_norm(input_tensor, name=None):
  """Run layer normalization on the last dimension of the tensor."""
  return tf.contrib.layers.layer_norm(
      inputs=input_tensor, begin_norm_axis=-1, begin_params_axis=-1, scope=name)


def layer_norm_and_dropout(input_tensor, dropout_prob, name=None):
  output_tensor = layer_norm(input_tensor, name)
  return dropout(output_tensor, dropout_prob)


def create_initializer(initializer_range=0.02):
  return tf.truncated_normal_initializer(stddev=initializer_range)


def transformer_model(input_tensor, attention_mask, config):
  hidden_size = config.hidden_size
  num_heads = config.num_attention_heads
  head_size = hidden_size // num_heads
  shape = get_shape_list(input_tensor, expected_rank=3)
  batch_size, seq_length = shape[0], shape[1]
  prev_output = tf.reshape(input_tensor, [-1, hidden_size])
  init = create_initializer(config.initializer_range)

  def heads(t):
    t = tf.reshape(t, [batch_size, seq_length, num_heads, head_size])
    return tf.transpose(t, [0, 2, 1, 3])

  all_layer_outputs = []
  for layer_idx in range(config.num_hidden_layers):
    with tf.variable_scope("layer_%d" % layer_idx):
      layer_input = prev_output
      with tf.variable_scope("attention"):
        with tf.variable_scope("self"):
          q = tf.layers.dense(layer_input, hidden_size, name="query", kernel_initializer=init)
          k = tf.layers.dense(layer_input, hidden_size, name="key", kernel_initializer=init)
          v = tf.layers.dense(layer_input, hidden_size, name="value", kernel_initializer=init)
          scores = tf.matmul(heads(q), heads(k), transpose_b=True)
          scores = tf.multiply(scores, 1.0 / math.sqrt(float(head_size)))
          adder = (1.0 - tf.expand_dims(attention_mask, axis=[1])) * -10000.0
          probs = dropout(tf.nn.softmax(scores + adder), config.attention_probs_dropout_prob)
          context = tf.transpose(tf.matmul(probs, heads(v)), [0, 2, 1, 3])
          context = tf.reshape(context, [-1, hidden_size])
        with tf.variable_scope("output"):
          attention_output = tf.layers.dense(context, hidden_size, kernel_initializer=init)
          attention_output = dropout(attention_output, config.hidden_dropout_prob)
          attention_output = layer_norm(attention_output + layer_input)
      with tf.variable_scope("intermediate"):
        intermediate = tf.layers.dense(attention_output, config.intermediate_size,
                                       activation=gelu, kernel_initializer=init)
      with tf.variable_scope("output"):
        layer_output = tf.layers.dense(intermediate, hidden_size, kernel_initializer=init)
        layer_output = dropout(layer_output, config.hidden_dropout_prob)
        layer_output = layer_norm(layer_output + attention_output)
        prev_output = layer_output
        all_layer_outputs.append(
            tf.reshape(layer_output, [batch_size, seq_length, hidden_size]))
  return all_layer_outputs


def get_shape_list(tensor, expected_rank=None):
  shape = tensor.shape.as_list()
  non_static = [i for i, dim in enumerate(shape) if dim is None]
  if not non_static:
    return shape
  dyn_shape = tf.shape(tensor)
  for index in non_static:
    shape[index] = dyn_shape[index]
  return shape


def get_assignment_map_from_checkpoint(tvars, init_checkpoint):
  """Compute the union of the current variables and checkpoint variables."""
  initialized_variable_names = {}
  name_to_variable = collections.OrderedDict()
  for var in tvars:
    name = var.name
    m = re.match("^(.*):\\d+$", name)
    if m is not None:
      name = m.group(1)
    name_to_variable[name] = var
  assignment_map = collections.OrderedDict()
  for x in tf.train.list_variables(init_checkpoint):
    (name, var) = (x[0], x[1])
    if name not in name_to_variable:
      continue
    assignment_map[name] = name
    initialized_variable_names[name] = 1
    initialized_variable_names[name + ":0"] = 1
  return (assignment_map, initialized_variable_names)
