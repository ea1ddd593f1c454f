"""Runs legacy/scripts/families_rnn_seq.py's case several times in one process (one TF import).

Usage (under ``tfport run [--strategy ...]``)::

    run_rnn_seq.py MODEL_DIR,OUT_JSON[,LOOP] [...]

A job with LOOP runs the case with every ``tf.estimator.RunConfig`` it makes given
``iterations_per_loop=LOOP`` (LOOP training steps per ``session.run``, the model step
built inside the engine's ``while_loop``); the model and its numbers are the case's own.
"""

import importlib.util
import pathlib
import sys

import tensorflow as tf

SCRIPT = pathlib.Path(__file__).parents[2] / "legacy" / "scripts" / "families_rnn_seq.py"

spec = importlib.util.spec_from_file_location("families_rnn_seq", SCRIPT)
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)

BASE = tf.estimator.RunConfig


def looped_config(loop):
    """A RunConfig class setting `iterations_per_loop=loop` unless the caller sets one."""

    class LoopedRunConfig(BASE):
        def __init__(self, **kwargs):
            kwargs.setdefault("iterations_per_loop", loop)
            super().__init__(**kwargs)

    return LoopedRunConfig


for job in sys.argv[1:]:
    model_dir, out_json, *loop = job.split(",")
    tf.estimator.RunConfig = looped_config(int(loop[0])) if loop else BASE
    try:
        cases.main("families_rnn_seq", model_dir, out_json)
    finally:
        tf.estimator.RunConfig = BASE
