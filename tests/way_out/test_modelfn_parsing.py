"""`tf.io.parse_example` in a model_fn: the parsing goes to a TF-only preprocess.py, the
Keras model (keras and numpy only) takes the parsed features; `model(preprocess(raw))` is
the Estimator on raw serialized tf.Examples, and verify runs the pair."""

from __future__ import annotations

import ast
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tfport.cli._main import main
from tfport.keras import export_model_fn, import_model_py
from tfport.verify import load_estimator

HERE = pathlib.Path(__file__).resolve().parent
FACTORIES = HERE / "parsing_factories.py"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """(model_dir, OUT, the rows predicted, the Estimator's probabilities) after 5 steps."""
    import tensorflow as tf

    sys.path.insert(0, str(HERE))
    import parsing_factories as f

    root = tmp_path_factory.mktemp("parsing")
    (root / "model_dir").mkdir()
    estimator = load_estimator(f"{FACTORIES}:parsing", str(root / "model_dir"))
    estimator.train(f.train_input_fn, steps=5)
    # .npz keeps bytes as fixed-width `S` arrays, which drop trailing NULs: rows that end in
    # one would not survive the file verify reads
    rows = np.array([r for r in f.serialized(7, 16) if not r.endswith(b"\0")][:9], dtype=object)
    predict = tf.compat.v1.estimator.inputs.numpy_input_fn({"examples": rows}, shuffle=False)
    want = np.array([p["probabilities"] for p in estimator.predict(predict)])
    export_model_fn(estimator, str(root / "out"), factory="parsing_factories.py:parsing")
    return root / "model_dir", root / "out", rows, want


def test_the_model_takes_parsed_features_and_preprocess_parses_them(exported):
    import tensorflow as tf

    import keras

    _, out, rows, want = exported
    report = json.loads((out / "report.json").read_text())
    assert report["inputs"] == {"k": ["int64", []], "w": ["float32", [1]], "x": ["float32", [3]]}
    assert report["preprocess"]["parsed"]["examples"]["k"] == ["int64", [], 1]
    assert report["preprocess"]["parsed"]["examples"]["x"] == ["float32", [3], None]
    assert sorted(report["seal"]["files"]) == ["model.py", "preprocess.py"]
    imported = {
        a.name.split(".")[0]
        for n in ast.walk(ast.parse((out / "model.py").read_text()))
        if isinstance(n, ast.Import)
        for a in n.names
    }
    assert imported <= {"keras", "numpy"}, imported  # the model itself needs no TensorFlow
    preprocess = import_model_py(str(out), name="preprocess.py").preprocess
    import_model_py(str(out))
    model = keras.saving.load_model(str(out / "model.keras"))
    got = model(preprocess({"examples": tf.constant(list(rows))}))["probabilities"]
    assert np.abs(want - np.asarray(got)).max() <= 1e-5 and np.abs(want).max() > 0.1
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    for name in ("model.py", "preprocess.py"):
        for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
            proc = subprocess.run([str(ruff), *cmd, str(out / name)], capture_output=True)
            assert proc.returncode == 0, (name, cmd, proc.stdout)


def test_verify_feeds_the_estimator_raw_rows_and_the_folder_parsed_ones(exported, tmp_path, capsys):
    model_dir, out, rows, _ = exported
    np.savez(tmp_path / "rows.npz", examples=np.array(list(rows), dtype=bytes))
    argv = ["verify", f"{FACTORIES}:parsing@{model_dir}", str(out), "--json"]
    argv += ["--inputs", str(tmp_path / "rows.npz")]
    code = main(argv)
    printed, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(printed)
    assert report["equal"] and {r["a"] for r in report["outputs"]} == {"logits", "probabilities"}


def test_sparse_parsed_features_are_refused_naming_the_line(exported, tmp_path):
    import inspect

    import parsing_factories as f

    estimator = load_estimator(f"{FACTORIES}:sparse", str(exported[0]))
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    lines, first = inspect.getsourcelines(f.sparse_model_fn)
    line = first + next(i for i, t in enumerate(lines) if "parse_example" in t)
    assert f"parsing_factories.py:{line}" in str(err.value) and "VarLenFeature" in str(err.value)
    assert not (tmp_path / "out").exists()
