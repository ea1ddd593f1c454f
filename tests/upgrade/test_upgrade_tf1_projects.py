"""TF1 projects (a BERT-like TPUEstimator tree, an official-models-style CNN) upgraded by
`tfport upgrade` run unmodified under `tfport run`, and keep their checkpoint names.

The BERT-like fine-tuning starts from ``data/bert_pretrained``, written by the
*original* sample code on TF 2.15 (see ``data/make_bert_checkpoint.py``).
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

DATA = pathlib.Path(__file__).parent / "data"
LEGACY_CKPT = DATA / "bert_pretrained" / "model.ckpt-2"


def upgrade_tree(src: pathlib.Path, out: pathlib.Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "tfport", "upgrade", str(src), "--out", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=600,
    )


def tfport_run(script: pathlib.Path, *args: str, strategy: str | None = None) -> str:
    cmd = [sys.executable, "-m", "tfport", "run"]
    cmd += ["--strategy", strategy] if strategy else []
    proc = subprocess.run(
        [*cmd, str(script), *args], cwd=script.parent, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


@pytest.fixture(scope="module")
def bert(tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("bert") / "up"
    proc = upgrade_tree(DATA / "bert_like", out)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (
        "4 files: 4 changed, 0 run as is under tfport, 0 need manual work, 0 failed" in proc.stderr
    )
    shutil.copy(DATA / "bert_like" / "bert_config.json", out)
    return out


def test_bert_like_tree_upgrades_with_nothing_left_by_hand(bert) -> None:
    for path in bert.glob("*.py"):
        text = path.read_text()
        assert "tf.contrib" not in text and "tf.flags" not in text, path.name
    modeling = (bert / "modeling.py").read_text()
    assert "tfport.compat.contrib.layers.layer_norm(" in modeling
    assert "flags = tf.compat.v1.flags" in (bert / "run_classifier.py").read_text()
    assert "tfport.estimator.tpu.CrossShardOptimizer(" in (bert / "optimization.py").read_text()


def _load(path):
    from tfport._common.tfenv import import_tf

    return import_tf().train.load_checkpoint(str(path))


@pytest.mark.slow
def test_bert_like_pretrains_and_fine_tunes_from_the_legacy_checkpoint(bert, tmp_path) -> None:
    config = f"--bert_config_file={bert / 'bert_config.json'}"
    # pretraining, use_tpu: CrossShardOptimizer + TPUEstimatorSpec on CPU
    out = tfport_run(
        bert / "run_pretraining.py", config, f"--input_file={tmp_path / 'pre.tfrecord'}",
        f"--output_dir={tmp_path / 'pre'}", "--use_tpu=True",
    )  # fmt: skip
    assert "pretraining done model.ckpt-2" in out
    ours = _load(tmp_path / "pre" / "model.ckpt-2").get_variable_to_shape_map()
    legacy = _load(LEGACY_CKPT).get_variable_to_shape_map()
    assert ours == legacy  # same names and shapes as the original code wrote on TF 2.15
    assert "bert/encoder/layer_1/output/LayerNorm/gamma" in legacy

    # fine-tuning from the legacy checkpoint (scaffold_fn + init_from_checkpoint), lr 0:
    # every bert/* variable must come back exactly as the TF 2.15 run wrote it
    data = f"--data_file={tmp_path / 'cls.tfrecord'}"
    tfport_run(
        bert / "run_classifier.py", config, data, f"--output_dir={tmp_path / 'cls0'}",
        f"--init_checkpoint={LEGACY_CKPT}", "--use_tpu=True", "--learning_rate=0.0",
        "--iterations_per_loop=1",
    )  # fmt: skip
    tuned, original = _load(tmp_path / "cls0" / "model.ckpt-3"), _load(LEGACY_CKPT)
    bert_names = [n for n in legacy if n.startswith("bert/") and "adam_" not in n]
    assert len(bert_names) == 39
    for name in bert_names:
        np.testing.assert_array_equal(tuned.get_tensor(name), original.get_tensor(name), name)

    # and a real fine-tuning on one device (use_tpu false)
    out = tfport_run(
        bert / "run_classifier.py", config, data, f"--output_dir={tmp_path / 'cls'}",
        f"--init_checkpoint={LEGACY_CKPT}",
    )  # fmt: skip
    result = json.loads(out.split("eval ", 1)[1].splitlines()[0])
    assert result["global_step"] == 3.0 and np.isfinite(result["eval_loss"])
    moved = _load(tmp_path / "cls" / "model.ckpt-3")
    name = "bert/encoder/layer_0/attention/output/LayerNorm/gamma"
    assert not np.array_equal(moved.get_tensor(name), original.get_tensor(name))


@pytest.mark.slow
def test_cnn_estimator_upgraded_runs_with_contrib_variable_names(tmp_path) -> None:
    out = tmp_path / "up"
    proc = upgrade_tree(DATA / "cnn_like", out)
    assert proc.returncode == 0, proc.stderr
    text = (out / "cnn_main.py").read_text()
    assert "tf.contrib" not in text and "tf.app.flags" not in text
    stdout = tfport_run(out / "cnn_main.py", f"--model_dir={tmp_path / 'm'}")
    result = json.loads(stdout.strip().splitlines()[-1])
    assert {"fc1/weights", "fc1/biases", "conv1/kernel", "global_step"} <= set(result["variables"])
    assert 0.0 <= result["accuracy"] <= 1.0
