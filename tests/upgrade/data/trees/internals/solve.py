"""Solves a small system with TF-internal modules and a RewriterConfig proto."""
import argparse
import json

import numpy as np
import tensorflow as tf
from tensorflow.core.protobuf import rewriter_config_pb2
from tensorflow.python.ops import array_ops, linalg_ops, math_ops


def session_config():
    config = tf.compat.v1.ConfigProto()
    off = rewriter_config_pb2.RewriterConfig.OFF
    config.graph_options.rewrite_options.arithmetic_optimization = off
    return config


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    rng = np.random.RandomState(4)
    a = rng.normal(size=(5, 5))
    a = a @ a.T + 5 * np.eye(5)
    b = rng.normal(size=(5, 2))
    with tf.Graph().as_default():
        chol = linalg_ops.cholesky(a)
        solution = linalg_ops.matrix_triangular_solve(chol, b, lower=True)
        total = math_ops.reduce_sum(array_ops.reshape(solution, [-1]))
        with tf.compat.v1.Session(config=session_config()) as sess:
            values = sess.run({"solution": solution, "total": total})
    with open(args.out, "w") as f:
        json.dump({k: np.asarray(v).tolist() for k, v in values.items()}, f)


if __name__ == "__main__":
    main()
