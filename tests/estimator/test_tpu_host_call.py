"""host_call, a model-owned global step and the replica guard's message, in one process each.

The end-to-end matrix against legacy goldens is tests/estimator/test_tpu_programs.py; these
check what it cannot show quickly: the host function runs once per step with each step's
values whatever iterations_per_loop, v1 summaries made by it, TPUClusterResolver('') and
the drift message's causes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import json, logging, sys
    import numpy as np
    import tensorflow as tf
    import tfport
    tfport.install()
    logging.basicConfig(level=logging.INFO)
    v1 = tf.compat.v1
    model_dir, iterations, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    calls = []

    def host_fn_writing_to(folder):
        def host_fn(gs, x):
            calls.append(1)  # traced once per graph, on the host, outside the loop
            v1.summary.scalar("x_v1", x[0])
            with tf.summary.create_file_writer(folder).as_default():
                with tf.summary.record_if(True):
                    tf.summary.scalar("x_v2", tf.reduce_sum(x), step=gs[0])
                    return v1.summary.all_v2_summary_ops()

        return host_fn

    def model_fn(features, labels, mode, params):
        w = v1.get_variable("w", [], initializer=v1.zeros_initializer())
        loss = tf.reduce_mean(tf.square(features - w))
        step = v1.train.get_global_step()
        if mode == "eval":  # host_call in EVAL: each eval step's first feature
            host_fn = host_fn_writing_to(model_dir + "/eval_host")
            host = (host_fn, [tf.reshape(step, [1]), features[:1]])
            return v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, host_call=host)
        lr = 0.1 * tf.cast(step + 1, tf.float32)  # read from the step
        opt = v1.train.GradientDescentOptimizer(lr)
        train_op = tf.group(opt.minimize(loss), step.assign(step + 1))  # its own increment
        x = features[0] * 0 + tf.cast(step, tf.float32)  # this step's own value
        host = (host_fn_writing_to(model_dir), [tf.reshape(step, [1]), tf.reshape(x, [1])])
        return v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op, host_call=host)

    def input_fn(params):
        data = tf.data.Dataset.from_tensor_slices(np.arange(40, dtype="float32"))
        return data.repeat().batch(params["batch_size"])

    resolver = tf.distribute.cluster_resolver.TPUClusterResolver("")
    config = v1.estimator.tpu.RunConfig(
        cluster=resolver, model_dir=model_dir, save_summary_steps=5, save_checkpoints_steps=10,
        tpu_config=v1.estimator.tpu.TPUConfig(iterations_per_loop=iterations))
    est = v1.estimator.tpu.TPUEstimator(
        model_fn, config=config, use_tpu=True, train_batch_size=2, eval_batch_size=2)
    est.train(input_fn, max_steps=12)
    train_calls = len(calls)
    est.evaluate(lambda params: tf.data.Dataset.from_tensor_slices(
        np.arange(40, dtype="float32")).batch(params["batch_size"]), steps=3)
    import glob

    def events(folder):
        found = []
        for path in glob.glob(folder + "/events.out.tfevents*"):
            for e in v1.train.summary_iterator(path):
                for v in e.summary.value:
                    if v.tag.startswith("x_"):
                        tensor = v.HasField("tensor")
                        value = float(tf.make_ndarray(v.tensor)) if tensor else v.simple_value
                        found.append([v.tag, int(e.step), value])
        return sorted(found)

    reader = tf.train.load_checkpoint(model_dir)
    json.dump({"events": events(model_dir), "eval": events(model_dir + "/eval_host"),
               "calls": train_calls, "w": float(reader.get_tensor("w")),
               "master": resolver.master()}, open(out, "w"))
    """
)


def _run(tmp_path, iterations):
    script = tmp_path / "host.py"
    script.write_text(SCRIPT)
    out = tmp_path / f"out{iterations}.json"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, str(script), str(tmp_path / f"m{iterations}"), str(iterations), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(out.read_text()), proc.stderr


@pytest.mark.slow
def test_host_call_runs_once_per_step_with_each_steps_values(tmp_path):
    one, log = _run(tmp_path, 1)
    loop, _ = _run(tmp_path, 4)
    # TF2 summaries: one event per step 0..11, the value that step computed.
    want = [["x_v2", s, float(s)] for s in range(12)]
    assert [e for e in one["events"] if e[0] == "x_v2"] == want
    assert [e for e in loop["events"] if e[0] == "x_v2"] == want
    # v1 summaries made by the host function: every save_summary_steps (5) steps.
    v1_steps = [e[1] for e in loop["events"] if e[0] == "x_v1"]
    assert v1_steps == [0, 5, 10] == [e[1] for e in one["events"] if e[0] == "x_v1"]
    assert one["calls"] == loop["calls"] == 1
    # EVAL: once per evaluation step, with that step's values.
    assert one["eval"] == loop["eval"] == [["x_v2", 12, 0.0], ["x_v2", 12, 2.0], ["x_v2", 12, 4.0]]
    # the model's own increment is ordered after the learning rate's read of the step:
    # lr at step s is 0.1 * (s + 1) in both, so the weights are equal.
    assert one["w"] == loop["w"]
    assert one["master"] == ""
    assert log.count("resolving to the local machine") == 1


def test_drift_message_names_the_cause_it_found():
    from tfport.estimator._engine.building import replicas

    bare = replicas.drift_message("w", 0.5, ["LAMB"])
    assert "LAMB applies gradients itself" in bare and "not all-reduced" in bare
    assert bare.endswith("optimizers=['LAMB']")
    wrapped = replicas.drift_message("w", 0.5, ["LAMB", "CrossShardOptimizer"])
    # wrapped already: the message never suggests wrapping it
    assert "CrossShardOptimizer" not in wrapped.split("Received:")[0]
    assert "something else" in wrapped and "LAMB applies" not in wrapped
    assert "something else" in replicas.drift_message("w", 0.5, [])
