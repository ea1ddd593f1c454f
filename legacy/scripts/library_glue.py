"""TensorFlow 2.15's own Estimator glue outside the estimator package, as libraries import it.

``tensorflow.python.distribute.estimator_training`` (a recommender library, a privacy
library and RunConfig subclasses import it) and the ``tensorflow.python.tpu.*`` stubs that
re-export tensorflow-estimator's TPU modules.
``python library_glue.py library_glue OUT_DIR`` writes ``OUT_DIR/values.json``: the
signatures of estimator_training's functions, its task-type constants, global ids and
counts over a cluster, its errors, ``should_run_distribute_coordinator`` and
``init_run_config`` on a plain RunConfig, and the names each TPU stub offers.
"""

import __future__

import inspect
import json
import os
import sys
import types

import tensorflow as tf
from tensorflow.python.distribute import estimator_training as glue

ARTIFACTS = ("library_glue",)
CLUSTER = {
    "chief": ["host0:2222"],
    "worker": ["host1:2222", "host2:2222"],
    "ps": ["host3:2222", "host4:2222"],
    "evaluator": ["host5:2222"],
}
TASKS = [("chief", 0), ("worker", 0), ("worker", 1), ("ps", 0), ("ps", 1), ("evaluator", 0)]
STUBS = ("tpu_estimator", "tpu_config", "tpu_context", "error_handling", "util")


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - the type and text are what is recorded
        return [type(exc).__name__, str(exc)]
    return None


def signatures(module):
    out = {}
    for name, value in sorted(vars(module).items()):
        if name.startswith("__") or isinstance(value, types.ModuleType):
            continue
        if inspect.isfunction(value) and value.__module__ == module.__name__:
            out[name] = str(inspect.signature(value))
    return out


def values():
    cluster = tf.train.ClusterSpec(CLUSTER)
    config = tf.estimator.RunConfig()
    tf_config = {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}}
    glue.init_run_config(config, tf_config)
    fields = ("task_type", "task_id", "num_ps_replicas", "num_worker_replicas", "is_chief")
    return {
        "constants": [glue.CHIEF, glue.EVALUATOR, glue.PS, glue.WORKER],
        "global_ids": [glue._get_global_id(cluster, t, i, "chief") for t, i in TASKS],
        "global_id_no_task": glue._get_global_id(cluster, None, 0, "chief"),
        "count_ps": glue._count_ps(cluster),
        "count_worker": glue._count_worker(cluster, chief_task_type="chief"),
        "errors": {
            "count_ps_empty": _error(lambda: glue._count_ps(tf.train.ClusterSpec({}))),
            "count_worker_empty": _error(lambda: glue._count_worker({}, "chief")),
            "train_and_evaluate_without_mode": _error(
                lambda: glue.train_and_evaluate(
                    tf.estimator.Estimator(lambda features, labels, mode: None), None, None, None
                )
            ),
        },
        "should_run_default": glue.should_run_distribute_coordinator(tf.estimator.RunConfig()),
        "init_run_config": {f: getattr(config, f) for f in fields}
        | {"mode": config._distribute_coordinator_mode, "master": config.master},
        "should_run_after_init": glue.should_run_distribute_coordinator(config),
    }


def stub_names():
    out = {}
    for stub in STUBS:
        module = __import__(f"tensorflow.python.tpu.{stub}", fromlist=["_"])
        out[stub] = sorted(
            n
            for n, v in vars(module).items()
            if not n.startswith("__")
            and not isinstance(v, (types.ModuleType, __future__._Feature))
            and getattr(v, "__module__", None) not in sys.stdlib_module_names  # contextmanager
        )
    return out


def record():
    return {
        "signatures": signatures(glue),
        "values": values(),
        "stub_names": stub_names(),
    }


def main(argv):
    name, out_dir = argv
    assert name == "library_glue", name
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(record(), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
