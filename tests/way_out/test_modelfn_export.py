"""`tfport keras export` to a folder: a custom model_fn becomes Keras 3 code with the same
predictions as the legacy Estimator (goldens made by TF 2.15), on TensorFlow and on JAX."""

from __future__ import annotations

import ast
import inspect
import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tfport.keras import export_model_fn
from tfport.verify import load_estimator

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "legacy"))
import compare  # noqa: E402
import run_exported  # noqa: E402

FACTORIES = HERE / "modelfn_factories.py"
# golden case -> (the input file's builder, the prediction key the golden recorded)
CASES = {
    "custom_v1_adam": ("plain", "probabilities"),
    "tpu_estimator_on_cpu": ("plain", "probabilities"),
    "keras_model_to_estimator": ("keras", "probs"),
    "guide_model_fn_v1": ("guide_v1", "probabilities"),
    "guide_model_fn_tf2": ("guide_tf2", "probabilities"),
    "tpu_cnn_host_call": ("cnn", "probabilities"),
    "tpu_cnn_on_tpu": ("cnn", "probabilities"),  # the same program with use_tpu=True
    "tpu_pretrain_lamb": ("pretrain", "log_probs"),  # a transformer block trained by LAMB
}
GOLDEN = {"tpu_cnn_on_tpu": "tpu_cnn_host_call"}  # case -> its golden, where they differ


def _inputs(kind: str) -> dict:
    """The rows each golden's legacy script predicted, as the Keras model's inputs."""
    import modelfn_factories as f

    if kind == "cnn":
        return {"features": f.script("tpu_programs").make_images(2, 16)[0]}
    if kind == "pretrain":
        return f.script("tpu_programs").make_tokens(2, 16)[0]
    if kind in ("plain", "keras"):
        x = f.script("estimator_cases").DATA["test_x"]
        return {"features": x} if kind == "plain" else {"hidden_input": x}
    guide = f.script("guide_more")
    rows = {k: np.asarray(v, np.float32) for k, v in dict(guide.test_x).items()}
    if kind == "guide_tf2":
        return rows
    extra = guide.predict_x  # guide_model_fn_v1 also predicted the guide's 3 examples
    return {k: np.concatenate([v, np.asarray(extra[k], np.float32)]) for k, v in rows.items()}


def _export(case: str, goldens: pathlib.Path, root: pathlib.Path) -> pathlib.Path:
    model_dir = root / case / "model_dir"
    shutil.copytree(goldens / GOLDEN.get(case, case) / "model_dir", model_dir)
    estimator = load_estimator(f"{FACTORIES}:{case}", str(model_dir))
    out = root / case / "out"
    export_model_fn(estimator, str(out), factory=f"modelfn_factories.py:{case}")
    return out


@pytest.fixture(scope="module")
def exported(goldens, tmp_path_factory):
    """{case: (export folder, inputs .npz)} for every golden case, exported in-process."""
    sys.path.insert(0, str(HERE))
    root = tmp_path_factory.mktemp("modelfn")
    found = {}
    for case, (kind, _) in CASES.items():
        out = _export(case, goldens, root)
        inputs = root / case / "inputs.npz"
        np.savez(inputs, **_inputs(kind))
        found[case] = (out, inputs)
    return found


def _run_plain_keras(exported: dict, backend: str, tmp_path: pathlib.Path) -> dict:
    return run_exported.run(tmp_path / "result.npz", backend, list(exported.values()))


def _assert_golden_predictions(result: dict, goldens: pathlib.Path) -> None:
    for i, (case, (_, key)) in enumerate(CASES.items()):
        expected = goldens / GOLDEN.get(case, case) / "expected.json"
        want = np.asarray(json.loads(expected.read_text())["predictions"])
        for kind in ("loaded", "built"):
            got = result[f"{i}/{kind}/{key}"]
            assert got.shape == want.shape, (case, kind)
            diff = float(np.abs(got.astype(np.float64) - want).max())
            print(f"{case} ({kind}): max difference from the legacy Estimator {diff:.3g}")
            assert diff <= 1e-5, (case, kind, diff)


@pytest.mark.slow
def test_goldens_predict_as_the_legacy_estimator_on_tensorflow(exported, goldens, tmp_path):
    result = _run_plain_keras(exported, "tensorflow", tmp_path)
    assert str(result["backend"]) == "tensorflow"
    assert "tfport" not in result["modules"] and "tf_keras" not in result["modules"]
    _assert_golden_predictions(result, goldens)


@pytest.mark.slow
@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)
def test_goldens_predict_as_the_legacy_estimator_on_jax_without_tensorflow(
    exported, goldens, tmp_path
):
    result = _run_plain_keras(exported, "jax", tmp_path)  # fails, never skips, without jax
    assert str(result["backend"]) == "jax"
    assert list(result["modules"]) == []
    _assert_golden_predictions(result, goldens)


def test_model_py_is_ruff_clean_and_imports_only_keras_and_numpy(exported):
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    for case, (out, _) in exported.items():
        path = out / "model.py"
        for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
            proc = subprocess.run([str(ruff), *cmd, str(path)], capture_output=True, text=True)
            assert proc.returncode == 0, (case, cmd, proc.stdout)
        tree = ast.parse(path.read_text())
        imported = {
            a.name.split(".")[0]
            for n in ast.walk(tree)
            if isinstance(n, ast.Import)
            for a in n.names
        }
        imported |= {
            n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
        }
        assert imported <= {"keras", "numpy"}, (case, imported)
        assert sorted(p.name for p in out.iterdir()) == [
            "model.keras",
            "model.py",
            "model.weights.h5",
            "report.json",
        ]


def test_inputs_are_named_after_feature_keys_and_outputs_after_predictions(exported):
    report = json.loads((exported["guide_model_fn_v1"][0] / "report.json").read_text())
    assert report["inputs"] == {
        k: ["float32", []] for k in ("PetalLength", "PetalWidth", "SepalLength", "SepalWidth")
    }
    assert report["outputs"] == ["class_ids", "logits", "probabilities"]
    report = json.loads((exported["custom_v1_adam"][0] / "report.json").read_text())
    assert report["inputs"] == {"features": ["float32", [4]]}
    assert report["outputs"] == ["classes", "probabilities"]


def test_report_maps_every_variable_and_op_to_its_model_fn_line(exported):
    import modelfn_factories as f

    report = json.loads((exported["custom_v1_adam"][0] / "report.json").read_text())
    assert report["variables"]["hidden/kernel"]["layer"] == "hidden"
    assert report["variables"]["logits/bias"] == {"layer": "logits", "weight": "bias", "shape": [3]}
    assert "refused" in report["variables"]["global_step"]
    lines, first = inspect.getsourcelines(f.script("estimator_cases").custom_model_fn)
    dense_line = first + next(i for i, t in enumerate(lines) if "layers.dense(" in t)
    by_op = {o["op"]: o for o in report["ops"]}
    assert by_op["hidden/MatMul"] == {
        "op": "hidden/MatMul",
        "type": "MatMul",
        "to": "layers.Dense 'hidden'",
        "line": f"estimator_cases.py:{dense_line}",
    }
    assert by_op["Softmax"]["to"] == "ops.softmax"
    # the keras model's names are mapped to the object-based checkpoint keys
    report = json.loads((exported["keras_model_to_estimator"][0] / "report.json").read_text())
    assert report["variables"]["hidden/kernel"]["shape"] == [4, 16]


def test_a_model_fn_with_python_inside_is_refused_naming_its_line(goldens, tmp_path):
    import modelfn_factories as f

    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "custom_v1_adam" / "model_dir", model_dir)
    estimator = load_estimator(f"{FACTORIES}:refused_py_function", str(model_dir))
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    lines, first = inspect.getsourcelines(f.py_function_model_fn)
    blocker = first + next(i for i, t in enumerate(lines) if "the blocker" in t)
    text = str(err.value)
    assert "\n" not in text and "EagerPyFunc" in text, text
    assert f"modelfn_factories.py:{blocker}" in text, text
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["model_dir"]  # no temporary left


@pytest.mark.slow
def test_cli_writes_the_folder_and_refuses_an_existing_one(goldens, tmp_path):
    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "custom_v1_adam" / "model_dir", model_dir)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "tfport", "keras", "export", f"{FACTORIES}:custom_v1_adam"]
    cmd += [str(model_dir), str(out)]
    jax = ["--check-on", "tensorflow,jax"] if sys.version_info >= (3, 11) else []
    proc = subprocess.run([*cmd, *jax, "--json"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["outputs"] == ["classes", "probabilities"]
    report = json.loads((out / "report.json").read_text())
    assert report["outputs"] == ["classes", "probabilities"]
    # checked before it was written: the model_fn's graph against the Keras model
    backends = ["tensorflow", "jax"] if jax else ["tensorflow"]
    assert sorted(report["checked"]) == sorted(backends)
    for backend in backends:
        assert report["checked"][backend]["max_abs_diff"] <= 1e-5, report["checked"]
    docstring = " ".join(ast.get_docstring(ast.parse((out / "model.py").read_text())).split())
    assert "Checked at export on 16 generated rows: tensorflow (max difference" in docstring
    assert ("jax (max difference" in docstring) == bool(jax)
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert again.returncode == 2 and "already exists" in again.stderr
    assert "Traceback" not in again.stderr
    refused = [*cmd[:5], f"{FACTORIES}:refused_py_function", str(model_dir), str(tmp_path / "r")]
    proc = subprocess.run(refused, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if "EagerPyFunc" in line]
    assert len(errors) == 1 and "modelfn_factories.py:" in errors[0]
    assert "Traceback" not in proc.stderr and not (tmp_path / "r").exists()


def test_cnn_layers_are_built_in_keras_layers_with_moving_statistics(exported):
    report = json.loads((exported["tpu_cnn_host_call"][0] / "report.json").read_text())
    variables = report["variables"]
    assert variables["conv1/kernel"] == {
        "layer": "conv1",
        "weight": "kernel",
        "shape": [3, 3, 1, 8],
    }
    for role in ("gamma", "beta", "moving_mean", "moving_variance"):
        assert variables[f"bn2/{role}"] == {"layer": "bn2", "weight": role, "shape": [8]}
    kinds = {o["to"] for o in report["ops"]}
    assert {"layers.Conv2D 'conv1'", "layers.BatchNormalization 'bn1'"} <= kinds
    assert "layers.MaxPooling2D 'max_pooling2d'" in kinds
    source = (exported["tpu_cnn_host_call"][0] / "model.py").read_text()
    assert "class Variable" not in source  # every variable is in a built-in layer


def test_keras_batch_normalization_arithmetic_becomes_the_layer(exported):
    # tf.keras BatchNormalization on 2-D inputs is not fused: its inference arithmetic
    # (rsqrt(var + eps) * gamma ...) is recognised as one layer with the moving statistics
    report = json.loads((exported["guide_model_fn_tf2"][0] / "report.json").read_text())
    for role in ("gamma", "beta", "moving_mean", "moving_variance"):
        entry = report["variables"][f"batch_normalization/{role}"]
        assert entry == {"layer": "batch_normalization", "weight": role, "shape": [8]}
    source = (exported["guide_model_fn_tf2"][0] / "model.py").read_text()
    assert "layers.BatchNormalization(epsilon=0.001" in "".join(source.split())
    assert "class Variable" not in source


def _train_and_predict(name: str, make_data, tmp_path: pathlib.Path):
    """(estimator, prediction rows, its predictions) after 6 steps from scratch."""
    import modelfn_factories as f

    (tmp_path / "model_dir").mkdir()
    return f.train_and_predict(name, make_data, str(tmp_path / "model_dir"))


@pytest.mark.slow
def test_a_v1_layers_cnn_with_batch_norm_and_dropout_on_tpu_predicts_as_its_estimator(tmp_path):
    import modelfn_factories as f

    import keras

    # 6 training steps move the batch-norm statistics off their start
    estimator, rows, outputs = _train_and_predict("cnn_dropout", f.cnn_images, tmp_path)
    want = np.array([p["logits"] for p in outputs])
    report = export_model_fn(estimator, str(tmp_path / "out"))
    kinds = {o["to"].split(" ")[0] for o in report["ops"]}
    assert {"layers.Conv2D", "layers.BatchNormalization", "layers.AveragePooling2D"} <= kinds
    assert "identity" in kinds  # the dropout, inactive in PREDICT mode
    model = keras.saving.load_model(str(tmp_path / "out" / "model.keras"))
    got = model.predict(rows, verbose=0)["logits"]
    assert np.abs(want).max() > 1e-3
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)


def test_checkpoint_and_input_shape_take_effect(goldens, tmp_path):
    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "custom_v1_adam" / "model_dir", model_dir)
    estimator = load_estimator(f"{FACTORIES}:custom_v1_adam", str(model_dir))
    older = str(model_dir / "model.ckpt-20")
    report = export_model_fn(estimator, str(tmp_path / "a"), checkpoint=older)
    assert report["checkpoint"] == older
    import h5py

    with h5py.File(tmp_path / "a" / "model.weights.h5") as h5:
        kernels = []
        h5.visititems(
            lambda name, obj: kernels.append(obj[()]) if name.endswith("vars/0") else None
        )
    from_20 = compare.read_checkpoint(older)["hidden/kernel"]
    assert any(k.shape == from_20.shape and np.array_equal(k, from_20) for k in kernels)
    with pytest.raises(ValueError, match="--input-shape names no feature"):
        export_model_fn(estimator, str(tmp_path / "b"), input_shapes={"nope": (4,)})
    assert not (tmp_path / "b").exists()


@pytest.mark.slow
def test_an_embedding_lookup_is_an_embedding_layer_and_a_tensor_prediction_one_output(tmp_path):
    import modelfn_factories as f

    import keras

    estimator, rows, outputs = _train_and_predict("embedding", f.token_ids, tmp_path)
    want = np.array(outputs)
    report = export_model_fn(estimator, str(tmp_path / "out"))
    assert report["variables"]["tokens/embeddings"]["weight"] == "embeddings"
    assert report["outputs"] == ["predictions"]
    model = keras.saving.load_model(str(tmp_path / "out" / "model.keras"))
    got = model.predict(rows, verbose=0)  # predictions was a tensor: one output, not a dict
    assert isinstance(got, np.ndarray) and np.abs(want).max() > 1e-3
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=0)
