"""A frozen GraphDef and a TF1 SavedModel, made the way TF1-era users made them.

Usage::

    python frozen_graph.py frozen_graph OUT_DIR

Builds a small classifier (``input:0`` float32 [None, 4] -> ``probabilities:0``) with
``tf.compat.v1`` layers in a graph, then writes into OUT_DIR:

- ``frozen.pb`` / ``frozen.pbtxt``: ``graph_util.convert_variables_to_constants`` output;
- ``saved_model_v1/``: ``tf.compat.v1.saved_model.Builder`` output, tag ``serve``,
  signatures ``serving_default`` and ``predict_probs`` (input ``x``, output ``probs``);
- ``input.npy``: 16 rows from ``numpy.random.RandomState(99)``;
- ``expected.json``: what the session computed for those rows, and the names above.
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

# The artifacts this script makes (legacy/generate.py reads this name).
ARTIFACTS = ("frozen_graph",)


def build(out_dir):
    """Writes the frozen graph, the TF1 SavedModel, the input rows and the outputs."""
    v1 = tf.compat.v1
    os.makedirs(out_dir, exist_ok=True)
    rows = np.random.RandomState(99).normal(size=(16, 4)).astype("float32")
    graph = tf.Graph()
    with graph.as_default():
        v1.set_random_seed(7)
        x = v1.placeholder(tf.float32, shape=[None, 4], name="input")
        net = v1.layers.dense(x, 16, activation=tf.nn.relu, name="hidden")
        logits = v1.layers.dense(net, 3, name="logits")
        probabilities = tf.nn.softmax(logits, name="probabilities")
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            outputs = sess.run(probabilities, feed_dict={x: rows})
            frozen = v1.graph_util.convert_variables_to_constants(
                sess, graph.as_graph_def(), ["probabilities"]
            )
            signature = v1.saved_model.signature_def_utils.predict_signature_def(
                inputs={"x": x}, outputs={"probs": probabilities}
            )
            builder = v1.saved_model.Builder(os.path.join(out_dir, "saved_model_v1"))
            builder.add_meta_graph_and_variables(
                sess,
                [v1.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": signature, "predict_probs": signature},
            )
            builder.save()
    tf.io.write_graph(frozen, out_dir, "frozen.pb", as_text=False)
    tf.io.write_graph(frozen, out_dir, "frozen.pbtxt", as_text=True)
    np.save(os.path.join(out_dir, "input.npy"), rows)
    expected = {
        "inputs": ["input:0"],
        "outputs": ["probabilities:0"],
        "input_file": "input.npy",
        "predictions": outputs.tolist(),
        "saved_model_tags": ["serve"],
        "saved_model_signatures": ["predict_probs", "serving_default"],
    }
    with open(os.path.join(out_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ARTIFACTS:
        sys.exit(f"usage: frozen_graph.py {{{','.join(ARTIFACTS)}}} OUT_DIR")
    build(sys.argv[2])
