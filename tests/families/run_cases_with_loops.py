"""Runs cases of one legacy script in one process (one TF import), some with steps per loop.

Usage (under ``tfport run [--strategy ...]``)::

    run_cases_with_loops.py SCRIPT CASE,MODEL_DIR,OUT_JSON[,LOOP] [...]

SCRIPT is a script's name in legacy/scripts without `.py` (`families_cases`,
`families_rnn_seq`).

A job with LOOP runs its case with every ``tf.estimator.RunConfig`` it makes given
``iterations_per_loop=LOOP`` (LOOP training steps per ``session.run``, the model step
built inside the engine's ``while_loop``); the model and its numbers are the case's own.
"""

import importlib.util
import pathlib
import sys

import tensorflow as tf

NAME = sys.argv[1]
SCRIPT = pathlib.Path(__file__).parents[2] / "legacy" / "scripts" / f"{NAME}.py"

spec = importlib.util.spec_from_file_location(NAME, SCRIPT)
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


for job in sys.argv[2:]:
    case, model_dir, out_json, *loop = job.split(",")
    tf.estimator.RunConfig = looped_config(int(loop[0])) if loop else BASE
    try:
        cases.main(case, model_dir, out_json)
    finally:
        tf.estimator.RunConfig = BASE
