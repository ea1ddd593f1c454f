"""`tfport keras export` of model_fns over partitioned tables and raw string lookups:
a partitioned table is one `Embedding` (its parts merged in the order TensorFlow's lookup
reads them), a partitioned kernel one `Dense` kernel, `to_hash_bucket_fast`/`_strong`
are `Hashing`, static vocabulary tables `StringLookup`/`IntegerLookup`, and the v1
`DenseFeatures` layer (with a partitioner) is exported as the v2 one is."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest
import run_exported

from tfport.keras import export_model_fn
from tfport.verify import load_estimator

HERE = pathlib.Path(__file__).resolve().parent
FACTORIES = HERE / "table_factories.py"
CASES = ("partitioned", "strings")


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """{case: (model_dir, export folder, prediction rows, the Estimator's logits)}, each
    Estimator trained 5 steps from scratch."""
    sys.path.insert(0, str(HERE))
    import table_factories as tf_

    root = tmp_path_factory.mktemp("tables")
    found = {}
    for case in CASES:
        model_dir = root / case / "model_dir"
        model_dir.mkdir(parents=True)
        estimator = load_estimator(f"{FACTORIES}:{case}", str(model_dir))
        estimator.train(tf_.input_fn(*tf_.rows(case, 0)), steps=5)
        rows, _ = tf_.rows(case, 1, 16)
        want = [
            p["logits"] if isinstance(p, dict) else p for p in estimator.predict(tf_.input_fn(rows))
        ]
        out = root / case / "out"
        # the string model (TensorFlow backend) asked to check JAX too: it skips it
        export_model_fn(
            estimator,
            str(out),
            factory=f"table_factories.py:{case}",
            check_on=("tensorflow", "jax") if case == "strings" else ("tensorflow",),
        )
        found[case] = model_dir, out, rows, np.array(want)
    return found


def _run_plain_keras(exported: dict, cases: tuple, backend: str, tmp_path: pathlib.Path) -> dict:
    """Predictions of a process without tfport (`run_exported.py`) on `backend`."""
    pairs = []
    for case in cases:
        _, out, rows, _ = exported[case]
        np.savez(tmp_path / f"{case}.npz", **rows)
        pairs.append((out, tmp_path / f"{case}.npz"))
    return run_exported.run(tmp_path / "result.npz", backend, pairs)


def _assert_predictions(
    exported: dict, cases: tuple, result: dict, kinds: tuple = ("loaded", "built")
) -> None:
    for i, case in enumerate(cases):
        want = exported[case][3]
        assert np.abs(want).max() > 0.1
        for kind in kinds:
            got = result[f"{i}/{kind}/logits" if case == "strings" else f"{i}/{kind}/predictions"]
            diff = float(np.abs(got - want).max())
            print(f"{case} ({kind}): max difference from the Estimator {diff:.3g}")
            assert diff <= 1e-5, (case, kind, diff)


def test_tables_predict_as_the_estimator_on_tensorflow(exported):
    import keras

    result = {}
    for i, case in enumerate(CASES):
        _, out, rows, _ = exported[case]
        x = {k: v.astype(object) if v.dtype.kind in "US" else v for k, v in rows.items()}
        model = keras.saving.load_model(str(out / "model.keras"))  # safe_mode
        got = model.predict(x, verbose=0)
        result[f"{i}/loaded/logits" if case == "strings" else f"{i}/loaded/predictions"] = (
            got["logits"] if isinstance(got, dict) else got
        )
    _assert_predictions(exported, CASES, result, kinds=("loaded",))


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)
def test_partitioned_tables_predict_on_jax_without_tensorflow(exported, tmp_path):
    result = _run_plain_keras(exported, ("partitioned",), "jax", tmp_path)  # fails without jax
    assert str(result["backend"]) == "jax" and list(result["modules"]) == []
    _assert_predictions(exported, ("partitioned",), result)


def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    return found | {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}


def test_model_py_is_ruff_clean_and_strings_declare_tensorflow(exported):
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    for case in CASES:
        path = exported[case][1] / "model.py"
        for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
            proc = subprocess.run([str(ruff), *cmd, str(path)], capture_output=True, text=True)
            assert proc.returncode == 0, (case, cmd, proc.stdout)
        assert _imports(path) <= {"keras", "numpy"}, case
        needs = "KERAS_BACKEND=tensorflow" in path.read_text()
        assert needs == (case == "strings"), case


def test_a_partitioned_table_is_one_embedding_with_its_parts_rows(exported):
    import keras

    _, out, _, _ = exported["partitioned"]
    source = (out / "model.py").read_text()
    assert (
        source.count("layers.Embedding(11, 4") == 1 and source.count("layers.Embedding(11, 3") == 1
    )
    assert "DynamicPartition" not in source and source.count("layers.Dense(3") == 1
    variables = json.loads((out / "report.json").read_text())["variables"]

    def parts(whole: str) -> list:
        found = [
            (v["layer"], v["rows"], v["shape"][0])
            for k, v in sorted(variables.items())
            if v.get("part_of") == whole
        ]
        return found

    # 'mod': part p holds ids p, p + 3, ...; 'div' and a whole kernel: consecutive rows
    assert parts("words/table") == [
        ("words_table", [0, 10, 3], 4),
        ("words_table", [1, 11, 3], 4),
        ("words_table", [2, 9, 3], 3),
    ]
    assert parts("tags/table") == [("tags_table", [0, 6], 6), ("tags_table", [6, 11], 5)]
    assert parts("logits/kernel") == [("logits", [0, 3], 3), ("logits", [3, 5], 2)]
    assert parts("one/table") == [("one_table", [0, 11], 11)]  # a partitioner's one part
    assert parts("one/hidden/kernel") == [("one_hidden", [0, 9], 9)]
    assert 'layers.Dense(5, activation="tanh"' in source
    assert variables["words/table"] == {
        "layer": "words_table",
        "weight": "embeddings",
        "shape": [11, 4],
    }
    # the checkpoint holds the parts concatenated; the layer row of id i is part i % 3's row i // 3
    import tensorflow as tf

    whole = tf.train.load_checkpoint(str(exported["partitioned"][0])).get_tensor("words/table")
    model = keras.saving.load_model(str(out / "model.keras"))
    table = model.get_layer("words_table").get_weights()[0]
    start = [0, 4, 8]
    np.testing.assert_array_equal(table, [whole[start[i % 3] + i // 3] for i in range(11)])


def test_string_ops_are_hashing_and_lookup_layers_with_tensorflows_ids(exported):
    import tensorflow as tf

    import keras

    _, out, _, _ = exported["strings"]
    report = json.loads((out / "report.json").read_text())
    assert report["checked"]["jax"] == {"skipped": "model.py needs the TensorFlow backend"}
    kinds = {  # the raw ops, not those of the DenseFeatures layer
        o["type"]: o["to"].split(" ")[0]
        for o in report["ops"]
        if not o["op"].startswith("dense_features/")
    }
    assert kinds["StringToHashBucketFast"] == kinds["StringToHashBucketStrong"] == "layers.Hashing"
    source = (out / "model.py").read_text()
    assert "salt=[7, 11]" in source and "layers.StringLookup(" in source
    assert "layers.IntegerLookup(" in source
    # the v1 DenseFeatures layer with a partitioner: its table's two parts in one Embedding
    table = "dense_features/word_embedding/embedding_weights"
    rows = sorted(v["rows"] for v in report["variables"].values() if v.get("part_of") == table)
    assert rows == [[0, 5], [5, 9]] and report["variables"][table]["shape"] == [9, 3]
    words = tf.constant(["paris", "lima", "cairo", "", "a much longer city name"])
    strong = tf.strings.to_hash_bucket_strong(words, 5, [7, 11])
    np.testing.assert_array_equal(keras.layers.Hashing(num_bins=5, salt=[7, 11])(words), strong)


def test_a_hash_with_no_keras_layer_is_refused_naming_its_line(exported, tmp_path):
    model_dir = exported["strings"][0]
    estimator = load_estimator(f"{FACTORIES}:legacy_hash", str(model_dir))
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    text = str(err.value)
    assert "\n" not in text and "(StringToHashBucket)" in text and "Fingerprint64" in text
    assert "table_factories.py:" in text and "to_hash_bucket(word, 6)" in text, text
    assert not (tmp_path / "out").exists()
