"""Estimator factories for the legacy golden cases, as `tfport keras export` takes them.

`tfport keras export modelfn_factories.py:custom_v1_adam MODEL_DIR OUT`: each factory
builds the golden's Estimator (the model_fn and configuration of its legacy script) on
MODEL_DIR without training it. Loaded as a script under tfport.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import tensorflow as tf

SCRIPTS = pathlib.Path(__file__).resolve().parents[2] / "legacy" / "scripts"


def script(name: str):
    """The legacy script `legacy/scripts/NAME.py` as a module, loaded once per process (this
    file may itself be loaded more than once; tpu_programs defines absl flags)."""
    key = f"legacy_{name}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, SCRIPTS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[key] = module
    return sys.modules[key]


def custom_v1_adam(model_dir):
    cases = script("estimator_cases")
    return tf.estimator.Estimator(
        model_fn=cases.custom_model_fn,
        config=tf.estimator.RunConfig(model_dir=model_dir),
        params={"hidden": 16, "learning_rate": 0.01},
    )


def tpu_estimator_on_cpu(model_dir):
    cases = script("estimator_cases")
    config = tf.compat.v1.estimator.tpu.RunConfig(
        model_dir=model_dir,
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=10),
    )
    return tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=cases.tpu_model_fn,
        config=config,
        use_tpu=False,
        train_batch_size=cases.BATCH,
        eval_batch_size=cases.BATCH,
        predict_batch_size=cases.BATCH,
    )


def keras_model_to_estimator(model_dir):
    cases = script("estimator_cases")
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(16, activation="relu", input_shape=(4,), name="hidden"),
            tf.keras.layers.Dense(cases.N_CLASSES, activation="softmax", name="probs"),
        ]
    )
    model.compile(
        optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.05, momentum=0.9),
        loss="sparse_categorical_crossentropy",
    )
    return tf.keras.estimator.model_to_estimator(keras_model=model, model_dir=model_dir)


def guide_model_fn_v1(model_dir):
    guide = script("guide_more")
    return tf.estimator.Estimator(
        model_fn=guide.my_model_fn,
        params={"feature_columns": guide.iris_columns(), "hidden_units": [10, 10], "n_classes": 3},
        config=tf.estimator.RunConfig(model_dir=model_dir),
    )


def guide_model_fn_tf2(model_dir):
    guide = script("guide_more")
    return tf.estimator.Estimator(
        model_fn=guide.tf2_model_fn, config=tf.estimator.RunConfig(model_dir=model_dir)
    )


def py_function_model_fn(features, labels, mode):
    """A model_fn with Python inside the model: no Keras form (tests the refusal)."""
    net = tf.compat.v1.layers.dense(features, 8, name="hidden")
    doubled = tf.py_function(lambda t: t * 2.0, [net], tf.float32)  # the blocker
    return tf.estimator.EstimatorSpec(mode, predictions={"doubled": doubled})


def refused_py_function(model_dir):
    """Trained-graph inputs as custom_v1_adam's (4 floats); the model_fn has a py_function."""
    return tf.estimator.Estimator(py_function_model_fn, model_dir=model_dir)


def batch_ones_model_fn(features, labels, mode):
    """`tf.ones` of the batch size concatenated, not broadcast: no Keras form (a refusal)."""
    net = tf.compat.v1.layers.dense(features, 4, name="hidden")
    ones = tf.ones([tf.shape(features)[0], 4])
    return tf.estimator.EstimatorSpec(mode, predictions=tf.concat([net, ones], 1))


def refused_batch_ones(model_dir):
    """Trained-graph inputs as custom_v1_adam's (4 floats); ones of the batch size."""
    return tf.estimator.Estimator(batch_ones_model_fn, model_dir=model_dir)


def tpu_cnn_host_call(model_dir, use_tpu=False):
    """tf.compat.v1.layers conv2d + batch_normalization + max_pooling2d under TPUEstimator."""
    programs = script("tpu_programs")
    return tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=programs.cnn_model_fn,
        use_tpu=use_tpu,
        train_batch_size=8,
        eval_batch_size=8,
        predict_batch_size=8,
        config=tf.compat.v1.estimator.tpu.RunConfig(model_dir=model_dir),
    )


def tpu_pretrain_lamb(model_dir):
    """The golden's TPUEstimator: a transformer block trained by LAMB over `tf.gradients`."""
    programs = script("tpu_programs")
    return tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=programs.pretrain_model_fn,
        use_tpu=False,
        train_batch_size=8,
        eval_batch_size=8,
        predict_batch_size=8,
        config=tf.compat.v1.estimator.tpu.RunConfig(model_dir=model_dir),
    )


def tpu_cnn_on_tpu(model_dir):
    """The same program with use_tpu=True (tfport runs the TPU path on the host's devices)."""
    return tpu_cnn_host_call(model_dir, use_tpu=True)


def cnn_dropout_model_fn(features, labels, mode, params):
    """tf.compat.v1.layers: conv2d, batch_normalization, pooling, dropout, dense; a
    TPUEstimator model_fn (CrossShardOptimizer when use_tpu)."""
    training = mode == tf.estimator.ModeKeys.TRAIN
    layers = tf.compat.v1.layers
    net = layers.conv2d(features["image"], 4, 3, activation=tf.nn.relu, name="conv")
    net = layers.batch_normalization(net, training=training, name="bn")
    net = layers.average_pooling2d(net, 2, 2, padding="same")
    net = layers.dropout(layers.flatten(net), 0.5, training=training)
    logits = layers.dense(net, 3, name="logits")
    spec = tf.compat.v1.estimator.tpu.TPUEstimatorSpec
    if mode == tf.estimator.ModeKeys.PREDICT:
        return spec(mode, predictions={"logits": logits})
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
    if params["use_tpu"]:
        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
    with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
        train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return spec(mode, loss=loss, train_op=train_op)


def cnn_dropout(model_dir):
    """The CNN under TPUEstimator with use_tpu=True (tfport runs it on the host's devices)."""
    return tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=cnn_dropout_model_fn,
        use_tpu=True,
        train_batch_size=8,
        predict_batch_size=8,
        config=tf.compat.v1.estimator.tpu.RunConfig(model_dir=model_dir),
    )


def cnn_images(seed, n=32):
    rng = np.random.RandomState(seed)
    return {"image": rng.uniform(size=(n, 7, 7, 1)).astype("float32")}, rng.randint(0, 3, n)


def embedding_model_fn(features, labels, mode):
    """Token ids -> an embedding table (get_variable + embedding_lookup) -> mean -> dense."""
    table = tf.compat.v1.get_variable("tokens/embeddings", [12, 5])
    vectors = tf.nn.embedding_lookup(table, features["ids"])
    logits = tf.compat.v1.layers.dense(tf.reduce_mean(vectors, axis=1), 2, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=logits)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdagradOptimizer(0.5)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def embedding(model_dir):
    return tf.estimator.Estimator(embedding_model_fn, model_dir=model_dir)


def token_ids(seed, n=32):
    rng = np.random.RandomState(seed)
    return {"ids": rng.randint(0, 12, (n, 3)).astype("int64")}, rng.randint(0, 2, n)


def train_and_predict(name: str, make_data, model_dir: str):
    """(estimator, prediction rows, its predictions) after 6 steps from scratch on MODEL_DIR."""
    from tfport.verify import load_estimator

    estimator = load_estimator(f"{__file__}:{name}", model_dir)
    features, labels = make_data(0)

    def train(params=None):  # a TPUEstimator's input_fn takes params
        data = tf.data.Dataset.from_tensor_slices((features, labels))
        return data.repeat().batch(8, drop_remainder=True)

    estimator.train(train, steps=6)
    rows, _ = make_data(1, 16)

    def predict(params=None):
        return tf.data.Dataset.from_tensor_slices(rows).batch(8, drop_remainder=True)

    return estimator, rows, list(estimator.predict(predict))


def _classifier_spec(mode, labels, logits, predictions, extra_loss=0.0):
    """PREDICT: the predictions; TRAIN: softmax cross-entropy (+ extra_loss) minimized by
    Adam (0.01)."""
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits) + extra_loss
    optimizer = tf.compat.v1.train.AdamOptimizer(0.01)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def layer_norm(input_tensor, name=None):
    """BERT's `modeling.layer_norm`, `tf.contrib.layers.layer_norm(begin_norm_axis=-1)`
    written out as contrib did: moments over the last axis, gamma and beta in `LayerNorm`."""
    with tf.compat.v1.variable_scope(name, default_name="LayerNorm"):
        size = input_tensor.shape[-1]
        beta = tf.compat.v1.get_variable("beta", [size], initializer=tf.zeros_initializer())
        gamma = tf.compat.v1.get_variable("gamma", [size], initializer=tf.ones_initializer())
        mean, variance = tf.nn.moments(input_tensor, [-1], keepdims=True)
        return tf.nn.batch_normalization(input_tensor, mean, variance, beta, gamma, 1e-12)


def written_out_layer_norm(x, epsilon=1e-6):
    """Layer normalization as hand-written model_fns do: `(x - mean) * rsqrt(var + eps)`."""
    with tf.compat.v1.variable_scope("LayerNorm"):
        size = x.shape[-1]
        gamma = tf.compat.v1.get_variable("gamma", [size], initializer=tf.ones_initializer())
        beta = tf.compat.v1.get_variable("beta", [size], initializer=tf.zeros_initializer())
        mean, variance = tf.nn.moments(x, [-1], keepdims=True)
        return (x - mean) * tf.math.rsqrt(variance + epsilon) * gamma + beta


def layer_norm_model_fn(features, labels, mode):
    """Dense, BERT's layer_norm, tf.keras LayerNormalization (last two axes, last axis),
    tf.keras Dense on a 3-D input, a written-out layer norm."""
    net = tf.compat.v1.layers.dense(features["x"], 12, name="hidden")
    with tf.compat.v1.variable_scope("hidden"):
        net = layer_norm(net)
    net = tf.reshape(net, [-1, 3, 4])
    net = tf.keras.layers.LayerNormalization(axis=[1, 2], name="ln_both")(net)
    net = tf.keras.layers.LayerNormalization(epsilon=1e-6, name="ln_last")(net)
    net = tf.keras.layers.Dense(5, activation="tanh", name="per_row")(net)
    net = tf.compat.v1.layers.dense(tf.reshape(net, [-1, 15]), 6, name="mixed")
    with tf.compat.v1.variable_scope("mixed"):
        net = written_out_layer_norm(net)
    logits = tf.compat.v1.layers.dense(net, 3, name="logits")
    return _classifier_spec(mode, labels, logits, {"logits": logits})


def layer_norms(model_dir):
    # Grappler's remapper turns `tf.keras.layers.LayerNormalization(axis=[1, 2])`'s fused
    # batch norm into one with a [1, 3, 4] scale on oneDNN CPUs with AVX-512, which then
    # fails ("scale must be 1D"): a TensorFlow bug, on TF 2.15 as on 2.21, that a plain
    # session shows too. Remapping off keeps the model's numbers on every CPU.
    session_config = tf.compat.v1.ConfigProto()
    session_config.graph_options.rewrite_options.remapping = 2  # RewriterConfig.OFF
    config = tf.estimator.RunConfig(session_config=session_config)
    return tf.estimator.Estimator(layer_norm_model_fn, model_dir=model_dir, config=config)


def vectors(seed, n=32):
    rng = np.random.RandomState(seed)
    return {"x": rng.normal(size=(n, 6)).astype("float32")}, rng.randint(0, 3, n)


def convs_model_fn(features, labels, mode):
    """tf.keras DepthwiseConv2D and Conv3D, tf.compat.v1.layers separable_conv2d and conv1d."""
    layers = tf.compat.v1.layers
    net = tf.keras.layers.DepthwiseConv2D(
        3, depth_multiplier=2, padding="same", activation="relu", name="depthwise"
    )(features["image"])
    net = layers.separable_conv2d(net, 4, 3, name="separable")  # 4x4x4
    net = tf.keras.layers.Conv3D(2, 2, name="conv3d")(tf.expand_dims(net, -1))  # 3x3x3x2
    net = tf.reshape(net, [-1, 9, 6])
    net = layers.conv1d(net, 3, 2, strides=2, padding="same", activation=tf.tanh, name="c1d")
    logits = layers.dense(layers.flatten(net), 3, name="logits")
    return _classifier_spec(mode, labels, logits, {"logits": logits})


def convs(model_dir):
    return tf.estimator.Estimator(convs_model_fn, model_dir=model_dir)


def small_images(seed, n=32):
    rng = np.random.RandomState(seed)
    return {"image": rng.uniform(size=(n, 6, 6, 2)).astype("float32")}, rng.randint(0, 3, n)


def get_shape_list(tensor):
    """BERT's `modeling.get_shape_list`: static dims as ints, the others as tf.shape slices."""
    shape = tensor.shape.as_list()
    dynamic = tf.shape(tensor)
    return [dynamic[i] if d is None else d for i, d in enumerate(shape)]


def gelu(x):
    """BERT's original GELU (erf form)."""
    cdf = 0.5 * (1.0 + tf.math.erf(x / tf.sqrt(2.0)))
    return x * cdf


def _initializer():
    return tf.compat.v1.truncated_normal_initializer(stddev=0.2)


def _embeddings(input_ids, segment_ids, width):
    """BERT's embedding_lookup + embedding_postprocessor: words, token types, positions
    (and the word table, as BERT's `get_embedding_table`)."""
    batch_size, seq_length = get_shape_list(input_ids)
    table = tf.compat.v1.get_variable("word_embeddings", [VOCAB, width], initializer=_initializer())
    output = tf.gather(table, tf.reshape(input_ids, [-1]))
    output = tf.reshape(output, [batch_size, seq_length, width])
    token_table = tf.compat.v1.get_variable(
        "token_type_embeddings", [2, width], initializer=_initializer()
    )
    one_hot_ids = tf.one_hot(tf.reshape(segment_ids, [-1]), depth=2)
    token_type = tf.reshape(tf.matmul(one_hot_ids, token_table), [batch_size, seq_length, width])
    full_positions = tf.compat.v1.get_variable(
        "position_embeddings", [16, width], initializer=_initializer()
    )
    positions = tf.slice(full_positions, [0, 0], [seq_length, -1])
    output += token_type + tf.reshape(positions, [1, seq_length, width])
    return layer_norm(output), table


def _attention(layer_input, input_ids, input_mask, heads, size):
    """BERT's attention_layer for self-attention with its input mask."""
    batch_size, seq_length = get_shape_list(input_ids)
    to_mask = tf.cast(tf.reshape(input_mask, [batch_size, 1, seq_length]), tf.float32)
    broadcast_ones = tf.ones(shape=[batch_size, seq_length, 1], dtype=tf.float32)
    attention_mask = broadcast_ones * to_mask

    def transpose_for_scores(tensor):
        tensor = tf.reshape(tensor, [batch_size, seq_length, heads, size])
        return tf.transpose(tensor, [0, 2, 1, 3])

    dense = tf.compat.v1.layers.dense
    query = dense(layer_input, heads * size, name="query", kernel_initializer=_initializer())
    key = dense(layer_input, heads * size, name="key", kernel_initializer=_initializer())
    value = dense(layer_input, heads * size, name="value", kernel_initializer=_initializer())
    scores = tf.matmul(transpose_for_scores(query), transpose_for_scores(key), transpose_b=True)
    scores = tf.multiply(scores, 1.0 / np.sqrt(float(size)))
    adder = (1.0 - tf.cast(tf.expand_dims(attention_mask, axis=[1]), tf.float32)) * -10000.0
    probs = tf.nn.softmax(scores + adder)
    context = tf.transpose(tf.matmul(probs, transpose_for_scores(value)), [0, 2, 1, 3])
    return tf.reshape(context, [batch_size * seq_length, heads * size])


def gather_indexes(sequence_tensor, positions):
    """BERT's `gather_indexes`: the vectors at `positions` of each sequence, flattened."""
    batch_size, seq_length, width = get_shape_list(sequence_tensor)
    flat_offsets = tf.reshape(tf.range(0, batch_size, dtype=tf.int32) * seq_length, [-1, 1])
    flat_positions = tf.reshape(positions + flat_offsets, [-1])
    flat_sequence_tensor = tf.reshape(sequence_tensor, [batch_size * seq_length, width])
    return tf.gather(flat_sequence_tensor, flat_positions)


def _masked_lm(sequence_output, output_weights, positions, batch_size):
    """BERT's `get_masked_lm_output` (transform, layer norm, output bias); the output
    projection by the word embeddings as TF Model Garden writes it, an einsum."""
    input_tensor = gather_indexes(sequence_output, positions)
    with tf.compat.v1.variable_scope("cls/predictions"):
        with tf.compat.v1.variable_scope("transform"):
            input_tensor = tf.compat.v1.layers.dense(input_tensor, 8, activation=gelu)
            input_tensor = layer_norm(input_tensor)
        bias = tf.compat.v1.get_variable("output_bias", [VOCAB], initializer=tf.zeros_initializer())
        logits = tf.nn.bias_add(tf.einsum("nh,vh->nv", input_tensor, output_weights), bias)
        log_probs = tf.nn.log_softmax(logits, axis=-1)
    return tf.reshape(log_probs, [batch_size, positions.shape[1], VOCAB])


def transformer_model_fn(features, labels, mode):
    """A one-layer BERT written as `modeling.py` writes it: embeddings, self-attention with
    the input mask, layer norms, GELU intermediate layer, tanh pooler; a classifier head."""
    width, heads, size = 8, 2, 4
    input_ids, input_mask = features["input_ids"], features["input_mask"]
    batch_size, seq_length = get_shape_list(input_ids)
    dense = tf.compat.v1.layers.dense
    with tf.compat.v1.variable_scope("bert"):
        with tf.compat.v1.variable_scope("embeddings"):
            embedded, table = _embeddings(input_ids, features["segment_ids"], width)
        with tf.compat.v1.variable_scope("encoder/layer_0"):
            layer_input = tf.reshape(embedded, [-1, width])
            with tf.compat.v1.variable_scope("attention"):
                with tf.compat.v1.variable_scope("self"):
                    context = _attention(layer_input, input_ids, input_mask, heads, size)
                with tf.compat.v1.variable_scope("output"):
                    attention_output = dense(context, width, kernel_initializer=_initializer())
                    attention_output = layer_norm(attention_output + layer_input)
            with tf.compat.v1.variable_scope("intermediate"):
                intermediate = dense(attention_output, 16, activation=gelu)
            with tf.compat.v1.variable_scope("output"):
                layer_output = dense(intermediate, width, kernel_initializer=_initializer())
                layer_output = layer_norm(layer_output + attention_output)
        sequence_output = tf.reshape(layer_output, [batch_size, seq_length, width])
        with tf.compat.v1.variable_scope("pooler"):
            first_token = tf.squeeze(sequence_output[:, 0:1, :], axis=1)
            pooled = dense(first_token, width, activation=tf.tanh)
    logits = dense(pooled, 2, name="classifier")
    masked = _masked_lm(sequence_output, table, features["masked_positions"], batch_size)
    last = tf.reduce_sum(input_mask, axis=1) - 1  # the last token before the padding
    rows = tf.range(batch_size, dtype=tf.int32)
    last_token = tf.gather_nd(sequence_output, tf.stack([rows, last], axis=1))
    predictions = {
        "probabilities": tf.nn.softmax(logits, axis=-1),
        "pooled": pooled,
        "masked_log_probs": masked,
        "last_token": last_token,
    }
    masked_loss = -tf.reduce_mean(masked[:, :, 1])  # trains the masked LM head too
    return _classifier_spec(mode, labels, logits, predictions, masked_loss)


def transformer(model_dir):
    return tf.estimator.Estimator(transformer_model_fn, model_dir=model_dir)


VOCAB = 20


def token_sequences(seed, n=32):
    """input_ids, input_mask (the last tokens padded away in some rows), segment_ids."""
    rng = np.random.RandomState(seed)
    lengths = rng.randint(3, 9, n)
    mask = (np.arange(8)[None, :] < lengths[:, None]).astype("int32")
    ids = rng.randint(1, VOCAB, (n, 8)).astype("int32") * mask
    segments = (np.arange(8)[None, :] >= lengths[:, None] // 2).astype("int32") * mask
    positions = rng.randint(0, 3, (n, 2)).astype("int32")
    features = {"input_ids": ids, "input_mask": mask, "segment_ids": segments}
    features["masked_positions"] = positions
    return features, rng.randint(0, 2, n)
