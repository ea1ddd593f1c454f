"""Graphs the graph tests build with TensorFlow itself (into tmp folders)."""

from __future__ import annotations

import pathlib

import pytest

from tfport._common.tfenv import import_tf


@pytest.fixture(scope="session")
def frozen_dir(goldens: pathlib.Path) -> pathlib.Path:
    return goldens / "frozen_graph"


@pytest.fixture(scope="session")
def while_readfile_pb(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A frozen graph whose while-loop body reads a file (v2 control flow: a function body)."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None], name="x")
        fname = tf.constant("/etc/hostname", name="fname")

        def body(i: object, acc: object) -> tuple:
            size = tf.cast(tf.strings.length(tf.io.read_file(fname)), tf.float32)
            return i + 1, acc + size

        _, total = tf.while_loop(lambda i, acc: i < 3, body, [tf.constant(0), tf.constant(0.0)])
        tf.identity(x + total, name="y")
    path = tmp_path_factory.mktemp("unsafe") / "while_readfile.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path


@pytest.fixture(scope="session")
def two_io_pb(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A frozen graph with two inputs ('in/a', 'b-2') and two outputs ('sum', 'out/prod')."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        a = v1.placeholder(tf.float32, [None, 3], name="in/a")
        b = v1.placeholder(tf.float32, [None, 3], name="b-2")
        w = tf.constant([[1.0, -2.0, 0.5], [0.25, 3.0, -1.0], [2.0, 0.0, 1.5]])
        tf.identity(tf.matmul(a, w) + b, name="sum")
        tf.reduce_prod(tf.tanh(a) * b, axis=1, name="out/prod")
    path = tmp_path_factory.mktemp("two_io") / "two_io.pb"
    path.write_bytes(graph.as_graph_def().SerializeToString())
    return path
