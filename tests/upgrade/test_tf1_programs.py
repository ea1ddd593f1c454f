"""Issue 40: TF 1.x session programs upgraded then run with plain `python` print the loss that
`tfport run` prints for the unmodified original (which runs it upgraded, in memory)."""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
from test_upgrade_acceptance import plain_env
from upgrade_helpers import src

import tfport
from tfport import _install
from tfport.upgrade import report_text, upgrade_paths
from tfport.upgrade._live import live_code, needs_upgrade

# The issue's program: tf.placeholder, tf.variable_scope, tf.layers, tf.contrib.layers'
# initializer, keep_dims=, an optimizer's minimize, tf.Session and tf.app.run; seeded.
SESSION = """
import numpy as np
import tensorflow as tf
from tensorflow.contrib import layers

flags = tf.app.flags
flags.DEFINE_integer("steps", 15, "training steps")
FLAGS = flags.FLAGS


def build(x):
    with tf.variable_scope("net"):
        init = layers.xavier_initializer()
        h = tf.layers.dense(x, 8, activation=tf.nn.relu, kernel_initializer=init)
        return tf.layers.dense(h, 1, kernel_initializer=init)


def main(_):
    tf.set_random_seed(1)
    xs = np.random.RandomState(0).normal(size=(64, 4)).astype(np.float32)
    ys = xs.sum(axis=1, keepdims=True)
    x = tf.placeholder(tf.float32, [None, 4])
    y = tf.placeholder(tf.float32, [None, 1])
    loss = tf.reduce_mean(tf.square(build(x) - y), keep_dims=False)
    train = tf.train.AdamOptimizer(0.01).minimize(loss)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(FLAGS.steps):
            value, _ = sess.run([loss, train], {x: xs, y: ys})
    print("loss %.7f" % value)


if __name__ == "__main__":
    tf.app.run()
"""

# Graph building at module level, an InteractiveSession.
MODULE_LEVEL = """
import numpy as np
import tensorflow as tf

tf.set_random_seed(2)
x = tf.placeholder(tf.float32, shape=[None, 3])
w = tf.Variable(tf.random_normal([3, 1]), name="w")
b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - 1.0))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
data = np.random.RandomState(1).normal(size=(16, 3)).astype(np.float32)
sess = tf.InteractiveSession()
tf.global_variables_initializer().run()
for _ in range(10):
    value, _ = sess.run([loss, step], feed_dict={x: data})
print("loss %.7f" % value)
"""


def _run(cmd: list[str], cwd: pathlib.Path, env: dict | None = None) -> str:
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc.stdout


def _loss(stdout: str) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith("loss ")]
    return line


@pytest.mark.slow
def test_session_programs_upgraded_run_with_plain_python_as_tfport_run_runs_them(tmp_path):
    originals = tmp_path / "tf1"
    originals.mkdir()
    (originals / "session.py").write_text(src(SESSION))
    (originals / "module_level.py").write_text(src(MODULE_LEVEL))
    out = tmp_path / "up"
    text = report_text(upgrade_paths([str(originals)], out_dir=str(out)))
    assert "2 files: 2 changed, 0 run as is under tfport, 0 need manual work" in text
    assert text.count("INFO: Added tf.compat.v1.disable_v2_behavior()") == 2
    assert "import tfport" in (out / "session.py").read_text()  # tf.layers needs tfport
    assert "import tfport" not in (out / "module_level.py").read_text()
    for name in ("session.py", "module_level.py"):
        plain = _loss(_run([sys.executable, str(out / name)], cwd=tmp_path, env=plain_env()))
        tfport = [sys.executable, "-m", "tfport", "run", str(originals / name)]
        assert _loss(_run(tfport, cwd=tmp_path)) == plain, name
        assert np.isfinite(float(plain.split()[1]))
    assert sorted(p.name for p in originals.iterdir()) == ["module_level.py", "session.py"]


@pytest.mark.slow
def test_tfport_run_runs_an_unmodified_tf1_tree_with_its_legacy_numbers(tmp_path, goldens):
    """tf1_contrib: its module `encoder` (tf.contrib.layers.layer_norm, keep_dims=) is
    imported upgraded too; nothing is written next to the sources."""
    tree = tmp_path / "tf1_contrib"
    shutil.copytree(pathlib.Path(__file__).parent / "data/trees/tf1_contrib", tree)
    numbers = tmp_path / "numbers.json"
    _run([sys.executable, "-m", "tfport", "run", str(tree / "run.py"), f"--out={numbers}"], tree)
    got = json.loads(numbers.read_text())
    legacy = json.loads((goldens / "upgrade_tf1_contrib" / "numbers.json").read_text())
    assert sorted(got) == sorted(legacy) and got["variables"] == legacy["variables"]
    for key in legacy.keys() - {"variables"}:
        np.testing.assert_allclose(got[key], legacy[key], rtol=0, atol=1e-6, err_msg=key)
    assert sorted(p.name for p in tree.iterdir()) == ["encoder.py", "run.py"]


def test_the_fast_check_lets_code_that_runs_through(legacy_dir):
    installed = bool(_install._current)
    tfport.install()  # as under `tfport run`
    try:
        for name in ("guide_cases.py", "api_cases.py", "estimator_cases.py", "converter_resume.py"):
            code = (legacy_dir / "scripts" / name).read_text()
            assert not needs_upgrade(code), name  # Estimator scripts run byte for byte
    finally:
        if not installed:
            tfport.uninstall()
    assert needs_upgrade(src(SESSION)) and needs_upgrade(src(MODULE_LEVEL))
    keep_dims = "import tensorflow as tf\ns = tf.reduce_sum(tf.ones([2]), keep_dims=True)\n"
    assert needs_upgrade(keep_dims)
    assert not needs_upgrade("import tensorflow as tf\ns = tf.reduce_sum(tf.ones([2]))\n")
    assert not needs_upgrade("import tensorflow as tf\nx = (\n")  # Python reports it


def test_live_code_is_the_upgrade_or_none(tmp_path):
    program = tmp_path / "p.py"
    program.write_text(src(MODULE_LEVEL))
    code = live_code(str(program))
    assert code is not None and "tf.compat.v1.disable_v2_behavior()" in code
    assert program.read_text() == src(MODULE_LEVEL)  # the input is never modified
    plain = tmp_path / "plain.py"
    plain.write_text("import tensorflow as tf\nprint(tf.reduce_sum(tf.ones([2])).numpy())\n")
    assert live_code(str(plain)) is None


# A module of the script's folder that the upgrade changes (tf.log) and shifts (tf.estimator
# needs tfport: its prelude goes before the TensorFlow import): at `make`'s line in the
# upgraded code, the file on disk has `def inner(x):`.
SHIFTED = """
import tensorflow as tf


def make(a, b):
    \"\"\"Returns inner.\"\"\"

    def inner(x):
        return x + a + b

    return inner


def model(x):
    one = 1.0 if tf.estimator.ModeKeys.TRAIN == "train" else 0.0
    return make(one, 2.0)(tf.log(x))
"""


@pytest.mark.slow
def test_autograph_converts_the_upgraded_functions_of_a_shifted_module(tmp_path):
    """A library beside the script (DeepCTR's estimator utils), upgraded in memory: autograph
    (tf.function here, every model_fn on replicas) read its functions' source from disk at
    the upgraded code's line numbers and converted `inner` in place of `make`
    (`inner() takes 1 positional argument but 2 were given`)."""
    (tmp_path / "shifted.py").write_text(src(SHIFTED))
    script = tmp_path / "run.py"
    script.write_text(
        "import tensorflow as tf\nimport shifted\n\n\n@tf.function\ndef f(x):\n"
        "    return shifted.make(1.0, 2.0)(x)\n\n\nprint('value', float(f(tf.constant(0.0))))\n"
    )
    assert live_code(str(tmp_path / "shifted.py")).count("\n") > src(SHIFTED).count("\n")
    out = _run([sys.executable, "-m", "tfport", "run", str(script)], cwd=tmp_path)
    assert "value 3.0" in out.splitlines()
