"""Helpers of the graph tests: the CLI in a subprocess, TF1 SavedModels built with TF itself."""

from __future__ import annotations

import pathlib
import subprocess
import sys

from tfport._common.tfenv import import_tf


def run_cli(*args: str, cwd: pathlib.Path | None = None) -> subprocess.CompletedProcess:
    """Runs `python -m tfport ARGS` and returns the finished process (text output)."""
    return subprocess.run(
        [sys.executable, "-m", "tfport", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def error_lines(stderr: str) -> list[str]:
    """The `tfport: error:` lines of stderr (TensorFlow's own log lines left out)."""
    return [line for line in stderr.splitlines() if line.startswith("tfport: error:")]


def build_v1_saved_model(
    export: pathlib.Path, marker: pathlib.Path | None = None, use_resource: bool = True
) -> None:
    """A TF1 SavedModel (v1 Builder) with variables; its main_op writes `marker` if given."""
    tf = import_tf()
    v1 = tf.compat.v1
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 2], name="x")
        w = v1.Variable([[1.5, -1.0], [0.5, 2.0]], name="w", use_resource=use_resource)
        bias = v1.Variable([0.25, -0.75], name="bias", use_resource=use_resource)
        y = tf.nn.sigmoid(tf.matmul(x, w) + bias, name="y")
        z = tf.reduce_sum(x * 3.0, axis=1, name="z")
        main_op = None
        if marker is not None:
            main_op = tf.group(
                v1.global_variables_initializer(),
                tf.io.write_file(str(marker), "main_op ran"),
                name="main_op",
            )
        with v1.Session(graph=graph) as sess:
            sess.run(v1.global_variables_initializer())
            sess.run([w.assign([[2.0, -1.0], [0.5, 1.0]])])
            builder = v1.saved_model.Builder(str(export))
            builder.add_meta_graph_and_variables(
                sess,
                ["serve"],
                signature_def_map={
                    "serving_default": v1.saved_model.predict_signature_def({"x": x}, {"y": y}),
                    "both": v1.saved_model.predict_signature_def({"x": x}, {"y": y, "z": z}),
                },
                main_op=main_op,
            )
            builder.save()
