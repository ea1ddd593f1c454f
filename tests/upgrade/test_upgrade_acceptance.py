"""`--rewrite-all`: upgraded code runs with plain `python` on TF 2.21, same numbers."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
from upgrade_helpers import src

CASE = "custom_v1_adam"


def plain_env() -> dict[str, str]:
    """The environment of a plain `python` run: no tfport / legacy-Keras switches."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_USE_LEGACY", "TFPORT"))}
    env["TF_CPP_MIN_LOG_LEVEL"] = "2"
    return env


def upgrade(path: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "upgrade", str(path), "--out", str(out), "--rewrite-all"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    return out / path.name


def run_plain(script: pathlib.Path, *args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(script), *args],
        cwd=cwd,
        env=plain_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_upgraded_layers_tensorshape_colocate_configproto_run_with_plain_python(tmp_path) -> None:
    script = tmp_path / "legacy.py"
    script.write_text(
        src(
            """
            import tensorflow as tf

            config = tf.ConfigProto(allow_soft_placement=False, device_count={"GPU": 0})
            config.gpu_options.allow_growth = True
            with tf.Graph().as_default():
                x = tf.placeholder(tf.float32, [None, 4])
                with tf.colocate_with(x):
                    h = tf.layers.dense(x, 3, name="h")
                print("dims", h.shape[1].value, h.get_shape()[0].value)
                with tf.Session(config=config) as sess:
                    print("soft", tf.config.get_soft_device_placement())
                    print("gpus", len(tf.config.get_visible_devices("GPU")))
            """
        )
    )
    upgraded = upgrade(script, tmp_path / "up")
    assert "ConfigProto" not in upgraded.read_text()
    proc = run_plain(upgraded, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split() == ["dims", "3", "None", "soft", "False", "gpus", "0"]


SEED = """
import numpy as np
import tensorflow as tf

def input_fn(params):
    x = np.random.RandomState(0).normal(size=(64, 4)).astype("float32")
    y = (x[:, 0] > 0).astype("int64")
    ds = tf.data.Dataset.from_tensor_slices((x, y)).repeat()
    return ds.batch(params["batch_size"], drop_remainder=True)


def model_fn(features, labels, mode, params):
    model = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
    logits = model(features)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
    optimizer = tf.contrib.tpu.CrossShardOptimizer(optimizer)
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.contrib.tpu.TPUEstimatorSpec(mode=mode, loss=loss, train_op=train_op)


run_config = tf.contrib.tpu.RunConfig(
    model_dir="model", tpu_config=tf.contrib.tpu.TPUConfig(iterations_per_loop=5)
)
estimator = tf.contrib.tpu.TPUEstimator(
    model_fn=model_fn, config=run_config, use_tpu=False, train_batch_size=16
)
estimator.train(input_fn, max_steps=10)
print("global_step", estimator.get_variable_value("global_step"))
"""


@pytest.mark.slow
def test_upgraded_seed_tpu_estimator_from_keras_trains_on_cpu(tmp_path) -> None:
    script = tmp_path / "seed.py"
    script.write_text(SEED.lstrip())
    upgraded = upgrade(script, tmp_path / "up")
    assert "tf.contrib" not in upgraded.read_text()
    proc = run_plain(upgraded, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[-2:] == ["global_step", "10"]


def _seed_model_dir(golden: pathlib.Path, model_dir: pathlib.Path) -> None:
    model_dir.mkdir(parents=True)
    for path in (golden / "model_dir").glob("model.ckpt-0.*"):
        if not path.name.endswith(".meta"):
            shutil.copy(path, model_dir / path.name)
    (model_dir / "checkpoint").write_text(
        'model_checkpoint_path: "model.ckpt-0"\nall_model_checkpoint_paths: "model.ckpt-0"\n'
    )


@pytest.mark.slow
def test_upgraded_cases_py_reproduces_custom_v1_adam(legacy_dir, goldens, tmp_path) -> None:
    upgraded = upgrade(legacy_dir / "scripts" / "estimator_cases.py", tmp_path / "up")
    text = upgraded.read_text()
    for gone in ("tf.estimator.", "v1.estimator.", "tf.keras.estimator."):
        assert gone not in text, gone
    golden = goldens / CASE
    model_dir = tmp_path / "case" / "model_dir"
    _seed_model_dir(golden, model_dir)
    out_json = tmp_path / "out.json"

    proc = run_plain(upgraded, CASE, str(model_dir), str(out_json), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-5000:]

    from tfport._common.tfenv import import_tf

    tf = import_tf()
    ours = tf.train.load_checkpoint(str(model_dir / "model.ckpt-40"))
    theirs = tf.train.load_checkpoint(str(golden / "model_dir" / "model.ckpt-40"))
    shapes = theirs.get_variable_to_shape_map()
    assert ours.get_variable_to_shape_map() == shapes
    for name in shapes:
        np.testing.assert_allclose(ours.get_tensor(name), theirs.get_tensor(name), atol=1e-5)
    expected = json.loads((golden / "expected.json").read_text())
    got = json.loads(out_json.read_text())
    for key, value in expected["eval_metrics"].items():
        assert got["eval_metrics"][key] == pytest.approx(value, abs=1e-5), key
    np.testing.assert_allclose(got["predictions"], expected["predictions"], atol=1e-5)
    assert got["variables"] == expected["variables"]
