"""Every example of examples/ runs as its README says, on its small built-in data."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"
BIN = pathlib.Path(sys.executable).parent


def _run(cmd: list[str], tmp_path: pathlib.Path) -> str:
    env = dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc.stdout


def _accuracy(stdout: str) -> float:
    return float(re.search(r"^accuracy ([0-9.]+)", stdout, re.M).group(1))


@pytest.mark.slow
@pytest.mark.parametrize(
    ("script", "strategy", "least"),
    [
        ("keras_to_estimator.py", "mirrored:2", 0.8),
        ("keras_to_tpu_estimator.py", "default", 0.8),
        ("custom_model_fn_v1.py", "default", 0.9),
        ("custom_model_fn_tf2.py", "default", 0.9),
        ("canned_feature_columns.py", "default", 0.85),
    ],
)
def test_estimator_examples_train_to_a_useful_accuracy(tmp_path, script, strategy, least):
    cmd = [str(BIN / "tfport"), "run", "--strategy", strategy, str(EXAMPLES / script)]
    out = _run([*cmd, str(tmp_path / "out")], tmp_path)
    assert _accuracy(out) >= least
    if "exported" in out:
        export = pathlib.Path(out.split("exported ", 1)[1].split()[0])
        assert (export / "saved_model.pb").exists()


@pytest.mark.slow
def test_convert_canned_checkpoint_example(tmp_path):
    out = _run(["bash", str(EXAMPLES / "convert_canned_checkpoint.sh"), "out"], tmp_path)
    assert "dnn/hiddenlayer_0/kernel" in out  # the v1 names, then the v2 ones
    assert "dnn/hiddenlayer_0/kernel/t_0/Adagrad" not in (tmp_path / "out" / "v2").as_posix()
    assert list((tmp_path / "out" / "v2").glob("*.index"))


@pytest.mark.slow
def test_frozen_graph_to_savedmodel_example(tmp_path):
    out = _run(["bash", str(EXAMPLES / "frozen_graph_to_savedmodel.sh"), "out"], tmp_path)
    assert "ok" in out.splitlines()[-1]
    assert (tmp_path / "out" / "savedmodel" / "saved_model.pb").exists()


@pytest.mark.slow
def test_upgrade_tf1_tree_example(tmp_path):
    out = _run(["bash", str(EXAMPLES / "upgrade_tf1_tree.sh"), "out"], tmp_path)
    assert out.strip().splitlines()[-1] == "trained to 20"
    upgraded = (tmp_path / "out" / "tf2" / "train.py").read_text()
    assert "tf.contrib" not in upgraded and "tf.compat.v1.flags" in upgraded
