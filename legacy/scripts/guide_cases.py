"""Scripts written the way the TF tutorials and migration guides wrote Estimator code.

Usage::

    python guide_cases.py CASE MODEL_DIR OUT_JSON     # an Estimator case (see CASES)
    python guide_cases.py guide_console OUT_DIR       # the console golden (ARTIFACTS)
    python guide_cases.py --console MODEL_DIR         # the console run itself

``guide_linear_census``: the linear-model tutorial's shape: a LinearClassifier on
bucketized ``age`` (float64, as pandas gives it), a ``crossed_column`` of the raw numeric
key ``age`` with ``sex`` and a vocabulary column, 40 steps of batch 16, checkpoints at 0,
20 and 40.

``guide_console``: runs this script with ``--console`` (a custom model_fn of
``tf.compat.v1.layers``, trained 40 steps, evaluated, predicted, after
``tf.compat.v1.logging.set_verbosity(INFO)``, under ``absl.app.run``) and writes
``kinds.json``: the sequence of ``INFO:tensorflow:`` message kinds it printed (numbers,
paths and times removed) and the script's own lines (``print`` and ``absl.logging.info``).
"""

import json
import os
import re
import subprocess
import sys

import numpy as np

CASES = ("guide_linear_census",)
ARTIFACTS = ("guide_console",)

STEPS = 40
BATCH = 16


def _census():
    rng = np.random.RandomState(2019)
    n = 192
    age = rng.uniform(17, 90, n).round()  # float64, as read by pandas
    sex = np.array(["Female", "Male"])[rng.randint(0, 2, n)]
    edu = np.array(["Bachelors", "HS-grad", "Masters", "Doctorate"])[rng.randint(0, 4, n)]
    label = ((age > 40) & (sex == "Male") | (edu == "Doctorate")).astype("int64")
    return {"age": age, "sex": sex, "education": edu}, label


def _linear_census(model_dir, out_json):
    import tensorflow as tf

    features, label = _census()
    fc = tf.feature_column
    age = fc.numeric_column("age")
    age_buckets = fc.bucketized_column(age, boundaries=[18, 25, 30, 35, 40, 45, 50, 55, 60, 65])
    sex = fc.categorical_column_with_vocabulary_list("sex", ["Female", "Male"])
    edu = fc.categorical_column_with_vocabulary_list(
        "education", ["Bachelors", "HS-grad", "Masters", "Doctorate"]
    )
    columns = [
        age,
        age_buckets,
        sex,
        edu,
        fc.crossed_column(["age", "sex"], hash_bucket_size=50),
        fc.crossed_column([age_buckets, "education"], hash_bucket_size=50),
    ]

    def train_input_fn():
        ds = tf.data.Dataset.from_tensor_slices((dict(features), label))
        return ds.repeat().batch(BATCH)

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices((dict(features), label)).batch(64)

    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=20, tf_random_seed=42
    )
    est = tf.estimator.LinearClassifier(feature_columns=columns, config=config)
    est.train(train_input_fn, max_steps=STEPS)
    metrics = est.evaluate(eval_input_fn)
    preds = [p["logistic"].tolist() for p in est.predict(eval_input_fn)][:32]
    ckpt = tf.train.latest_checkpoint(model_dir)
    out = {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": preds,
        "variables": sorted(name for name, _ in tf.train.list_variables(ckpt)),
        "steps": STEPS,
        "batch_size": BATCH,
    }
    with open(out_json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


_CUT = re.compile(r"(:| into | from | at |\().*$")


def kind(message):
    """The kind of a log message: its text before any value, numbers as N."""
    text = _CUT.sub("", message).strip()
    return re.sub(r"\d+", "N", text)


def console_kinds(text):
    """`{"info": [kind, ...], "user": [line, ...]}` of a console run's output."""
    info, user = [], []
    for line in text.splitlines():
        if line.startswith("INFO:tensorflow:"):
            info.append(kind(line[len("INFO:tensorflow:") :]))
        found = re.search(r"(user says: .*)$", line)
        if found:
            user.append(found.group(1))
    return {"info": info, "user": user}


def _console_run(model_dir):
    import tensorflow as tf
    from absl import app
    from absl import logging as absl_logging

    tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.INFO)
    rng = np.random.RandomState(0)
    x = rng.normal(size=(64, 4)).astype("float32")
    y = (x.sum(1) > 0).astype("int64")

    def input_fn(train):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return ds.repeat().batch(8) if train else ds.batch(16)

    def model_fn(features, labels, mode):
        hidden = tf.compat.v1.layers.dense(features["x"], 8, activation=tf.nn.relu)
        logits = tf.compat.v1.layers.dense(hidden, 2)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"c": tf.argmax(logits, 1)})
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss, global_step=step)
        acc = tf.compat.v1.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": acc}
        )

    def main(argv):
        del argv
        config = tf.estimator.RunConfig(
            model_dir=model_dir,
            save_checkpoints_steps=20,
            log_step_count_steps=10,
            tf_random_seed=1,
        )
        est = tf.estimator.Estimator(model_fn, config=config)
        print("user says: training")
        est.train(lambda: input_fn(True), max_steps=STEPS)
        result = est.evaluate(lambda: input_fn(False), steps=3)
        absl_logging.info("user says: accuracy is %s", result["accuracy"] > 0)
        predictions = list(est.predict(lambda: input_fn(False)))
        absl_logging.info("user says: Prediction is %d", len(predictions))
        print("user says: done", flush=True)

    app.run(main, argv=[sys.argv[0]])


def _console_golden(out_dir):
    os.makedirs(out_dir, exist_ok=True)
    model_dir = os.path.join(out_dir, ".model_dir")
    proc = subprocess.run(
        [sys.executable, os.path.abspath(__file__), "--console", model_dir],
        capture_output=True,
        text=True,
        check=True,
    )
    import shutil

    shutil.rmtree(model_dir)
    with open(os.path.join(out_dir, "kinds.json"), "w") as f:
        json.dump(console_kinds(proc.stderr + proc.stdout), f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--console":
        _console_run(sys.argv[2])
    elif len(sys.argv) == 3 and sys.argv[1] in ARTIFACTS:
        _console_golden(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] in CASES:
        _linear_census(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: guide_cases.py {CASE MODEL_DIR OUT_JSON | guide_console OUT_DIR}")
