"""Issue 27d: `params['context']` of a TPUEstimator run under `tfport run` on one device and
on mirrored:2, where legacy passes it (the TPU internals themselves:
tests/unit/estimator/_tpu/test_tpu_internals.py)."""

from __future__ import annotations

import json

import pytest

from tfport.estimator._tpu.tpu_context import HOST_DEVICE

CONTEXT_SCRIPT = """
import json, sys
import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
model_dir, out = sys.argv[1], sys.argv[2]
seen = []


def input_fn(params):  # the published imagenet_input.py pattern
    batch_size = params["batch_size"]
    if "context" in params:
        host, index, count, replicas = params["context"].current_input_fn_deployment()
        num_hosts = params["context"].num_hosts
        seen.append({"where": "input_fn", "deployment": [host, index, count, replicas],
                     "num_hosts": num_hosts, "current_host": params["context"].current_host,
                     "per_host": params["context"].num_of_replicas_per_host,
                     "batch_size": batch_size})
    else:
        index, num_hosts = 0, 1
        seen.append({"where": "input_fn", "context": None, "batch_size": batch_size})
    rows = np.arange(64, dtype="float32").reshape(32, 2) / 64.0
    data = tf.data.Dataset.from_tensor_slices((rows, rows.sum(1, keepdims=True)))
    return data.shard(num_hosts, index).repeat().batch(batch_size, drop_remainder=True)


def model_fn(features, labels, mode, params):
    context = params.get("context")
    seen.append({"where": "model_fn", "mode": mode, "use_tpu": params["use_tpu"],
                 "replicas": None if context is None else context.num_replicas,
                 "device_assignment": None if context is None else context.device_assignment})
    pred = v1.layers.dense(features, 1, kernel_initializer=v1.ones_initializer())
    if mode == "infer":
        return v1.estimator.tpu.TPUEstimatorSpec(mode, predictions={"y": pred})
    loss = v1.losses.mean_squared_error(labels, pred)
    opt = v1.estimator.tpu.CrossShardOptimizer(v1.train.GradientDescentOptimizer(0.1))
    train_op = opt.minimize(loss, v1.train.get_global_step())
    return v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)


losses = {}
for use_tpu in (True, False):
    config = v1.estimator.tpu.RunConfig(
        model_dir=f"{model_dir}/{use_tpu}", tpu_config=v1.estimator.tpu.TPUConfig(2))
    est = v1.estimator.tpu.TPUEstimator(
        model_fn, config=config, use_tpu=use_tpu, eval_on_tpu=False,
        train_batch_size=8, eval_batch_size=8)
    est.train(input_fn, max_steps=2)
    losses[str(use_tpu)] = float(est.evaluate(input_fn, steps=1)["loss"])
    if use_tpu:
        def serving():
            x = v1.placeholder(tf.float32, [None, 2])
            return v1.estimator.export.TensorServingInputReceiver(x, {"x": x})
        est.export_saved_model(f"{model_dir}/export", serving)
with open(out, "w") as f:
    json.dump({"seen": seen, "losses": losses}, f)
"""


@pytest.mark.slow
@pytest.mark.parametrize("replicas", [1, 2], ids=["one_device", "mirrored2"])
def test_tpu_estimator_passes_params_context_where_legacy_does(tmp_path, replicas):
    import os
    import subprocess
    import sys

    script = tmp_path / "imagenet_style.py"
    script.write_text(CONTEXT_SCRIPT)
    out = tmp_path / "seen.json"
    strategy = ["--strategy", f"mirrored:{replicas}"] if replicas > 1 else []
    cmd = [sys.executable, "-m", "tfport", "run", *strategy, str(script), str(tmp_path), str(out)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    seen = result["seen"]
    tpu_train_input = {
        "where": "input_fn",
        "deployment": [HOST_DEVICE, 0, 1, replicas],  # one host feeds every replica
        "num_hosts": 1,
        "current_host": 0,
        "per_host": replicas,
        "batch_size": 8,  # the global batch: tfport splits it among the replicas
    }
    no_context = {"where": "input_fn", "context": None, "batch_size": 8}
    inputs = [s for s in seen if s["where"] == "input_fn"]
    models = [s for s in seen if s["where"] == "model_fn"]
    # use_tpu=True: train on TPU (context), eval with eval_on_tpu=False on CPU (none)
    assert inputs == [tpu_train_input, no_context, no_context, no_context]
    on_tpu = [m for m in models if m["use_tpu"]]
    assert on_tpu and all(m["mode"] == "train" and m["replicas"] == replicas for m in on_tpu)
    assert all(m["device_assignment"] is None for m in models)
    on_cpu = [m for m in models if not m["use_tpu"]]  # eval, export, the use_tpu=False run
    assert all(m["replicas"] is None for m in on_cpu)
    assert [m["mode"] for m in models].index("infer") < len(models) - 2  # export: no context
    # the context-reading input_fn feeds the same rows as without a context
    assert result["losses"]["True"] == pytest.approx(result["losses"]["False"], rel=1e-6)
