"""Writes a small frozen GraphDef (input `input:0`, output `probabilities:0`) with TF1 APIs.

python examples/_frozen.py OUT_DIR
"""

import os
import sys

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
out = sys.argv[1]
graph = tf.Graph()
with graph.as_default():
    x = v1.placeholder(tf.float32, [None, 4], name="input")
    w = v1.get_variable("w", initializer=np.random.RandomState(0).normal(size=(4, 3)).astype("f"))
    tf.nn.softmax(tf.matmul(x, w), name="probabilities")
    with v1.Session() as session:
        session.run(v1.global_variables_initializer())
        frozen = v1.graph_util.convert_variables_to_constants(
            session, graph.as_graph_def(), ["probabilities"]
        )
tf.io.write_graph(frozen, out, "frozen.pb", as_text=False)
print("wrote", os.path.join(out, "frozen.pb"))
