"""The v2 heads' public metrics interface: ``head.metrics()`` and ``head.update_metrics()``.

Usage::

    python api_head_metrics.py api_head_metrics OUT_DIR

Writes ``OUT_DIR/expected.json`` with, for each head below, the keys of ``head.metrics()``
(with and without regularization losses) and the results of ``update_metrics`` over two
fixed batches, run eagerly (``eager``); and the ``eval_metrics`` of
``Estimator.evaluate`` with a custom ``model_fn`` whose ``eval_metric_ops`` are
``head.update_metrics(head.metrics(), ...)`` on fixed logits (``estimator``), the way a
2020 user wrote a model_fn around a v2 head:

- ``binary``: ``BinaryClassHead(weight_column='w', thresholds=[0.3, 0.7], name='bin')``
- ``multi_label``: ``MultiLabelHead(3, weight_column='w', thresholds=[0.4],
  classes_for_class_based_metrics=[0, 2])``
- ``multi_label_vocab``: ``MultiLabelHead(3, label_vocabulary=['a', 'b', 'c'],
  classes_for_class_based_metrics=['c'])`` (string labels)
- ``multi_class``: ``MultiClassHead(3)``
- ``regression``: ``RegressionHead(label_dimension=2, weight_column='w')``
"""

import json
import os
import shutil
import sys

import numpy as np

ARTIFACTS = ("api_head_metrics",)
BATCH = 6


def _heads():
    import tensorflow as tf

    return {
        "binary": tf.estimator.BinaryClassHead(
            weight_column="w", thresholds=[0.3, 0.7], name="bin"
        ),
        "multi_label": tf.estimator.MultiLabelHead(
            3, weight_column="w", thresholds=[0.4], classes_for_class_based_metrics=[0, 2]
        ),
        "multi_label_vocab": tf.estimator.MultiLabelHead(
            3, label_vocabulary=["a", "b", "c"], classes_for_class_based_metrics=["c"]
        ),
        "multi_class": tf.estimator.MultiClassHead(3),
        "regression": tf.estimator.RegressionHead(label_dimension=2, weight_column="w"),
    }


def _batch(kind, seed):
    """(features, logits, labels) as numpy: fixed numbers per head kind and batch."""
    rng = np.random.RandomState(seed)
    width = {"binary": 1, "multi_class": 3, "regression": 2}.get(kind, 3)
    logits = rng.normal(size=(BATCH, width)).astype("float32")
    features = {"w": rng.uniform(0.5, 1.5, (BATCH, 1)).astype("float32")}
    if kind == "binary":
        labels = rng.randint(0, 2, (BATCH, 1)).astype("int64")
    elif kind == "multi_label":
        labels = rng.randint(0, 2, (BATCH, 3)).astype("int64")
    elif kind == "multi_label_vocab":
        hits = rng.randint(0, 2, (BATCH, 3))
        hits[:, 0] = 1  # every example has at least one label
        words = [[w for w, h in zip("abc", row) if h] for row in hits]
        labels = np.array([row + [""] * (3 - len(row)) for row in words])
    elif kind == "multi_class":
        labels = rng.randint(0, 3, (BATCH, 1)).astype("int64")
    else:
        labels = rng.normal(size=(BATCH, 2)).astype("float32")
    return features, logits, labels


def _labels_tensor(tf, labels):
    if labels.dtype.kind in "US":  # multi-label vocabulary: a SparseTensor of strings
        return tf.sparse.from_dense(tf.constant(labels))
    return tf.constant(labels)


def eager_numbers():
    """Each head's metric keys and two batches' `update_metrics` results, eagerly."""
    import tensorflow as tf

    out = {}
    for kind, head in _heads().items():
        reg = [tf.constant(0.25)]
        metrics = head.metrics(regularization_losses=reg)
        for seed in (1, 2):
            features, logits, labels = _batch(kind, seed)
            feats = {k: tf.constant(v) for k, v in features.items()}
            head.update_metrics(
                metrics, feats, tf.constant(logits), _labels_tensor(tf, labels), reg
            )
        out[kind] = {
            "keys": sorted(head.metrics()),
            "keys_with_regularization": sorted(metrics),
            "results": {key: float(m.result()) for key, m in metrics.items()},
        }
    return out


def estimator_numbers(model_dir):
    """`evaluate` of a custom model_fn whose eval_metric_ops come from a v2 head."""
    import tensorflow as tf

    out = {}
    for kind, head in _heads().items():
        batches = [_batch(kind, seed) for seed in (1, 2)]

        def input_fn(batches=batches):
            features = {"w": np.concatenate([b[0]["w"] for b in batches])}
            features["logits"] = np.concatenate([b[1] for b in batches])
            labels = np.concatenate([b[2] for b in batches])
            ds = tf.data.Dataset.from_tensor_slices((features, labels)).batch(BATCH)
            if labels.dtype.kind in "US":
                ds = ds.map(lambda f, y: (f, tf.sparse.from_dense(y)))
            return ds

        est = tf.estimator.Estimator(_model_fn(head), os.path.join(model_dir, kind))
        result = est.evaluate(input_fn, steps=2)
        out[kind] = {key: float(value) for key, value in result.items() if key != "global_step"}
    return out


def _model_fn(head):
    import tensorflow as tf

    def model_fn(features, labels, mode):
        scale = tf.compat.v1.get_variable("scale", [], initializer=tf.ones_initializer())
        logits = features["logits"] * scale
        metrics = head.update_metrics(head.metrics(), features, logits, labels)
        loss = head.loss(labels, logits, features)
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)

    return model_fn


def api_head_metrics(out_dir):
    """Writes OUT_DIR/expected.json (see the module docstring)."""
    numbers = {
        "eager": eager_numbers(),
        "estimator": estimator_numbers(os.path.join(out_dir, ".model_dirs")),
    }
    shutil.rmtree(os.path.join(out_dir, ".model_dirs"), ignore_errors=True)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(numbers, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ARTIFACTS:
        api_head_metrics(sys.argv[2])
    else:
        sys.exit("usage: api_head_metrics.py api_head_metrics OUT_DIR")
