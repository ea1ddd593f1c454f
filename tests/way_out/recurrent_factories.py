"""Estimator factories whose model_fn runs recurrent cells (`tf.compat.v1.nn.dynamic_rnn`
of TF1 `rnn_cell`s, tf_keras `LSTM`/`GRU` layers), as `tfport keras export
recurrent_factories.py:recurrent MODEL_DIR OUT` takes them."""

from __future__ import annotations

import numpy as np
import tensorflow as tf

STEPS, DIMS = 5, 3
CELLS = tf.compat.v1.nn.rnn_cell


def recurrent_model_fn(features, labels, mode):
    """Six recurrent layers over one sequence, each used as models use them: the outputs
    of every step (or of one), the final state (an LSTM's c and h, or the two concatenated),
    steps past a sequence length, an initial state computed or `cell.zero_state`'s."""
    x, length = features["x"], features["length"]
    run = tf.compat.v1.nn.dynamic_rnn
    with tf.compat.v1.variable_scope("basic_lstm"):
        steps, _ = run(CELLS.BasicLSTMCell(4), x, dtype=tf.float32)
    with tf.compat.v1.variable_scope("lstm"):
        cell = CELLS.LSTMCell(6, forget_bias=0.5)
        _, state = run(cell, x, sequence_length=length, dtype=tf.float32)
    with tf.compat.v1.variable_scope("gru"):
        start = tf.compat.v1.layers.dense(x[:, 0], 5, tf.tanh, name="start")
        gru_steps, gru_last = run(CELLS.GRUCell(5), x, length, initial_state=start)
    with tf.compat.v1.variable_scope("simple"):
        cell = CELLS.BasicRNNCell(4, activation=tf.nn.relu)
        zeros = cell.zero_state(tf.shape(x)[0], tf.float32)
        _, simple_last = run(cell, tf.transpose(x, [1, 0, 2]), initial_state=zeros, time_major=True)
    with tf.compat.v1.variable_scope("static"):
        cell = CELLS.BasicLSTMCell(3, state_is_tuple=False)  # its state: concat([c, h])
        steps_list = [x[:, i] for i in range(STEPS)]
        unrolled, concat_state = tf.compat.v1.nn.static_rnn(
            cell, steps_list, sequence_length=length, dtype=tf.float32
        )
    keras_steps, keras_h, _ = tf.keras.layers.LSTM(
        4, return_sequences=True, return_state=True, name="keras_lstm"
    )(x)
    last = [steps[:, -1], state.c, state.h, gru_last, simple_last, concat_state, keras_h]
    joined = tf.concat(last, 1)
    logits = tf.compat.v1.layers.dense(joined, 3, name="logits")
    predictions = {
        "logits": logits,
        "steps": steps,
        "c": state.c,
        "h": state.h,
        "gru_steps": gru_steps,
        "simple": simple_last,
        "static_step": unrolled[3],
        "static_state": concat_state,
        "keras_lstm": keras_steps,
    }
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.compat.v1.train.AdamOptimizer(0.05)
    train_op = optimizer.minimize(loss, tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def recurrent(model_dir):
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=7)
    return tf.estimator.Estimator(recurrent_model_fn, config=config)


def peephole_model_fn(features, labels, mode):
    """An LSTMCell with peepholes: no Keras LSTM has them (refused). Exported from the
    model_dir `recurrent` trained (its input_fn gave the same features)."""
    cell = CELLS.LSTMCell(4, use_peepholes=True)
    x, length = features["x"], features["length"]
    steps, _ = tf.compat.v1.nn.dynamic_rnn(cell, x, sequence_length=length, dtype=tf.float32)
    return tf.estimator.EstimatorSpec(mode, predictions={"steps": steps})


def peephole(model_dir):
    return tf.estimator.Estimator(peephole_model_fn, model_dir=model_dir)


def sequences(seed, n=32):
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(n, STEPS, DIMS)).astype("float32")
    length = rng.randint(1, STEPS + 1, n).astype("int32")
    return {"x": x, "length": length}, rng.randint(0, 3, n)


def train_and_predict(model_dir: str, factory: str = "recurrent", steps: int = 8):
    """(estimator, prediction rows, its predictions) after STEPS steps from scratch."""
    from tfport.verify import load_estimator

    estimator = load_estimator(f"{__file__}:{factory}", model_dir)
    features, labels = sequences(0)
    train = tf.compat.v1.estimator.inputs.numpy_input_fn(
        features, labels, batch_size=8, num_epochs=None, shuffle=False
    )
    estimator.train(train, steps=steps)
    rows, _ = sequences(1, 16)
    predict = tf.compat.v1.estimator.inputs.numpy_input_fn(rows, shuffle=False)
    return estimator, rows, list(estimator.predict(predict))
