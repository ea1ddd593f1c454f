"""An RNN classifier with one prediction per time step (``return_sequences=True``).

Usage::

    python families_rnn_seq.py CASE MODEL_DIR OUT_JSON

- ``families_rnn_seq``: binary ``RNNClassifier(return_sequences=True)``, ``units=[4]``,
  ``cell_type='gru'``, a sequence numeric and a sequence embedding column, a label per
  step and a per-step weight feature given as ``weight_column='w'`` (a string, as the
  legacy sequential head requires). Sequences are 1 to 5 steps long; every global batch
  holds one of 5 steps (the legacy sequence mask is as long as a batch's longest
  sequence and must match the padded logits), and the second half of the second
  training batch holds none (two replicas then see halves of different lengths).

Trains 40 steps (resuming from any checkpoint in MODEL_DIR, checkpoints every 20 steps),
evaluates, predicts and writes ``eval_metrics``, ``predictions`` (per example: the
per-step ``probabilities`` and ``class_ids``, and the ``sequence_mask``) and
``variables`` (the step-40 checkpoint's names) to OUT_JSON.

The artifact ``families_seq_head`` (``python families_rnn_seq.py families_seq_head
OUT_DIR``) writes ``OUT_DIR/expected.json``: the public interface of
``SequentialHeadWrapper`` (``head.sequential_head``) run eagerly on fixed per-step
logits, labels, weights and mask (``seq_head_numbers``): ``name``, ``logits_dimension``,
``loss``, the ``update_metrics`` results and the numeric ``predictions``, for a binary
head with a per-step weight feature and a 3-class head.

The artifact ``families_rnn_seq_export`` trains the case's estimator 2 steps from scratch,
keeps that checkpoint in ``OUT_DIR/model_dir`` and writes ``OUT_DIR/expected.json``: the
signatures of ``export_saved_model`` with a parsing receiver and the ``predict``
signature's outputs for three fixed tf.Examples (``export_numbers``).
"""

import json
import os
import sys

import numpy as np

CASES = ("families_rnn_seq",)
ARTIFACTS = ("families_seq_head", "families_rnn_seq_export")

STEPS = 40
BATCH = 16
MAX_LEN = 5
PAD = -1


def _sequences():
    rng = np.random.RandomState(33)
    n = 64
    lengths = rng.randint(1, MAX_LEN + 1, n)
    lengths[::BATCH] = MAX_LEN
    second = slice(BATCH + BATCH // 2, 2 * BATCH)
    lengths[second] = np.minimum(lengths[second], 3)
    values = rng.normal(size=(n, MAX_LEN)).astype("float32")
    tokens = rng.randint(0, 6, (n, MAX_LEN)).astype("int64")
    weights = rng.uniform(0.5, 1.5, (n, MAX_LEN)).astype("float32")
    mask = np.arange(MAX_LEN)[None, :] < lengths[:, None]
    values = np.where(mask, values, PAD).astype("float32")
    tokens = np.where(mask, tokens, PAD).astype("int64")
    weights = np.where(mask, weights, 0.0).astype("float32")
    running = np.cumsum(np.where(mask, values, 0.0), axis=1) + 0.5 * (tokens == 2)
    labels = np.where(mask, running > 0.0, 0).astype("int64")
    return {"price": values, "token": tokens, "w": weights}, labels


def _to_sparse(features):
    import tensorflow as tf

    out = dict(features)
    for key in ("price", "token"):
        dense = features[key]
        idx = tf.where(tf.not_equal(dense, PAD))
        out[key] = tf.SparseTensor(
            idx, tf.gather_nd(dense, idx), tf.shape(dense, out_type=tf.int64)
        )
    return out


def _columns():
    import tensorflow as tf

    fc = tf.feature_column
    token = fc.sequence_categorical_column_with_identity("token", num_buckets=6)
    return [fc.sequence_numeric_column("price"), fc.embedding_column(token, dimension=3)]


def _estimator(model_dir):
    import tensorflow as tf

    config = tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=20, tf_random_seed=4
    )
    return tf.estimator.experimental.RNNClassifier(
        sequence_feature_columns=_columns(),
        units=[4],
        cell_type="gru",
        return_sequences=True,
        weight_column="w",
        config=config,
    )


def families_rnn_seq(model_dir):
    import tensorflow as tf

    features, labels = _sequences()
    est = _estimator(model_dir)

    def input_fn(train):
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        ds = ds.repeat().batch(BATCH) if train else ds.batch(32)
        return ds.map(lambda f, y: (_to_sparse(f), y))

    est.train(lambda: input_fn(True), max_steps=STEPS)
    metrics = est.evaluate(lambda: input_fn(False))
    preds = [
        {
            "probabilities": p["probabilities"].tolist(),
            "class_ids": p["class_ids"].tolist(),
            "sequence_mask": p["sequence_mask"].astype("int64").tolist(),
        }
        for p in est.predict(lambda: input_fn(False))
    ]
    return {"eval_metrics": metrics, "predictions": preds[:32]}


def seq_head_numbers():
    """The sequential head's interface on fixed numbers (3 sequences of 4, 2 and 3 steps)."""
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.head import sequential_head

    rng = np.random.RandomState(5)
    lengths = np.array([4, 2, 3])
    mask = tf.constant(np.arange(4)[None, :] < lengths[:, None])
    out = {}
    for kind, n_classes in (("binary", 2), ("multi_class", 3)):
        if n_classes == 2:
            static = tf.estimator.BinaryClassHead(weight_column="w", name="seq")
            head = sequential_head.SequentialHeadWrapper(static, "mask", feature_columns="w")
        else:
            static = tf.estimator.MultiClassHead(n_classes)
            head = sequential_head.SequentialHeadWrapper(static, "mask")
        width = 1 if n_classes == 2 else n_classes
        logits = tf.constant(rng.normal(size=(3, 4, width)).astype("float32"))
        labels = tf.constant(rng.randint(0, n_classes, (3, 4)).astype("int64"))
        weights = tf.constant(rng.uniform(0.5, 1.5, (3, 4)).astype("float32"))
        features = {"mask": mask, "w": weights}
        loss = head.loss(logits=logits, labels=labels, features=features)
        metrics = head.update_metrics(head.metrics(), features, logits, labels)
        predictions = head.predictions(logits)
        out[kind] = {
            "name": head.name,
            "logits_dimension": head.logits_dimension,
            "loss": float(loss),
            "metrics": {key: float(m.result()) for key, m in metrics.items()},
            "predictions": {
                key: np.asarray(value).tolist()
                for key, value in predictions.items()
                if value.dtype != tf.string
            },
        }
    return out


def export_numbers(model_dir, export_base):
    """Exports the case's model (parsing receiver) and serves fixed tf.Examples from it.

    Returns each signature's input and output keys and the `predict` signature's numeric
    outputs for three examples of 3, 1 and 5 steps.
    """
    import tensorflow as tf

    est = _estimator(model_dir)
    spec = tf.feature_column.make_parse_example_spec(_columns())
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    path = est.export_saved_model(export_base, receiver)
    signatures = tf.saved_model.load(path.decode()).signatures
    out = {
        name: {
            "inputs": sorted(fn.structured_input_signature[1]),
            "outputs": sorted(fn.structured_outputs),
        }
        for name, fn in signatures.items()
    }
    rng = np.random.RandomState(8)
    examples = []
    for steps in (3, 1, 5):
        feature = {
            "price": tf.train.Feature(
                float_list=tf.train.FloatList(value=rng.normal(size=steps).tolist())
            ),
            "token": tf.train.Feature(
                int64_list=tf.train.Int64List(value=rng.randint(0, 6, steps).tolist())
            ),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        examples.append(example.SerializeToString())
    served = signatures["predict"](examples=tf.constant(examples))
    out["served"] = {
        key: np.asarray(value).tolist() for key, value in served.items() if value.dtype != tf.string
    }
    return out


def families_rnn_seq_export(out_dir):
    """Trains 2 steps from scratch, keeps the checkpoint, writes export_numbers' result."""
    import shutil
    import tempfile

    import tensorflow as tf

    features, labels = _sequences()
    work = tempfile.mkdtemp()
    try:
        est = _estimator(os.path.join(work, "model"))

        def input_fn():
            ds = tf.data.Dataset.from_tensor_slices((features, labels)).repeat().batch(BATCH)
            return ds.map(lambda f, y: (_to_sparse(f), y))

        est.train(input_fn, max_steps=2)
        model_dir = os.path.join(out_dir, "model_dir")
        os.makedirs(model_dir)
        for name in os.listdir(os.path.join(work, "model")):
            if name.startswith("model.ckpt-2."):
                shutil.copy(os.path.join(work, "model", name), model_dir)
        with open(os.path.join(model_dir, "checkpoint"), "w") as f:
            f.write('model_checkpoint_path: "model.ckpt-2"\n')
        numbers = export_numbers(model_dir, os.path.join(work, "export"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(_plain(numbers), f, indent=1, sort_keys=True)


def families_seq_head(out_dir):
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(_plain(seq_head_numbers()), f, indent=1, sort_keys=True)


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes its numbers to OUT_JSON."""
    import tensorflow as tf

    model_dir = os.path.abspath(model_dir)
    result = globals()[case](model_dir)
    ckpt = tf.train.latest_checkpoint(model_dir)
    result["variables"] = sorted(name for name, _ in tf.train.list_variables(ckpt))
    result["steps"] = STEPS
    with open(out_json, "w") as f:
        json.dump(_plain(result), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] in ARTIFACTS:
        globals()[sys.argv[1]](sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] in CASES:
        main(*sys.argv[1:])
    else:
        sys.exit(
            "usage: families_rnn_seq.py {families_rnn_seq MODEL_DIR OUT_JSON | "
            "families_seq_head OUT_DIR | families_rnn_seq_export OUT_DIR}"
        )
