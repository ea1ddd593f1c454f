"""Porting name-based and object-based checkpoints onto Keras 3, tf_keras and tf.Module."""

from __future__ import annotations

import json

import numpy as np
import pytest
from ckpt_helpers import run_cli
from ckpt_models import golden_inputs, keras3_mlp, keras3_softmax_mlp, tf_keras_mlp

from tfport._common.tfenv import import_tf
from tfport.checkpoint import MappingError, assignment_map, restore


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _expected(goldens, case: str) -> np.ndarray:
    return np.array(json.loads((goldens / case / "expected.json").read_text())["predictions"])


@pytest.mark.parametrize("factory", [keras3_mlp, tf_keras_mlp], ids=["keras3", "tf_keras"])
def test_custom_v1_adam_into_keras(goldens, factory):
    import_tf()
    model = factory()
    ckpt = goldens / "custom_v1_adam" / "model_dir" / "model.ckpt-40"
    report = restore(model, str(ckpt))
    assert sorted(report["map"]) == ["hidden/bias", "hidden/kernel", "logits/bias", "logits/kernel"]
    assert not report["unmatched_model"] and not report["ambiguous"]
    probs = _softmax(np.asarray(model(golden_inputs())))
    np.testing.assert_allclose(probs, _expected(goldens, "custom_v1_adam"), atol=1e-5)


def test_tf_module(goldens):
    tf = import_tf()

    class Net(tf.Module):
        def __init__(self):
            super().__init__()
            self.hidden_kernel = tf.Variable(tf.zeros([4, 16]), name="hidden/kernel")
            self.hidden_bias = tf.Variable(tf.zeros([16]), name="hidden/bias")
            self.logits_kernel = tf.Variable(tf.zeros([16, 3]), name="logits/kernel")
            self.logits_bias = tf.Variable(tf.zeros([3]), name="logits/bias")

        def __call__(self, x):
            h = tf.nn.relu(x @ self.hidden_kernel + self.hidden_bias)
            return h @ self.logits_kernel + self.logits_bias

    net = Net()
    report = restore(net, str(goldens / "custom_v1_adam" / "model_dir"))
    assert {p["how"] for p in report["mapping"]} == {"name"}
    probs = _softmax(net(golden_inputs()).numpy())
    np.testing.assert_allclose(probs, _expected(goldens, "custom_v1_adam"), atol=1e-5)


def test_unmatched_is_reported_and_map_overrides(goldens):
    import keras

    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(7)])
    ckpt = str(goldens / "custom_v1_adam" / "model_dir")
    with pytest.raises(MappingError, match="unmatched=.*kernel"):
        restore(model, ckpt)
    two = keras3_mlp()
    paths = [w.path for w in two.weights]
    good = assignment_map(two, ckpt, overrides={"logits/bias": paths[3]})
    assert {"checkpoint": "logits/bias", "model": paths[3], "how": "map"} in good["mapping"]
    bad = assignment_map(two, ckpt, overrides={"logits/bias": paths[1]})
    assert paths[1] in bad["ambiguous"]
    with pytest.raises(MappingError, match="shape_mismatch"):
        restore(two, ckpt, assignment_map={"logits/bias": paths[1]})


@pytest.mark.slow
def test_object_based_to_keras3_weights_cli(goldens, tmp_path):
    out = tmp_path / "model.weights.h5"
    src = goldens / "keras_model_to_estimator" / "model_dir" / "model.ckpt-40"
    proc = run_cli(
        "ckpt",
        "port",
        src,
        out,
        "--model",
        "ckpt_models:keras3_softmax_mlp",
        "--to",
        "keras-weights",
        "--json",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["mapping"]) == 4
    model = keras3_softmax_mlp()
    model.load_weights(str(out))
    probs = np.asarray(model(golden_inputs()))
    np.testing.assert_allclose(probs, _expected(goldens, "keras_model_to_estimator"), atol=1e-5)
    again = run_cli(
        "ckpt",
        "port",
        src,
        out,
        "--model",
        "ckpt_models:keras3_softmax_mlp",
        "--to",
        "keras-weights",
    )
    assert again.returncode == 2 and "--overwrite" in again.stderr


@pytest.mark.slow
def test_port_to_tf_checkpoint(goldens, tmp_path):
    tf = import_tf()
    out = str(tmp_path / "ported" / "ckpt")
    src = goldens / "custom_v1_adam" / "model_dir"
    proc = run_cli(
        "ckpt",
        "port",
        src,
        out,
        "--model",
        "ckpt_models:tf_keras_mlp",
        "--to",
        "tf-checkpoint",
        "--json",
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    model = tf_keras_mlp()
    tf.train.Checkpoint(model=model).read(out).assert_existing_objects_matched()
    probs = _softmax(model(golden_inputs()).numpy())
    np.testing.assert_allclose(probs, _expected(goldens, "custom_v1_adam"), atol=1e-5)


def test_port_dry_run_and_bad_inputs(goldens, tmp_path, small_ckpt):
    src = goldens / "custom_v1_adam" / "model_dir"
    out = tmp_path / "m.weights.h5"
    args = ("--to", "keras-weights", "--json")
    dry = run_cli("ckpt", "port", src, out, "--model", "ckpt_models:keras3_mlp", "--dry-run", *args)
    assert dry.returncode == 0, dry.stderr
    report = json.loads(dry.stdout)
    assert report["complete"] and len(report["map"]) == 4 and not out.exists()
    wrong = run_cli(
        "ckpt", "port", small_ckpt, out, "--model", "ckpt_models:keras3_mlp", "--dry-run", *args
    )
    assert wrong.returncode == 1 and json.loads(wrong.stdout)["unmatched_model"]
    bad_factory = run_cli("ckpt", "port", src, out, "--model", "ckpt_models:nope", *args)
    assert bad_factory.returncode == 2 and "nope" in bad_factory.stderr
    (tmp_path / "x.index").write_bytes(b"\0" * 100)
    corrupt = run_cli(
        "ckpt", "port", tmp_path / "x", out, "--model", "ckpt_models:keras3_mlp", *args
    )
    assert corrupt.returncode == 2 and "corrupt" in corrupt.stderr
