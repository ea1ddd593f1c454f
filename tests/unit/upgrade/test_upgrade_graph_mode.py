"""Issue 40: TF 1.x session programs get `tf.compat.v1.disable_v2_behavior()` at their entry;
Estimator modules, graph blocks, libraries and a bare `tf.app.run` main do not."""

from __future__ import annotations

import pytest
from tests.upgrade.upgrade_helpers import src

from tfport.upgrade import upgrade_source

SWITCH = "tf.compat.v1.disable_v2_behavior()"

PROGRAM = """
import numpy as np
import tensorflow as tf


def main(_):
    x = tf.placeholder(tf.float32, [None, 2])
    with tf.Session() as sess:
        print(sess.run(x * 2.0, {x: np.ones((1, 2))}))


if __name__ == "__main__":
    tf.app.run()
"""

MODULE_LEVEL = """
import tensorflow as tf

w = tf.Variable(tf.zeros([2]), name="w")
loss = tf.reduce_sum(tf.square(w - 1.0))
step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
"""

ESTIMATOR = """
import tensorflow as tf


def serving_input_fn():
    x = tf.placeholder(tf.float32, [None, 2], name="x")
    return tf.estimator.export.ServingInputReceiver({"x": x}, {"x": x})


def main(_):
    est = tf.estimator.LinearRegressor([tf.feature_column.numeric_column("x", [2])])


if __name__ == "__main__":
    tf.app.run()
"""

GRAPH_BLOCK = """
import tensorflow as tf


def main(_):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2])
        with tf.Session() as sess:
            print(sess.run(x, {x: [[1.0, 2.0]]}))


if __name__ == "__main__":
    tf.app.run()
"""

LIBRARY = """
import tensorflow as tf


def inputs():
    return tf.placeholder(tf.float32, [None, 2])
"""

APP_RUN_ONLY = """
import tensorflow as tf


def main(_):
    print(tf.reduce_sum(tf.ones([2])).numpy())


if __name__ == "__main__":
    tf.app.run()
"""


def _upgrade(code: str):
    return upgrade_source(src(code), "prog.py")


@pytest.mark.parametrize(
    "code, names",
    [
        (PROGRAM, "'tf.placeholder', 'tf.Session'"),
        (MODULE_LEVEL, "'tf.train.GradientDescentOptimizer'"),
    ],
    ids=["session_program", "module_level"],
)
def test_a_session_program_gets_the_switch_after_its_tensorflow_import(code, names) -> None:
    result = _upgrade(code)
    lines = result.code.splitlines()
    assert lines.count(SWITCH) == 1
    assert lines[lines.index(SWITCH) - 1] == "import tensorflow as tf"
    (item,) = [i for i in result.items if SWITCH in i.message]
    assert (
        item.level == "INFO"
        and item.line == src(code).splitlines().index("import tensorflow as tf") + 1
    )
    assert f"TF 1.x graph-mode code ({names})" in item.message
    assert not result.unresolved
    again = upgrade_source(result.code, "prog.py")
    assert again.code.count("disable_v2_behavior") == 1  # a second run adds nothing


@pytest.mark.parametrize(
    "code",
    [ESTIMATOR, GRAPH_BLOCK, LIBRARY, APP_RUN_ONLY],
    ids=["estimator", "graph_block", "library", "app_run_only"],
)
def test_code_that_is_no_session_program_gets_no_switch(code) -> None:
    result = _upgrade(code)
    assert "disable_v2_behavior" not in result.code
    assert not [i for i in result.items if "disable_v2_behavior" in i.message]


def test_a_program_that_switches_itself_runs_as_is() -> None:
    # The TF 1.x program written against compat.v1, as TensorFlow's guide shows it.
    code = src(PROGRAM).replace("import tensorflow as tf\n", "import tensorflow.compat.v1 as tf\n")
    assert not upgrade_source(code, "p.py").runs_as_is  # no switch: it cannot run
    switched = code.replace(
        "import tensorflow.compat.v1 as tf\n",
        "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n",
    )
    result = upgrade_source(switched, "p.py")
    assert result.runs_as_is and result.code == switched
