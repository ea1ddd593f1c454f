"""The built wheel, installed into a fresh venv, runs `tfport --help`, the demo and a
legacy script. Nothing is downloaded: the venv sees the dependencies already installed
(a `.pth` file pointing at this interpreter's site-packages) and the wheel is installed
with `--no-deps --no-index`."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import site
import subprocess
import sys
import sysconfig
import textwrap

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
LEGACY_SCRIPT = textwrap.dedent(
    """
    import numpy as np
    import tensorflow as tf

    def model_fn(features, labels, mode):
        w = tf.compat.v1.get_variable("w", [2, 1])
        loss = tf.reduce_mean(tf.square(tf.matmul(features["x"], w) - labels))
        step = tf.compat.v1.train.get_or_create_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    x = np.random.RandomState(0).rand(8, 2).astype("float32")
    y = x.sum(1, keepdims=True)
    input_fn = tf.compat.v1.estimator.inputs.numpy_input_fn(
        {"x": x}, y, batch_size=4, num_epochs=None, shuffle=False
    )
    est = tf.estimator.Estimator(model_fn, model_dir="model")
    est.train(input_fn, steps=3)
    print("legacy global_step", est.get_variable_value("global_step"))
    """
)


def _run(args: list, cwd: pathlib.Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TF_CPP_MIN_LOG_LEVEL")}
    proc = subprocess.run(
        [str(a) for a in args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    return proc


def _build_wheel(tmp: pathlib.Path) -> pathlib.Path:
    source = tmp / "source"  # a clean copy: the build leaves nothing in the checkout
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py", "LICENSE", "docs/index.md"):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO / name, source / name)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
    build = [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", tmp / "dist"]
    _run([*build, source], tmp)
    (wheel,) = (tmp / "dist").glob("tfport-*.whl")
    return wheel


@pytest.mark.slow
def test_the_wheel_in_a_fresh_venv_runs_help_demo_and_a_legacy_script(tmp_path):
    wheel = _build_wheel(tmp_path)
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv], tmp_path)
    python = venv / "bin" / "python"
    purelib = pathlib.Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], tmp_path
        ).stdout.strip()
    )
    deps = {sysconfig.get_path("purelib"), sysconfig.get_path("platlib"), *site.getsitepackages()}
    (purelib / "_tfport_deps.pth").write_text("\n".join(sorted(deps)) + "\n")
    pip = [python, "-m", "pip", "--disable-pip-version-check"]
    _run([*pip, "install", "--no-deps", "--no-index", wheel], tmp_path)

    where = _run([python, "-c", "import tfport; print(tfport.__file__)"], tmp_path).stdout
    assert pathlib.Path(where.strip()).is_relative_to(venv)  # not the checkout's editable one
    tfport = venv / "bin" / "tfport"
    assert "usage: tfport" in _run([tfport, "--help"], tmp_path).stdout
    demo = _run([tfport, "demo", "--steps", "20"], tmp_path)
    assert json.loads(demo.stdout)["global_step"] == 20.0
    (tmp_path / "legacy_train.py").write_text(LEGACY_SCRIPT)
    legacy = _run([tfport, "run", "legacy_train.py"], tmp_path)
    assert "legacy global_step 3" in legacy.stdout
