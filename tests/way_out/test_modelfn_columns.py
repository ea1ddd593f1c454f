"""`tfport keras export` of a custom model_fn over feature columns: the columns become Keras
preprocessing layers in model.py, and a plain Keras process (TensorFlow backend, no tfport)
predicts what the Estimator predicted."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest
import run_exported

from tfport.keras import export_model_fn
from tfport.verify import load_estimator

HERE = pathlib.Path(__file__).resolve().parent
FACTORIES = HERE / "column_factories.py"


CASES = ("columns", "dense_features")  # input_layer; a tf_keras DenseFeatures layer


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{case: (model_dir, export folder, prediction rows, the Estimator's predictions)},
    each Estimator trained 10 steps."""
    sys.path.insert(0, str(HERE))
    import column_factories as cf

    root = tmp_path_factory.mktemp("columns")
    found = {}
    for case in CASES:
        model_dir = root / case / "model_dir"
        model_dir.mkdir(parents=True)
        estimator = load_estimator(f"{FACTORIES}:{case}", str(model_dir))
        estimator.train(cf.input_fn(*cf.rows(0)), steps=10)
        rows, _ = cf.rows(1, 16)
        want = list(estimator.predict(cf.input_fn(rows)))
        out = root / case / "out"
        export_model_fn(estimator, str(out), factory=f"column_factories.py:{case}")
        found[case] = model_dir, out, rows, {k: np.array([p[k] for p in want]) for k in want[0]}
    return found


def test_predictions_match_the_estimator_in_plain_keras_on_tensorflow(exported, tmp_path):
    pairs = []
    for case, (_, out, rows, _) in exported.items():
        np.savez(tmp_path / f"{case}.npz", **rows)
        pairs.append((out, tmp_path / f"{case}.npz"))
    result = run_exported.run(tmp_path / "result.npz", "tensorflow", pairs)
    assert "tfport" not in result["modules"] and "tf_keras" not in result["modules"]
    for i, (case, (_, _, _, want)) in enumerate(exported.items()):
        assert np.abs(want["logits"]).max() > 0.1
        for kind in ("loaded", "built"):
            for key in ("logits", "probabilities"):
                diff = float(np.abs(result[f"{i}/{kind}/{key}"] - want[key]).max())
                print(f"{case} {key} ({kind}): max difference from the Estimator {diff:.3g}")
                assert diff <= 1e-5, (case, kind, key, diff)


@pytest.mark.parametrize("case", CASES)
def test_columns_are_preprocessing_layers_over_raw_inputs(exported, case):
    _, out, _, _ = exported[case]
    scope = "input_layer" if case == "columns" else "dense_features"
    report = json.loads((out / "report.json").read_text())
    assert report["inputs"] == {
        "age": ["float32", []],
        "city": ["string", []],
        "color": ["string", []],
    }
    source = (out / "model.py").read_text()
    for layer in ("Discretization", "StringLookup", "Hashing", "HashedCrossing", "Embedding"):
        assert f"layers.{layer}(" in source, layer
    assert "KERAS_BACKEND=tensorflow" in source
    assert "tensorflow" not in {
        line.split()[1] for line in source.splitlines() if line.startswith(("import", "from"))
    }
    variables = report["variables"]
    for name, shape in (("city", [10, 3]), ("color", [3, 2]), ("age_bucketized_X_color", [12, 2])):
        entry = variables[f"{scope}/{name}_embedding/embedding_weights"]
        assert entry["weight"] == "embeddings" and entry["shape"] == shape, name
    assert [v for v, e in variables.items() if "refused" in e] == ["global_step"]
    kinds = {o["to"] for o in report["ops"] if o["type"] == "LookupTableFindV2"}
    assert kinds and all(k.startswith("feature columns (") for k in kinds)


def test_keras_hashing_and_crossing_give_tensorflows_buckets():
    import tensorflow as tf

    import keras

    words = tf.constant([["paris"], ["lima"], ["oslo"], [""], ["a much longer city name"]])
    want = tf.strings.to_hash_bucket_fast(words, 10)  # feature columns' hash bucket
    np.testing.assert_array_equal(keras.layers.Hashing(num_bins=10)(words), want)
    ids = tf.constant([[0], [3], [1], [2], [3]], tf.int64)
    crossed = tf.sparse.to_dense(tf.sparse.cross_hashed([ids, words], num_buckets=12))
    got = keras.layers.HashedCrossing(num_bins=12)((ids, words))
    np.testing.assert_array_equal(np.reshape(got, (-1, 1)), crossed)


def test_a_column_with_no_keras_form_is_refused_naming_it(exported, tmp_path):
    model_dir, _, _, _ = exported["columns"]
    estimator = load_estimator(f"{FACTORIES}:normalized", str(model_dir))
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    text = str(err.value)
    assert "\n" not in text and "'age' (NumericColumn)" in text and "normalizer_fn" in text
    assert "column_factories.py:" in text and "input_layer(" in text, text
    assert not (tmp_path / "out").exists()
