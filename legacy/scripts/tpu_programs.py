"""Two TPUEstimator programs written the way the public TPU reference models were.

Usage::

    python tpu_programs.py --program=cnn --model_dir=DIR --out_json=OUT [--use_tpu]
        [--iterations=N] [--tpu=NAME]
    python tpu_programs.py tpu_cnn_host_call MODEL_DIR OUT_JSON   # the generator's contract
    python tpu_programs.py tpu_pretrain_lamb MODEL_DIR OUT_JSON

``cnn`` (case ``tpu_cnn_host_call``), in the style of the image classifiers: a small
CNN with ``tf.compat.v1.layers`` convolutions and batch normalization (its update ops run
with the train op), momentum SGD with an exponentially decaying learning rate,
``CrossShardOptimizer`` when ``--use_tpu``, a ``host_call`` writing the loss and the
learning rate of every step with the TF2 summary API into ``model_dir``, eval metrics
through ``eval_metrics`` and an export.

``pretrain`` (case ``tpu_pretrain_lamb``), in the style of the language-model pretraining
programs: token and position embeddings, one self-attention block with layer
normalization and dropout, a masked-token loss, a LAMB optimizer whose own
``apply_gradients`` takes gradients from ``tf.gradients`` (clipped by global norm), a
linear warm-up then decay learning rate read from the global step, and a train op that
increments the global step itself. ``CrossShardOptimizer`` around LAMB when ``--use_tpu``.

Both: 40 steps of batch 8 (``iterations_per_loop`` 100 unless ``--iterations``),
``tf_random_seed`` 7, checkpoints at 0, 20 and 40. OUT_JSON: ``eval_metrics``,
``predictions``, ``variables``, ``steps``, ``batch_size``, ``use_tpu``, ``export_dir``
and ``host_call_events`` (``[tag, step, value]`` of the host_call's scalars, read back
from the event files in ``model_dir``).
"""

import glob
import json
import os
import re
import sys

import numpy as np
import tensorflow as tf
from absl import app, logging

CASES = ("tpu_cnn_host_call", "tpu_pretrain_lamb")

flags = tf.compat.v1.flags

flags.DEFINE_string("program", "cnn", "Which program: cnn or pretrain.")
flags.DEFINE_string("tpu", default=None, help="The Cloud TPU to use for training.")
flags.DEFINE_string("tpu_zone", default=None, help="GCE zone of the Cloud TPU.")
flags.DEFINE_string("gcp_project", default=None, help="Project name of the Cloud TPU.")
flags.DEFINE_string("model_dir", None, "Estimator model_dir")
flags.DEFINE_string("out_json", None, "Where to write the run's numbers.")
flags.DEFINE_integer("train_batch_size", 8, "Global batch size for training.")
flags.DEFINE_integer("train_steps", 40, "Total number of training steps.")
flags.DEFINE_integer("iterations", 100, "Number of iterations per TPU training loop.")
flags.DEFINE_integer("num_warmup_steps", 10, "Warm-up steps of the pretraining program.")
flags.DEFINE_float("dropout", 0.1, "Dropout rate of the pretraining program.")
flags.DEFINE_bool("use_tpu", False, "Use TPUs rather than plain CPUs")
flags.DEFINE_bool("skip_host_call", False, "Skip the host_call (the training curves).")

FLAGS = flags.FLAGS

SEQ, VOCAB, HIDDEN = 8, 24, 16


# ---------------------------------------------------------------- the image classifier


def make_images(seed, n):
    """8x8x1 images: a random template per class (4 classes) plus noise."""
    templates = np.random.RandomState(0).uniform(size=(4, 8, 8, 1)).astype("float32")
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 4, n).astype("int32")
    images = templates[labels] + 0.3 * rng.normal(size=(n, 8, 8, 1))
    return images.astype("float32"), labels


def cnn(images, is_training):
    layers = tf.compat.v1.layers
    net = layers.conv2d(images, 8, 3, padding="same", use_bias=False, name="conv1")
    net = layers.batch_normalization(net, training=is_training, momentum=0.9, name="bn1")
    net = tf.nn.relu(net)
    net = layers.max_pooling2d(net, 2, 2)
    net = layers.conv2d(net, 8, 3, padding="same", use_bias=False, name="conv2")
    net = layers.batch_normalization(net, training=is_training, momentum=0.9, name="bn2")
    net = tf.reduce_mean(tf.nn.relu(net), axis=[1, 2])
    return layers.dense(net, 4, name="logits")


def cnn_model_fn(features, labels, mode, params):
    is_training = mode == tf.estimator.ModeKeys.TRAIN
    logits = cnn(features, is_training)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"classes": tf.argmax(logits, axis=1), "probabilities": tf.nn.softmax(logits)}
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode=mode,
            predictions=predictions,
            export_outputs={"classify": tf.estimator.export.PredictOutput(predictions)},
        )
    one_hot = tf.one_hot(labels, 4)
    loss = tf.compat.v1.losses.softmax_cross_entropy(onehot_labels=one_hot, logits=logits)
    loss += 1e-4 * tf.add_n([tf.nn.l2_loss(v) for v in tf.compat.v1.trainable_variables()])

    host_call = None
    train_op = None
    if is_training:
        global_step = tf.compat.v1.train.get_global_step()
        learning_rate = tf.compat.v1.train.exponential_decay(
            0.1, global_step, decay_steps=10, decay_rate=0.8, staircase=False
        )
        optimizer = tf.compat.v1.train.MomentumOptimizer(learning_rate, momentum=0.9)
        if params["use_tpu"]:
            optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
        update_ops = tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
            train_op = optimizer.minimize(loss, global_step)

        if not FLAGS.skip_host_call:

            def host_call_fn(gs, loss, lr):
                """Training summaries, written on the host every step.

                Args are [1]-shaped per core, concatenated across cores: the mean of
                the cores' losses is the batch's loss.
                """
                gs = gs[0]
                with tf.summary.create_file_writer(
                    FLAGS.model_dir, max_queue=FLAGS.iterations
                ).as_default():
                    with tf.summary.record_if(True):
                        tf.summary.scalar("loss", tf.reduce_mean(loss), step=gs)
                        tf.summary.scalar("learning_rate", lr[0], step=gs)
                        return tf.compat.v1.summary.all_v2_summary_ops()

            gs_t = tf.reshape(global_step, [1])
            loss_t = tf.reshape(loss, [1])
            lr_t = tf.reshape(learning_rate, [1])
            host_call = (host_call_fn, [gs_t, loss_t, lr_t])

    def metric_fn(labels, logits):
        predictions = tf.argmax(logits, axis=1)
        return {
            "top_1_accuracy": tf.compat.v1.metrics.accuracy(labels, predictions),
            "mean_logit": tf.compat.v1.metrics.mean(logits),
        }

    eval_metrics = None if is_training else (metric_fn, [labels, logits])
    return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
        mode=mode, loss=loss, train_op=train_op, host_call=host_call, eval_metrics=eval_metrics
    )


def cnn_input_fn(seed, n, train):
    def input_fn(params):
        images, labels = make_images(seed, n)
        ds = tf.data.Dataset.from_tensor_slices((images, labels))
        if train:
            ds = ds.repeat()
        return ds.batch(params["batch_size"], drop_remainder=True)

    return input_fn


def cnn_predict_input_fn(params):
    images, _ = make_images(2, 16)
    return tf.data.Dataset.from_tensor_slices(images).batch(params["batch_size"])


def cnn_serving_input_fn():
    images = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    return tf.estimator.export.TensorServingInputReceiver(images, {"images": images})


# ---------------------------------------------------------------- the pretraining program


def make_tokens(seed, n):
    """Token sequences with a repeating structure, one masked position per sequence."""
    rng = np.random.RandomState(seed)
    start = rng.randint(1, VOCAB, n)
    ids = (start[:, None] + np.arange(SEQ)[None, :] * 3) % (VOCAB - 1) + 1
    masked = rng.randint(0, SEQ, n)
    targets = ids[np.arange(n), masked]
    ids = ids.copy()
    ids[np.arange(n), masked] = 0  # [MASK]
    return {"input_ids": ids.astype("int32"), "masked_positions": masked.astype("int32")}, (
        targets.astype("int32")
    )


def layer_norm(x, name):
    with tf.compat.v1.variable_scope(name):
        gamma = tf.compat.v1.get_variable("gamma", [HIDDEN], initializer=tf.ones_initializer())
        beta = tf.compat.v1.get_variable("beta", [HIDDEN], initializer=tf.zeros_initializer())
    mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
    return (x - mean) * tf.math.rsqrt(variance + 1e-6) * gamma + beta


def dense(x, units, name, activation=None):
    init = tf.compat.v1.truncated_normal_initializer(stddev=0.2)
    return tf.compat.v1.layers.dense(
        x, units, activation=activation, kernel_initializer=init, name=name
    )


def encoder(input_ids, is_training):
    dropout = FLAGS.dropout if is_training else 0.0
    init = tf.compat.v1.truncated_normal_initializer(stddev=0.2)
    with tf.compat.v1.variable_scope("bert"):
        with tf.compat.v1.variable_scope("embeddings"):
            table = tf.compat.v1.get_variable("word_embeddings", [VOCAB, HIDDEN], initializer=init)
            positions = tf.compat.v1.get_variable(
                "position_embeddings", [SEQ, HIDDEN], initializer=init
            )
            x = tf.gather(table, input_ids) + positions[None]
            x = layer_norm(x, "LayerNorm")
            x = tf.nn.dropout(x, rate=dropout)
        with tf.compat.v1.variable_scope("encoder/layer_0"):
            q = dense(x, HIDDEN, "query")
            k = dense(x, HIDDEN, "key")
            v = dense(x, HIDDEN, "value")
            scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(HIDDEN)
            probs = tf.nn.dropout(tf.nn.softmax(scores), rate=dropout)
            attention = dense(tf.matmul(probs, v), HIDDEN, "attention_output")
            x = layer_norm(x + tf.nn.dropout(attention, rate=dropout), "attention_norm")
            hidden = dense(x, 2 * HIDDEN, "intermediate", activation=tf.nn.gelu)
            out = dense(hidden, HIDDEN, "output")
            x = layer_norm(x + tf.nn.dropout(out, rate=dropout), "output_norm")
    return x, table


class LAMBOptimizer(tf.compat.v1.train.Optimizer):
    """Layer-wise adaptive moments (LAMB), with its own apply_gradients."""

    def __init__(self, learning_rate, weight_decay_rate=0.01, beta_1=0.9, beta_2=0.999):
        super().__init__(False, "LAMBOptimizer")
        self.learning_rate = learning_rate
        self.weight_decay_rate = weight_decay_rate
        self.beta_1 = beta_1
        self.beta_2 = beta_2
        self.epsilon = 1e-6

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for grad, param in grads_and_vars:
            if grad is None or param is None:
                continue
            param_name = re.match("^(.*):\\d+$", param.name).group(1)
            m = tf.compat.v1.get_variable(
                param_name + "/lamb_m",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=tf.zeros_initializer(),
            )
            v = tf.compat.v1.get_variable(
                param_name + "/lamb_v",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=tf.zeros_initializer(),
            )
            next_m = self.beta_1 * m + (1.0 - self.beta_1) * grad
            next_v = self.beta_2 * v + (1.0 - self.beta_2) * tf.square(grad)
            update = next_m / (tf.sqrt(next_v) + self.epsilon)
            if "LayerNorm" not in param_name and "norm" not in param_name:
                update += self.weight_decay_rate * param
            w_norm = tf.norm(param, ord=2)
            g_norm = tf.norm(update, ord=2)
            ratio = tf.where(
                tf.greater(w_norm, 0),
                tf.where(tf.greater(g_norm, 0), w_norm / g_norm, 1.0),
                1.0,
            )
            next_param = param - ratio * self.learning_rate * update
            assignments.extend([param.assign(next_param), m.assign(next_m), v.assign(next_v)])
        return tf.group(*assignments, name=name)


def create_optimizer(loss, init_lr, num_train_steps, num_warmup_steps, use_tpu):
    global_step = tf.compat.v1.train.get_or_create_global_step()
    learning_rate = tf.constant(value=init_lr, shape=[], dtype=tf.float32)
    learning_rate = tf.compat.v1.train.polynomial_decay(
        learning_rate, global_step, num_train_steps, end_learning_rate=0.0, power=1.0
    )
    if num_warmup_steps:
        global_steps_int = tf.cast(global_step, tf.int32)
        warmup_steps_int = tf.constant(num_warmup_steps, dtype=tf.int32)
        global_steps_float = tf.cast(global_steps_int, tf.float32)
        warmup_steps_float = tf.cast(warmup_steps_int, tf.float32)
        warmup_percent_done = global_steps_float / warmup_steps_float
        warmup_learning_rate = init_lr * warmup_percent_done
        is_warmup = tf.cast(global_steps_int < warmup_steps_int, tf.float32)
        learning_rate = (1.0 - is_warmup) * learning_rate + is_warmup * warmup_learning_rate
    optimizer = LAMBOptimizer(learning_rate)
    if use_tpu:
        optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
    tvars = tf.compat.v1.trainable_variables()
    grads = tf.gradients(loss, tvars)
    (grads, _) = tf.clip_by_global_norm(grads, clip_norm=1.0)
    train_op = optimizer.apply_gradients(zip(grads, tvars), global_step=global_step)
    new_global_step = global_step + 1
    train_op = tf.group(train_op, [global_step.assign(new_global_step)])
    return train_op, learning_rate


def pretrain_model_fn(features, labels, mode, params):
    is_training = mode == tf.estimator.ModeKeys.TRAIN
    sequence, table = encoder(features["input_ids"], is_training)
    batch = tf.shape(sequence)[0]
    index = tf.stack([tf.range(batch), features["masked_positions"]], axis=1)
    masked = tf.gather_nd(sequence, index)
    with tf.compat.v1.variable_scope("cls/predictions"):
        masked = dense(masked, HIDDEN, "transform", activation=tf.nn.gelu)
        bias = tf.compat.v1.get_variable("output_bias", [VOCAB], initializer=tf.zeros_initializer())
        logits = tf.matmul(masked, table, transpose_b=True) + bias
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {"log_probs": tf.nn.log_softmax(logits)}
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode=mode, predictions=predictions)
    log_probs = tf.nn.log_softmax(logits)
    loss = -tf.reduce_mean(tf.reduce_sum(tf.one_hot(labels, VOCAB) * log_probs, axis=-1))
    if is_training:
        train_op, _ = create_optimizer(
            loss, 0.05, FLAGS.train_steps, FLAGS.num_warmup_steps, params["use_tpu"]
        )
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)

    def metric_fn(loss_value, labels, log_probs):
        predictions = tf.argmax(log_probs, axis=-1, output_type=tf.int32)
        return {
            "masked_lm_accuracy": tf.compat.v1.metrics.accuracy(labels, predictions),
            "masked_lm_loss": tf.compat.v1.metrics.mean(loss_value),
        }

    loss_value = tf.fill([batch], loss)
    return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
        mode=mode, loss=loss, eval_metrics=(metric_fn, [loss_value, labels, log_probs])
    )


def pretrain_input_fn(seed, n, train, with_labels=True):
    def input_fn(params):
        features, labels = make_tokens(seed, n)
        ds = tf.data.Dataset.from_tensor_slices((features, labels) if with_labels else features)
        if train:
            ds = ds.repeat()
        return ds.batch(params["batch_size"], drop_remainder=True)

    return input_fn


# ---------------------------------------------------------------- the run


def host_call_events(model_dir):
    """[tag, step, value] of every tensor scalar in model_dir's event files."""
    events = []
    for path in sorted(glob.glob(os.path.join(model_dir, "events.out.tfevents*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.HasField("tensor"):
                    number = float(tf.make_ndarray(value.tensor))
                    events.append([value.tag, int(event.step), number])
    return sorted(events)


def main(argv):
    del argv  # Unused.
    logging.set_verbosity(logging.INFO)
    tpu_cluster_resolver = None
    if FLAGS.tpu is not None:
        tpu_cluster_resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
            FLAGS.tpu, zone=FLAGS.tpu_zone, project=FLAGS.gcp_project
        )
    run_config = tf.compat.v1.estimator.tpu.RunConfig(
        cluster=tpu_cluster_resolver,
        model_dir=FLAGS.model_dir,
        save_checkpoints_steps=20,
        tf_random_seed=7,
        # One inter-op thread: the train op's own global-step increment and the
        # learning rate's read of the step then run in one order, run after run.
        session_config=tf.compat.v1.ConfigProto(inter_op_parallelism_threads=1),
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(
            iterations_per_loop=FLAGS.iterations,
            per_host_input_for_training=tf.compat.v1.estimator.tpu.InputPipelineConfig.PER_HOST_V2,
        ),
    )
    if FLAGS.program == "cnn":
        model_fn, key = cnn_model_fn, "probabilities"
        train_fn, eval_fn = cnn_input_fn(1, 64, True), cnn_input_fn(2, 32, False)
        predict_fn = cnn_predict_input_fn
    else:
        model_fn, key = pretrain_model_fn, "log_probs"
        train_fn, eval_fn = pretrain_input_fn(1, 64, True), pretrain_input_fn(2, 32, False)
        predict_fn = pretrain_input_fn(2, 16, False, with_labels=False)
    estimator = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=model_fn,
        use_tpu=FLAGS.use_tpu,
        train_batch_size=FLAGS.train_batch_size,
        eval_batch_size=8,
        predict_batch_size=8,
        config=run_config,
    )
    estimator.train(input_fn=train_fn, max_steps=FLAGS.train_steps)
    metrics = estimator.evaluate(input_fn=eval_fn, steps=4)
    logging.info("Evaluation results: %s", metrics)
    predictions = [p[key].tolist() for p in estimator.predict(input_fn=predict_fn)]
    export_dir = None
    if FLAGS.program == "cnn":
        base = os.path.join(os.path.dirname(FLAGS.model_dir), "export")
        path = estimator.export_saved_model(base, cnn_serving_input_fn)
        export_dir = os.path.basename(path.decode("utf-8") if isinstance(path, bytes) else path)
    if FLAGS.out_json:
        ckpt = tf.train.latest_checkpoint(FLAGS.model_dir)
        out = {
            "eval_metrics": {k: float(v) for k, v in metrics.items()},
            "predictions": predictions,
            "variables": sorted(name for name, _ in tf.train.list_variables(ckpt)),
            "steps": FLAGS.train_steps,
            "batch_size": FLAGS.train_batch_size,
            "use_tpu": FLAGS.use_tpu,
            "export_dir": export_dir,
            "host_call_events": host_call_events(FLAGS.model_dir),
        }
        with open(FLAGS.out_json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] in CASES:  # the generator's contract
        program = "cnn" if sys.argv[1] == "tpu_cnn_host_call" else "pretrain"
        sys.argv = [
            sys.argv[0],
            "--program=" + program,
            "--model_dir=" + sys.argv[2],
            "--out_json=" + sys.argv[3],
        ]
    app.run(main)
