"""tensorflow/tpu's MNIST (models/official/mnist/mnist_tpu.py), written the way it was.

Usage::

    python guide_tpu_mnist.py --model_dir=DIR --out_json=OUT [--use_tpu] [--tpu=NAME]
    python guide_tpu_mnist.py guide_tpu_mnist MODEL_DIR OUT_JSON   # the generator's contract

A ``TPUEstimator`` whose ``model_fn`` builds the tutorial's Keras CNN (made smaller, and
without its Dropout layer, whose random masks could not be compared from a checkpoint),
wraps the optimizer in ``tf.compat.v1.tpu.CrossShardOptimizer`` when ``--use_tpu``,
returns ``TPUEstimatorSpec`` with ``eval_metrics=(metric_fn, [labels, logits])``, and
logs each prediction with absl logging. Flags come from ``tf.compat.v1.flags`` (absl).
Data: small generated 28x28 "digits" (a noisy template per class), 40 training steps of
batch 16 (``iterations_per_loop`` 10), checkpoints at 0, 20 and 40, 2 eval steps, and
predictions of 16 rows. OUT_JSON: ``eval_metrics``, ``predictions`` (probability rows),
``classes``, ``variables``, ``steps``, ``batch_size`` and ``use_tpu``.
"""

import json
import sys

import numpy as np
import tensorflow as tf
from absl import app, logging

CASES = ("guide_tpu_mnist",)

flags = tf.compat.v1.flags

flags.DEFINE_string("tpu", default=None, help="The Cloud TPU to use for training.")
flags.DEFINE_string("tpu_zone", default=None, help="GCE zone of the Cloud TPU.")
flags.DEFINE_string("gcp_project", default=None, help="Project name of the Cloud TPU.")
flags.DEFINE_string("model_dir", None, "Estimator model_dir")
flags.DEFINE_string("out_json", None, "Where to write the run's numbers.")
flags.DEFINE_integer("batch_size", 16, "Mini-batch size for the training.")
flags.DEFINE_integer("train_steps", 40, "Total number of training steps.")
flags.DEFINE_integer("eval_steps", 2, "Total number of evaluation steps.")
flags.DEFINE_float("learning_rate", 0.05, "Learning rate.")
flags.DEFINE_integer("iterations", 10, "Number of iterations per TPU training loop.")
flags.DEFINE_integer("num_shards", 8, "Number of shards (TPU chips).")
flags.DEFINE_bool("use_tpu", False, "Use TPUs rather than plain CPUs")
flags.DEFINE_bool("enable_predict", True, "Do some predictions at the end")

FLAGS = flags.FLAGS


def make_digits(seed, n):
    """Generated 28x28 'digits': one fixed random template per class, plus noise."""
    templates = (np.random.RandomState(0).uniform(size=(10, 784)) > 0.7).astype("float32")
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 10, n).astype("int32")
    images = templates[labels] * 0.8 + 0.2 * rng.uniform(size=(n, 784))
    return images.astype("float32"), labels


def create_model(data_format):
    """The tutorial's CNN, smaller, without Dropout."""
    input_shape = [28, 28, 1] if data_format == "channels_last" else [1, 28, 28]
    layers = tf.keras.layers
    max_pool = layers.MaxPooling2D((2, 2), (2, 2), padding="same", data_format=data_format)
    return tf.keras.Sequential(
        [
            layers.Reshape(target_shape=input_shape, input_shape=(28 * 28,)),
            layers.Conv2D(4, 5, padding="same", data_format=data_format, activation=tf.nn.relu),
            max_pool,
            layers.Conv2D(8, 5, padding="same", data_format=data_format, activation=tf.nn.relu),
            max_pool,
            layers.Flatten(),
            layers.Dense(32, activation=tf.nn.relu),
            layers.Dense(10),
        ]
    )


def metric_fn(labels, logits):
    accuracy = tf.compat.v1.metrics.accuracy(labels=labels, predictions=tf.argmax(logits, axis=1))
    return {"accuracy": accuracy}


def model_fn(features, labels, mode, params):
    """model_fn constructs the ML model used to predict handwritten digits."""
    del params
    image = features
    if isinstance(image, dict):
        image = features["image"]

    model = create_model("channels_last")

    if mode == tf.estimator.ModeKeys.PREDICT:
        logits = model(image, training=False)
        predictions = {
            "class_ids": tf.argmax(logits, axis=1),
            "probabilities": tf.nn.softmax(logits),
        }
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, predictions=predictions)

    logits = model(image, training=(mode == tf.estimator.ModeKeys.TRAIN))
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)

    if mode == tf.estimator.ModeKeys.TRAIN:
        learning_rate = tf.compat.v1.train.exponential_decay(
            FLAGS.learning_rate,
            tf.compat.v1.train.get_global_step(),
            decay_steps=100000,
            decay_rate=0.96,
        )
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=learning_rate)
        if FLAGS.use_tpu:
            optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode=mode,
            loss=loss,
            train_op=optimizer.minimize(loss, tf.compat.v1.train.get_global_step()),
        )

    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode=mode, loss=loss, eval_metrics=(metric_fn, [labels, logits])
        )


def train_input_fn(params):
    """train_input_fn defines the input pipeline used for training."""
    batch_size = params["batch_size"]
    images, labels = make_digits(1, 160)
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    return ds.repeat().batch(batch_size, drop_remainder=True)


def eval_input_fn(params):
    batch_size = params["batch_size"]
    images, labels = make_digits(2, 64)
    ds = tf.data.Dataset.from_tensor_slices((images, labels))
    return ds.batch(batch_size, drop_remainder=True)


def predict_input_fn(params):
    batch_size = params["batch_size"]
    images, _ = make_digits(2, 64)
    # Take out the first 16 images for prediction.
    ds = tf.data.Dataset.from_tensor_slices(images[:16])
    return ds.batch(batch_size)


def main(argv):
    del argv  # Unused.
    logging.set_verbosity(logging.INFO)

    tpu_cluster_resolver = None
    if FLAGS.tpu:
        tpu_cluster_resolver = tf.distribute.cluster_resolver.TPUClusterResolver(
            FLAGS.tpu, zone=FLAGS.tpu_zone, project=FLAGS.gcp_project
        )

    run_config = tf.compat.v1.estimator.tpu.RunConfig(
        cluster=tpu_cluster_resolver,
        model_dir=FLAGS.model_dir,
        save_checkpoints_steps=20,
        tf_random_seed=7,
        session_config=tf.compat.v1.ConfigProto(allow_soft_placement=True),
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(FLAGS.iterations, FLAGS.num_shards),
    )

    estimator = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=model_fn,
        use_tpu=FLAGS.use_tpu,
        train_batch_size=FLAGS.batch_size,
        eval_batch_size=FLAGS.batch_size,
        predict_batch_size=FLAGS.batch_size,
        config=run_config,
    )
    # TPUEstimator.train *requires* a max_steps argument.
    estimator.train(input_fn=train_input_fn, max_steps=FLAGS.train_steps)
    # TPUEstimator.evaluate *requires* a steps argument.
    metrics = {}
    if FLAGS.eval_steps:
        metrics = estimator.evaluate(input_fn=eval_input_fn, steps=FLAGS.eval_steps)
        logging.info("Evaluation results: %s", metrics)

    probabilities, classes = [], []
    if FLAGS.enable_predict:
        predictions = estimator.predict(input_fn=predict_input_fn)
        _, expected = make_digits(2, 64)
        for pred_dict, expec in zip(predictions, expected[:16]):
            class_id = pred_dict["class_ids"]
            probability = pred_dict["probabilities"][class_id]
            logging.info(
                'Prediction is "%s" (%.1f%%), expected "%s"', class_id, 100 * probability, expec
            )
            probabilities.append(pred_dict["probabilities"].tolist())
            classes.append(int(class_id))

    if FLAGS.out_json:
        ckpt = tf.train.latest_checkpoint(FLAGS.model_dir)
        out = {
            "eval_metrics": {k: float(v) for k, v in metrics.items()},
            "predictions": probabilities,
            "classes": classes,
            "variables": sorted(name for name, _ in tf.train.list_variables(ckpt)),
            "steps": FLAGS.train_steps,
            "batch_size": FLAGS.batch_size,
            "use_tpu": FLAGS.use_tpu,
        }
        with open(FLAGS.out_json, "w") as f:
            json.dump(out, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] in CASES:  # the generator's contract
        sys.argv = [sys.argv[0], "--model_dir=" + sys.argv[2], "--out_json=" + sys.argv[3]]
    app.run(main)
