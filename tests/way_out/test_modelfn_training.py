"""`tfport keras export --training`: the exported model trains on in Keras. One `fit` step
of the TPU CNN golden (conv + batch norm momentum 0.9, momentum SGD with an exponentially
decaying rate, an L2 term, UPDATE_OPS) from its step-40 checkpoint equals the Estimator's
next step (`verify --train-step`); dropouts are Keras Dropout layers."""

from __future__ import annotations

import ast
import os
import pathlib
import subprocess
import sys
import types

import numpy as np
import pytest

from tfport._common.errors import TfportInputError
from tfport.cli._main import main
from tfport.keras import export_model_fn
from tfport.verify import load_estimator
from tfport.verify._artifacts import check_folder
from tfport.verify._compare import run_artifacts

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import training_factories as tf_factories  # noqa: E402

FACTORIES = HERE / "training_factories.py"


def _sealed(folder: pathlib.Path) -> dict:
    """What `verify` vouches for before its child imports the folder's code."""
    return {str(folder): check_folder(str(folder), trust=False)}


class Exports:
    """The CNN golden and a dropout model, exported with --training once per module."""

    def __init__(self, root: pathlib.Path, goldens: pathlib.Path) -> None:
        self.root = root
        self.cnn_dir = goldens / "tpu_cnn_host_call" / "model_dir"
        self.cnn = root / "cnn"
        cnn = load_estimator(f"{FACTORIES}:tpu_cnn", str(self.cnn_dir))
        self.cnn_report = export_model_fn(
            cnn, str(self.cnn), factory="training_factories.py:tpu_cnn", training=True
        )
        self.lamb_dir = self._at_step_20(goldens / "tpu_pretrain_lamb" / "model_dir")
        self.lamb = root / "lamb"
        lamb = load_estimator(f"{FACTORIES}:tpu_pretrain_without_dropout", str(self.lamb_dir))
        self.lamb_report = export_model_fn(lamb, str(self.lamb), training=True)
        self.mlp_dir, self.mlp_estimator, self.mlp = self._trained("dropout_mlp")
        self.bn_dir, _, self.bn = self._trained("bn_mlp")

    def _at_step_20(self, model_dir: pathlib.Path) -> pathlib.Path:
        """A model_dir whose latest checkpoint is the golden's step 20 (its learning rate
        decays to 0 at step 40, where a step would move the slots only)."""
        import shutil

        out = self.root / "lamb_dir"
        out.mkdir()
        for path in [*model_dir.glob("model.ckpt-20.*"), model_dir / "graph.pbtxt"]:
            shutil.copy(path, out)
        (out / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-20"\n')
        return out

    def _trained(self, name: str) -> tuple:
        """(model_dir, estimator, export folder) of a factory trained 2 steps."""
        import tensorflow as tf

        model_dir = self.root / f"{name}_dir"
        model_dir.mkdir()
        estimator = load_estimator(f"{FACTORIES}:{name}", str(model_dir))
        x, y = tf_factories.vectors(0)
        train = tf.compat.v1.estimator.inputs.numpy_input_fn(
            x, y, batch_size=16, num_epochs=None, shuffle=False
        )
        estimator.train(train, steps=2)
        out = self.root / name
        export_model_fn(estimator, str(out), factory=f"training_factories.py:{name}", training=True)
        return model_dir, estimator, out


@pytest.fixture(scope="module")
def exports(tmp_path_factory, goldens) -> Exports:
    return Exports(tmp_path_factory.mktemp("training"), goldens)


def _cnn_batch(path: pathlib.Path) -> pathlib.Path:
    """8 images as tpu_programs.make_images makes them (class templates + noise), labels."""
    templates = np.random.RandomState(0).uniform(size=(4, 8, 8, 1)).astype("float32")
    rng = np.random.RandomState(5)
    labels = rng.randint(0, 4, 8).astype("int32")
    images = (templates[labels] + 0.3 * rng.normal(size=(8, 8, 8, 1))).astype("float32")
    np.savez(path, features=images, label=labels)
    return path


def test_one_fit_step_of_the_cnn_equals_the_estimators_next_step(exports, tmp_path):
    # Measured: loss 0 apart; weights, moving statistics and momentum slots <= 1.5e-7.
    # Plain Keras BatchNormalization (biased batch variance) would miss the moving variances
    # by 3.4e-5 and 1.1e-3; the momentum slots move by 0.03-0.23 in the step.
    # `tfport verify A B --train-step` runs this in a child process (run_artifacts).
    batch = _cnn_batch(tmp_path / "batch.npz")
    estimator = f"{FACTORIES}:tpu_cnn@{exports.cnn_dir}"
    job = {"a": estimator, "b": str(exports.cnn), "inputs": str(batch), "atol": 1e-5}
    job |= {"rtol": 0.0, "signature_a": None, "signature_b": None, "io": (None, None)}
    job |= {"rows": 8, "seed": 0, "train_step": True, "label_key": "label", "trust": False}
    report = run_artifacts(**job, limits=None, sealed=_sealed(exports.cnn))
    rows = {r["name"]: r for r in report["outputs"]}
    assert report["equal"], [(k, r.get("max_abs_diff")) for k, r in rows.items()]
    assert report["b"]["kind"] == "keras_folder" and report["rows"] == 8
    assert rows["loss"]["estimator"] > 0.1 and rows["loss"]["max_abs_diff"] <= 1e-5
    variables = ["conv1/kernel", "conv2/kernel", "logits/kernel", "logits/bias"]
    variables += [f"bn{i}/{w}" for i in (1, 2) for w in ("gamma", "beta")]
    moving = [f"bn{i}/moving_{s}" for i in (1, 2) for s in ("mean", "variance")]
    expected = {*variables, *moving, *(f"{v}/Momentum" for v in variables), "global_step"}
    assert set(rows) == {"loss", *expected}
    for name in expected:
        assert rows[name]["pass"] and rows[name]["max_abs_diff"] <= 1e-5, rows[name]
        assert rows[name]["max_update"] > 1e-3, rows[name]  # the step moved it
    print("cnn train step max diff", max(r["max_abs_diff"] for r in report["outputs"]))


def test_one_fit_step_of_the_lamb_transformer_equals_the_estimators_next_step(exports, tmp_path):
    # The pretraining golden from its step-20 checkpoint: LAMB written as a Keras optimizer
    # in model.py (its per-variable weight decay, the global-norm clip), the warm-up/decay
    # learning rate as a schedule, the masked-token loss read from log_probs.
    import modelfn_factories as mf

    features, labels = mf.script("tpu_programs").make_tokens(1, 8)
    np.savez(tmp_path / "batch.npz", **features, label=labels)
    estimator = f"{FACTORIES}:tpu_pretrain_without_dropout@{exports.lamb_dir}"
    job = {"a": estimator, "b": str(exports.lamb), "inputs": str(tmp_path / "batch.npz")}
    job |= {"atol": 1e-5, "rtol": 0.0, "signature_a": None, "signature_b": None}
    job |= {"io": (None, None), "rows": 8, "seed": 0, "train_step": True, "label_key": "label"}
    job |= {"trust": False, "limits": None, "sealed": _sealed(exports.lamb)}
    report = run_artifacts(**job)
    rows = {r["name"]: r for r in report["outputs"]}
    assert report["equal"], [(k, r.get("max_abs_diff")) for k, r in rows.items()]
    assert rows["loss"]["estimator"] > 0.1
    assert rows["global_step"]["pass"]  # Keras's iterations
    weights = [k for k in rows if k not in ("loss", "global_step") and "/lamb_" not in k]
    assert len(weights) >= 20 and "bert/embeddings/word_embeddings" in weights
    assert {f"{n}/lamb_{s}" for n in weights for s in "mv"} <= set(rows)
    # the step moved every weight (the key's bias aside: softmax ignores it, its gradient is 0)
    still = [n for n in weights if rows[n]["max_update"] < 1e-5]
    assert still == ["bert/encoder/layer_0/key/bias"], still
    source = (exports.lamb / "model.py").read_text()
    assert "class LAMBOptimizer(keras.optimizers.Optimizer)" in source
    assert "global_clipnorm=1.0" in "".join(source.split()).replace("=", "=")
    print("lamb train step max diff", max(r["max_abs_diff"] for r in report["outputs"]))


# One `fit` step of an export folder in a process where TensorFlow and tfport do not exist
# (run_exported's blocker): argv OUT BATCH.npz RESULT.npz; RESULT gets the loss and every
# weight, slot and the step counter by checkpoint key (report.json's training section).
_FIT = """
import importlib.util, json, os, sys
sys.path.insert(0, sys.argv[4])
from run_exported import _Absent
sys.meta_path.insert(0, _Absent())
import numpy as np
import keras
out, batch, result = sys.argv[1:4]
spec = importlib.util.spec_from_file_location("model", os.path.join(out, "model.py"))
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
model = keras.saving.load_model(os.path.join(out, "model.keras"))
section = json.load(open(os.path.join(out, "report.json")))["training"]
data = np.load(batch)
history = model.fit(data["features"], data["label"], batch_size=8, shuffle=False, verbose=0)
found = {"loss": np.asarray(history.history["loss"][0])}
weights = {n: model.get_layer(l).weights[i] for n, (l, i, _) in section["weights"].items()}
found.update({section["weights"][n][2]: np.asarray(w) for n, w in weights.items()})
optimizer = model.optimizer
for name, slots in section["slots"].items():
    index = optimizer._get_variable_index(weights[name])
    found.update({k: np.asarray(getattr(optimizer, a)[index]) for a, k in slots.items()})
found[section["optimizer"]["iterations"]] = np.asarray(optimizer.iterations)
found["modules"] = np.array([m for m in ("tensorflow", "tfport") if m in sys.modules], str)
found["backend"] = np.array(keras.backend.backend())
np.savez(result, **found)
"""

_JAX = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)


@_JAX
def test_one_fit_step_on_jax_without_tensorflow_equals_the_estimators(exports, tmp_path):
    # Measured: loss 6e-8 apart, weights and slots <= 4.2e-7.
    from tfport.verify._train_folder import estimator_step

    batch = _cnn_batch(tmp_path / "batch.npz")
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    env["KERAS_BACKEND"] = "jax"
    result = tmp_path / "result.npz"
    argv = [sys.executable, "-c", _FIT, str(exports.cnn), str(batch), str(result), str(HERE)]
    proc = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]  # fails, never skips, without jax
    got = dict(np.load(result))
    assert str(got.pop("backend")) == "jax" and list(got.pop("modules")) == []
    data = np.load(batch)
    checkpoint = exports.cnn_report["checkpoint"]
    loss, want = estimator_step(f"{FACTORIES}:tpu_cnn", checkpoint, data["features"], data["label"])
    assert abs(float(got.pop("loss")) - loss) <= 1e-5
    assert len(got) == 21  # 12 weights, 8 momentum slots, the global step
    worst = max(float(np.abs(want[k].astype(np.float64) - v).max()) for k, v in got.items())
    print("jax fit step max diff", worst)
    assert worst <= 1e-5


def test_a_2d_batch_norm_trains_as_keras_batch_normalization(exports, tmp_path):
    # tf.nn.moments' batch statistics (biased variance, as Keras's) and its momentum 0.99.
    # Measured: loss 0 apart, moving statistics <= 6e-8, other weights equal.
    x, y = tf_factories.vectors(7, 16)
    np.savez(tmp_path / "batch.npz", x=x["x"], label=y)
    job = {"a": f"{FACTORIES}:bn_mlp@{exports.bn_dir}", "b": str(exports.bn)}
    job |= {"inputs": str(tmp_path / "batch.npz"), "atol": 1e-5, "rtol": 0.0, "rows": 16}
    job |= {"signature_a": None, "signature_b": None, "io": (None, None), "seed": 0}
    job |= {"train_step": True, "label_key": "label", "trust": False, "limits": None}
    report = run_artifacts(**job, sealed=_sealed(exports.bn))
    rows = {r["name"]: r for r in report["outputs"]}
    assert report["equal"], [(k, r.get("max_abs_diff")) for k, r in rows.items()]
    assert rows["bn/moving_variance"]["max_update"] > 1e-3
    source = (exports.bn / "model.py").read_text()
    assert "layers.BatchNormalization(momentum=0.99, epsilon=0.001" in source


def test_the_cnn_report_maps_loss_regularizers_batch_norms_and_optimizer(exports):
    section = exports.cnn_report["training"]
    assert section["loss"]["outputs"] == {"logits/BiasAdd:0": "logits"}
    # 1e-4 * add_n(l2_loss(v) for every trainable v): Keras L2(5e-5) = 5e-5 * sum(v ** 2)
    assert set(section["regularizers"]) == {
        "conv1/kernel", "conv2/kernel", "logits/kernel", "logits/bias",
        "bn1/gamma", "bn1/beta", "bn2/gamma", "bn2/beta",
    }  # fmt: skip
    assert set(section["regularizers"].values()) == {5e-05}
    assert {k: v["momentum"] for k, v in section["batch_norms"].items()} == {"bn1": 0.9, "bn2": 0.9}
    assert section["state_shapes"]["conv2/kernel/Momentum"] == [3, 3, 8, 8]
    assert section["labels"] == ["int32", []]
    kinds = {row["type"] for row in section["ops"]}
    assert {"FusedBatchNormV3", "AssignSubVariableOp"} <= kinds


def test_model_py_is_ruff_clean_and_imports_only_keras(exports):
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    for out in (exports.cnn, exports.mlp, exports.bn):
        path = out / "model.py"
        for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
            proc = subprocess.run([str(ruff), *cmd, str(path)], capture_output=True, text=True)
            assert proc.returncode == 0, (out.name, cmd, proc.stdout)
        tree = ast.parse(path.read_text())
        imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
        imported |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
        assert imported <= {"keras", "numpy"}, imported
        names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
        assert {"build_model", "model_fn_loss", "compile_model", "TrainableModel"} <= names


def _import(out: pathlib.Path) -> types.ModuleType:
    from tfport.keras._modelfn._write import import_model_py

    return import_model_py(str(out))


def test_dropouts_are_keras_dropout_layers_identity_in_predict_active_in_fit(exports):
    import keras

    _import(exports.mlp)
    model = keras.saving.load_model(str(exports.mlp / "model.keras"))
    rates = {
        layer.name: layer.rate for layer in model.layers if isinstance(layer, keras.layers.Dropout)
    }
    assert sorted(rates.values()) == [0.25, 0.5], rates  # layers.dropout and tf.nn.dropout
    # inference: the Estimator's predictions (dropout is the identity there)
    rows, _ = tf_factories.vectors(1, 32)
    import tensorflow as tf

    predict = tf.compat.v1.estimator.inputs.numpy_input_fn(rows, shuffle=False)
    want = np.stack([p["logits"] for p in exports.mlp_estimator.predict(predict)])
    got = model.predict(rows, verbose=0)["logits"]
    assert np.abs(got - want).max() <= 1e-5
    # training: each Dropout zeroes about its rate of the values it gets, scales the rest
    x, _ = tf_factories.vectors(2, 512)
    for name, rate in rates.items():
        layer = model.get_layer(name)
        seen = keras.Model(model.inputs, layer.input)(x)
        dropped = np.asarray(layer(seen, training=True))
        live = np.asarray(seen) != 0
        zeroed = float(np.mean(dropped[live] == 0))
        assert abs(zeroed - rate) < 0.03, (name, zeroed)
        kept = dropped[live & (dropped != 0)] / np.asarray(seen)[live & (dropped != 0)]
        assert np.allclose(kept, 1 / (1 - rate), rtol=1e-5)
        assert np.array_equal(np.asarray(layer(seen, training=False)), np.asarray(seen))
    # fit trains with dropout on: two fit losses on the same batch and weights differ
    x, y = tf_factories.vectors(3, 64)
    start = [w.numpy() for w in model.weights]
    losses = []
    for _ in range(2):
        model.set_weights(start)
        history = model.fit(x, y, batch_size=64, epochs=1, shuffle=False, verbose=0)
        losses.append(history.history["loss"][0])
    assert losses[0] != losses[1] and all(np.isfinite(losses))
    # so no fit step of it matches the Estimator's: verify --train-step says so
    job = {"a": f"{FACTORIES}:dropout_mlp@{exports.mlp_dir}", "b": str(exports.mlp)}
    job |= {"inputs": None, "atol": 1e-5, "rtol": 0.0, "signature_a": None}
    job |= {"signature_b": None, "io": (None, None), "rows": 8, "seed": 0, "train_step": True}
    with pytest.raises(TfportInputError, match="has dropout, so a step is random"):
        run_artifacts(
            **job, label_key="label", trust=False, limits=None, sealed=_sealed(exports.mlp)
        )


def test_a_loss_reading_the_global_step_is_refused_in_one_line(exports, tmp_path, capsys):
    out = tmp_path / "annealed"
    argv = ["keras", "export", f"{FACTORIES}:annealed_loss", str(exports.mlp_dir), str(out)]
    assert main([*argv, "--training"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    assert "training_factories.py:" in err and "global_step" in err, err
    assert not out.exists()
