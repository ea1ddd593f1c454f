"""`tfport keras export` of model_fns built from more layers (layer normalization, 1-D/3-D,
depthwise and separable convolutions, a BERT-style transformer): built-in Keras layers
with the trained weights, predicting as the Estimator on TensorFlow and on JAX."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tfport.keras import export_model_fn

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import modelfn_factories as f  # noqa: E402
import run_exported  # noqa: E402

# factory -> the function making its (features, labels)
MODELS = {"layer_norms": f.vectors, "convs": f.small_images, "transformer": f.token_sequences}


class Exports:
    """Each model trained 6 steps, predicted by its Estimator and exported, once per module."""

    def __init__(self, root: pathlib.Path) -> None:
        self.root = root
        self.done: dict[str, tuple] = {}

    def __getitem__(self, name: str) -> tuple[pathlib.Path, dict, dict, dict]:
        """(export folder, the rows predicted, {key: the Estimator's predictions}, report)."""
        if name not in self.done:
            model_dir = self.root / name / "model_dir"
            model_dir.mkdir(parents=True)
            estimator, rows, outputs = f.train_and_predict(name, MODELS[name], str(model_dir))
            if not isinstance(outputs[0], dict):
                outputs = [{"predictions": o} for o in outputs]
            want = {k: np.array([o[k] for o in outputs]) for k in outputs[0]}
            out = self.root / name / "out"
            report = export_model_fn(estimator, str(out), factory=f"modelfn_factories.py:{name}")
            np.savez(self.root / name / "inputs.npz", **rows)
            self.done[name] = (out, rows, want, report)
        return self.done[name]


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> Exports:
    return Exports(tmp_path_factory.mktemp("layers"))


def _predict_loaded(out: pathlib.Path, rows: dict) -> dict:
    import keras

    model = keras.saving.load_model(str(out / "model.keras"))
    got = model.predict(rows, verbose=0)
    return got if isinstance(got, dict) else {"predictions": got}


def _assert_close(got: dict, want: dict, name: str) -> float:
    worst = 0.0
    for key, value in want.items():
        assert np.ptp(value, axis=0).max() > 1e-3, (name, key)  # rows differ: no dead net
        diff = float(np.abs(np.asarray(got[key], np.float64) - value).max())
        print(f"{name} {key}: max difference from the Estimator {diff:.3g}")
        assert diff <= 1e-5, (name, key, diff)
        worst = max(worst, diff)
    return worst


def _layers_of(report: dict) -> dict[str, str]:
    """{layer name: Keras class} of the built-in layers the report maps ops to."""
    found = {}
    for entry in report["ops"]:
        kind, _, name = entry["to"].partition(" ")
        if kind.startswith("layers.") and name:
            found[name.strip("'")] = kind.removeprefix("layers.")
    return found


@pytest.mark.slow
def test_layer_normalization_in_every_form_is_the_keras_layer_with_gamma_and_beta(exports):
    out, rows, want, report = exports["layer_norms"]
    layers = _layers_of(report)
    # BERT's layer_norm (moments + batch_normalization), tf.keras's (fused over 2 axes,
    # unfused over the last one) and one written out as (x - mean) * rsqrt(var + eps)
    for name in ("hidden_layernorm", "ln_both", "ln_last", "mixed_layernorm"):
        assert layers[name] == "LayerNormalization", layers
    assert layers["per_row"] == "Dense"  # tf.keras Dense on 3-D: a tensordot
    variables = report["variables"]
    assert variables["hidden/LayerNorm/gamma"] == {
        "layer": "hidden_layernorm",
        "weight": "gamma",
        "shape": [12],
    }
    assert variables["ln_both/beta"] == {"layer": "ln_both", "weight": "beta", "shape": [3, 4]}
    source = (out / "model.py").read_text()
    assert "axis=[1, 2], epsilon=0.001" in source and "epsilon=1e-12" in source
    assert "class Variable" not in source and "ops.mean" not in source
    import keras

    gamma = keras.saving.load_model(str(out / "model.keras")).get_layer("ln_both").get_weights()
    assert np.abs(gamma[0] - 1).max() > 1e-3  # trained off its start
    _assert_close(_predict_loaded(out, rows), want, "layer_norms")


@pytest.mark.slow
def test_1d_3d_depthwise_and_separable_convolutions_are_the_keras_layers(exports):
    out, rows, want, report = exports["convs"]
    assert _layers_of(report) == {
        "depthwise": "DepthwiseConv2D",
        "separable": "SeparableConv2D",
        "conv3d": "Conv3D",
        "c1d": "Conv1D",
        "logits": "Dense",
    }
    variables = report["variables"]
    roles = {v: (e["layer"], e["weight"]) for v, e in variables.items() if "layer" in e}
    assert roles["separable/depthwise_kernel"] == ("separable", "depthwise_kernel")
    assert roles["separable/pointwise_kernel"] == ("separable", "pointwise_kernel")
    assert roles["depthwise/depthwise_kernel"] == ("depthwise", "kernel")
    assert variables["c1d/kernel"]["shape"] == [2, 6, 3]
    source = "".join((out / "model.py").read_text().split())
    assert 'layers.Conv1D(3,2,padding="same",strides=(2,),activation="tanh"' in source
    assert 'layers.DepthwiseConv2D((3,3),depth_multiplier=2,padding="same"' in source
    assert "classVariable" not in source and "ops.conv" not in source
    import keras

    model = keras.saving.load_model(str(out / "model.keras"))
    for name in ("depthwise", "separable", "conv3d", "c1d"):
        assert np.abs(model.get_layer(name).get_weights()[-1]).max() > 1e-3  # trained bias
    _assert_close(_predict_loaded(out, rows), want, "convs")


@pytest.mark.slow
def test_a_bert_style_transformer_exports_with_keras_ops_only(exports):
    out, rows, want, report = exports["transformer"]
    layers = _layers_of(report)
    assert layers["bert_embeddings_word_embeddings"] == "Embedding"
    assert layers["bert_embeddings_token_type_embeddings"] == "Dense"  # one_hot @ table
    for name in ("embeddings", "encoder_layer_0_attention_output", "encoder_layer_0_output"):
        assert layers[f"bert_{name}_layernorm"] == "LayerNormalization"
    assert layers["bert_pooler_dense"] == "Dense" and layers["classifier"] == "Dense"
    calls = {o["to"] for o in report["ops"]}
    assert {"ops.one_hot", "ops.erf", "ops.softmax", "ops.matmul", "np.full"} <= calls
    # BERT's gather_indexes (tf.range of the batch size, tf.gather), an einsum
    assert {"ops.take", "ops.einsum", "ops.subtract"} <= calls
    by_type = {o["type"]: o["to"] for o in report["ops"]}
    assert by_type["Range"] == "ops.subtract" and by_type["GatherV2"] == "ops.take"
    assert by_type["GatherNd"] == "ops.take"  # the last token of each row
    assert layers["cls_predictions_transform_layernorm"] == "LayerNormalization"
    entry = report["variables"]["bert/embeddings/position_embeddings"]
    assert entry["weight"] == "value" and entry["shape"] == [16, 8]  # read by tf.slice
    # the word table is the Embedding and, tied, the masked LM's output projection
    assert report["variables"]["bert/embeddings/word_embeddings"] == {
        "layer": "bert_embeddings_word_embeddings",
        "weight": "embeddings",
        "shape": [20, 8],
        "also": [{"layer": "bert_embeddings_word_embeddings_2", "weight": "value"}],
    }
    source = (out / "model.py").read_text()
    assert "\n    slice = " not in source  # no builtin shadowed
    # the input mask takes effect: padding tokens change nothing
    rows = {k: v.copy() for k, v in rows.items()}
    got = _predict_loaded(out, rows)
    _assert_close(got, want, "transformer")
    rows["input_ids"][rows["input_mask"] == 0] = 7
    again = _predict_loaded(out, rows)
    for key in ("pooled", "masked_log_probs", "last_token"):
        np.testing.assert_allclose(again[key], got[key], atol=1e-5)


@pytest.mark.slow
def test_every_model_py_is_ruff_clean(exports):
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    paths = [str(exports[name][0] / "model.py") for name in MODELS]
    for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        proc = subprocess.run([str(ruff), *cmd, *paths], capture_output=True, text=True)
        assert proc.returncode == 0, (cmd, proc.stdout)


def test_ones_of_the_batch_size_not_broadcast_are_refused_naming_the_line(goldens, tmp_path):
    import inspect
    import shutil

    from tfport.verify import load_estimator

    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "custom_v1_adam" / "model_dir", model_dir)
    estimator = load_estimator(
        f"{HERE / 'modelfn_factories.py'}:refused_batch_ones", str(model_dir)
    )
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    lines, first = inspect.getsourcelines(f.batch_ones_model_fn)
    line = first + next(i for i, t in enumerate(lines) if "tf.ones(" in t)
    text = str(err.value)
    assert "\n" not in text and "(Fill)" in text and "does not broadcast it" in text, text
    assert f"modelfn_factories.py:{line}" in text, text
    assert not (tmp_path / "out").exists()


def _run(exports: Exports, backend: str, tmp_path: pathlib.Path) -> dict:
    pairs = [(exports[name][0], exports[name][0].parent / "inputs.npz") for name in MODELS]
    return run_exported.run(tmp_path / "result.npz", backend, pairs)


@pytest.mark.slow
@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)
def test_every_model_predicts_as_its_estimator_on_jax_without_tensorflow(exports, tmp_path):
    result = _run(exports, "jax", tmp_path)  # fails, never skips, without jax
    assert str(result["backend"]) == "jax" and list(result["modules"]) == []
    for i, name in enumerate(MODELS):
        want = exports[name][2]
        for kind in ("loaded", "built"):
            got = {k: result[f"{i}/{kind}/{k}"] for k in want}
            _assert_close(got, want, f"{name} ({kind}, jax)")
