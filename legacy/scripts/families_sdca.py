"""LinearSDCA trained to convergence: the converged solutions, not steps, are the golden.

Usage::

    python families_sdca.py families_sdca OUT_DIR

TensorFlow's SDCA kernel shuffles every batch with an unseeded random device, so two runs
differ step by step (on the legacy stack too). Its L2-regularised objective is strongly
convex, so the converged weights are unique: each estimator below trains on a tiny fixed
problem (64 examples, one full batch per step) for ``STEPS`` steps, well past convergence,
twice; OUT_DIR/expected.json holds, per estimator, the weights (checkpoint name -> values),
``eval_metrics``, ``predictions``, ``variables`` (checkpoint names), ``summary_tags``
(scalar training summaries, tag -> last value) and ``run_to_run`` (the largest weight
difference between the two runs).

- ``classifier_v2``: ``tf.estimator.LinearClassifier`` (logistic_loss), a 2-d numeric
  column, a vocabulary column and a hashed column, ``symmetric_l2_regularization=2.0``.
- ``regressor_v2``: ``tf.estimator.LinearRegressor`` (squared_loss), the same columns,
  a weight column, ``symmetric_l1_regularization=0.05``, ``num_table_shards=2``.
- ``classifier_v1``: ``tf.compat.v1.estimator.LinearClassifier``, v2 columns.
"""

import json
import os
import sys
import tempfile

import numpy as np

ARTIFACTS = ("families_sdca",)

N = 64
STEPS = 300
RUNS = 2


def _data():
    rng = np.random.RandomState(11)
    x = rng.normal(size=(N, 2)).astype("float32")
    color = np.array(["red", "green", "blue", "other"])[rng.randint(0, 4, N)]
    word = np.array([f"w{i}" for i in range(8)])[rng.randint(0, 8, N)]
    w = rng.uniform(0.5, 1.5, N).astype("float32")
    bump = {"red": 1.0, "green": -0.5, "blue": 0.2, "other": 0.0}
    score = 1.5 * x[:, 0] - x[:, 1] + np.array([bump[c] for c in color]) + 0.3
    y_reg = (score + rng.normal(scale=0.3, size=N)).astype("float32")
    y_cls = (score + rng.normal(scale=0.8, size=N) > 0).astype("int64")
    ids = np.array([f"ex{i:03d}" for i in range(N)])
    features = {"x": x, "color": color, "word": word, "w": w, "example_id": ids}
    return features, y_cls, y_reg


def _columns(tf):
    fc = tf.feature_column
    return [
        fc.numeric_column("x", shape=(2,)),
        fc.categorical_column_with_vocabulary_list("color", ["red", "green", "blue"]),
        fc.categorical_column_with_hash_bucket("word", 5),
    ]


def _make(tf, kind, model_dir):
    cols = _columns(tf)
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=STEPS)
    if kind == "classifier_v2":
        opt = tf.estimator.experimental.LinearSDCA(
            example_id_column="example_id", symmetric_l2_regularization=2.0
        )
        return tf.estimator.LinearClassifier(cols, optimizer=opt, config=config)
    if kind == "regressor_v2":
        opt = tf.estimator.experimental.LinearSDCA(
            example_id_column="example_id",
            num_table_shards=2,
            symmetric_l1_regularization=0.05,
            symmetric_l2_regularization=1.5,
        )
        return tf.estimator.LinearRegressor(cols, weight_column="w", optimizer=opt, config=config)
    opt = tf.compat.v1.estimator.experimental.LinearSDCA(
        example_id_column="example_id", symmetric_l2_regularization=2.0
    )
    return tf.compat.v1.estimator.LinearClassifier(cols, optimizer=opt, config=config)


def _run(kind, model_dir):
    import tensorflow as tf

    features, y_cls, y_reg = _data()
    labels = y_reg if kind.startswith("regressor") else y_cls

    def train_input_fn():
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        return ds.batch(N).repeat()

    def eval_input_fn():
        return tf.data.Dataset.from_tensor_slices((features, labels)).batch(N)

    est = _make(tf, kind, model_dir)
    est.train(train_input_fn, steps=STEPS)
    metrics = est.evaluate(eval_input_fn)
    key = "predictions" if kind.startswith("regressor") else "logistic"
    preds = [p[key].tolist() for p in est.predict(eval_input_fn)]
    ckpt = tf.train.latest_checkpoint(model_dir)
    names = sorted(name for name, _ in tf.train.list_variables(ckpt))
    weights = {
        name: tf.train.load_variable(ckpt, name).tolist()
        for name in names
        if name.startswith("linear/") and "_unshrunk" not in name
    }
    return {
        "summary_tags": _summary_tags(tf, model_dir),
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": preds,
        "variables": names,
        "weights": weights,
    }


def _summary_tags(tf, model_dir):
    """Scalar tag -> its last value, from the training event files of MODEL_DIR."""
    tags = {}
    for path in sorted(tf.io.gfile.glob(os.path.join(model_dir, "events.out.tfevents*"))):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.HasField("simple_value"):
                    tags[value.tag] = float(value.simple_value)
    return tags


def _largest(a, b):
    return max(
        float(np.max(np.abs(np.asarray(a[k], "float64") - np.asarray(b[k], "float64")))) for k in a
    )


def main(name, out_dir):
    assert name in ARTIFACTS, name
    os.makedirs(out_dir, exist_ok=True)
    expected = {"steps": STEPS, "examples": N}
    for kind in ("classifier_v2", "regressor_v2", "classifier_v1"):
        runs = []
        for _ in range(RUNS):
            with tempfile.TemporaryDirectory() as model_dir:
                runs.append(_run(kind, model_dir))
        first = runs[0]
        first["run_to_run"] = max(_largest(first["weights"], r["weights"]) for r in runs)
        expected[kind] = first
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
