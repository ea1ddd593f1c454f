"""Two worker processes on 127.0.0.1 (TF_CONFIG, multi-worker) train like one process."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import socket
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import tensorflow as tf

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import models  # noqa: E402

SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import tensorflow as tf
    import models
    est = tf.estimator.Estimator(models.model_fn, params={{"lr": 0.1}},
                                 config=tf.estimator.RunConfig(model_dir=sys.argv[1],
                                                               save_checkpoints_steps=100))
    est.train(models.static_input_fn, max_steps=21)
    print("worker done", est.config.task_id)
    """
)


def _free_ports(n: int) -> list[int]:
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _two_workers(args: list[str]) -> list[str]:
    """`tfport run ARGS` as workers 0 and 1 of a local cluster; their stdouts (both exit 0)."""
    cluster = {"worker": [f"127.0.0.1:{p}" for p in _free_ports(2)]}
    procs = []
    for index in range(2):
        config = {"cluster": cluster, "task": {"type": "worker", "index": index}}
        procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "tfport", "run", *args],
                env=dict(os.environ, TF_CONFIG=json.dumps(config)),
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
        )
    try:
        outs = [p.communicate(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, (_, err) in zip(procs, outs):
        assert p.returncode == 0, err[-3000:]
    return [out for out, _ in outs]


@pytest.mark.slow
def test_two_workers_train_like_one_process(tmp_path):
    single = models.estimator(tmp_path / "single", save_checkpoints_steps=100)
    single.train(models.static_input_fn, max_steps=1)
    shutil.copytree(tmp_path / "single", tmp_path / "multi")
    single.train(models.static_input_fn, max_steps=21)

    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(tests=str(pathlib.Path(__file__).parent)))
    cmd = ["--strategy", "multi-worker", str(script), str(tmp_path / "multi")]
    for out in _two_workers(cmd):
        assert "worker done" in out
    multi = models.estimator(tmp_path / "multi")
    assert multi.get_variable_value("global_step") == 21
    for name in ("logits/kernel", "logits/bias"):
        np.testing.assert_allclose(
            multi.get_variable_value(name), single.get_variable_value(name), atol=1e-4, err_msg=name
        )


PS_SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import tensorflow as tf
    import models
    est = tf.estimator.Estimator(models.model_fn, params={{"lr": 0.1}},
                                 config=tf.estimator.RunConfig(model_dir=sys.argv[1],
                                                               tf_random_seed=1,
                                                               save_checkpoints_steps=10))
    est.train(models.static_input_fn, max_steps=30)
    print("worker done", est.config.task_type, est.config.task_id)
    """
)


@pytest.mark.slow
def test_parameter_server_cluster_trains_with_variables_on_ps(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(PS_SCRIPT.format(tests=str(pathlib.Path(__file__).parent)))
    ports = _free_ports(3)
    cluster = {"ps": [f"127.0.0.1:{ports[0]}"], "worker": [f"127.0.0.1:{p}" for p in ports[1:]]}
    procs = {}
    for kind, index in (("ps", 0), ("worker", 0), ("worker", 1)):
        env = dict(
            os.environ,
            TF_CONFIG=json.dumps({"cluster": cluster, "task": {"type": kind, "index": index}}),
        )
        procs[kind, index] = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "tfport",
                "run",
                "--strategy",
                "parameter-server",
                str(script),
                str(tmp_path / "m"),
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    try:
        outs = {key: procs[key].communicate(timeout=300) for key in (("worker", 0), ("worker", 1))}
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
        procs["ps", 0].communicate()
    for key, (out, err) in outs.items():
        assert procs[key].returncode == 0, err[-3000:]
        assert f"worker done worker {key[1]}" in out
    trained = models.estimator(tmp_path / "m")
    # The same seed gives one process's initial weights (the replica threads that build the
    # model draw Keras's seeds from the seeded generator too).
    one = models.estimator(tmp_path / "one")
    one.train(models.static_input_fn, max_steps=10)
    data = models.input_fn(repeat=False)
    for name in ("logits/kernel", "logits/bias"):
        np.testing.assert_array_equal(
            tf.train.load_variable(str(tmp_path / "m" / "model.ckpt-0"), name),
            tf.train.load_variable(str(tmp_path / "one" / "model.ckpt-0"), name),
        )
    # Asynchronous steps from two workers: past where 10 synchronous steps get.
    end = trained.evaluate(data)
    assert end["global_step"] >= 30
    assert end["loss"] < one.evaluate(data)["loss"]


REPLICAS = pathlib.Path(__file__).parents[1] / "replicas" / "scripts" / "replicas.py"


def _tfport_run(strategy: str, job: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "tfport", "run", "--strategy", strategy, str(REPLICAS), job]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.slow
def test_two_workers_train_sparse_columns_like_one_process(tmp_path):
    """linear_ftrl (crossed, bucketized, vocabulary columns; Ftrl) on 2 workers = 1 process."""
    one, two = tmp_path / "one", tmp_path / "two"
    out, err = _tfport_run("default", f"linear_ftrl_mw,{one},{one}.json").communicate(timeout=300)
    assert (one.parent / "one.json").exists(), err[-3000:]
    two.mkdir()
    for f in one.glob("model.ckpt-0.*"):
        shutil.copy(f, two)
    (two / "checkpoint").write_text('model_checkpoint_path: "model.ckpt-0"\n')
    _two_workers(["--strategy", "multi-worker", str(REPLICAS), f"linear_ftrl_mw,{two},{two}.json"])
    a = json.loads((tmp_path / "one.json").read_text())
    b = json.loads((tmp_path / "two.json").read_text())
    assert a["metrics"]["global_step"] == b["metrics"]["global_step"] == 12
    assert sorted(a["variables"]) == sorted(b["variables"])
    for name, value in a["variables"].items():
        np.testing.assert_allclose(b["variables"][name], value, atol=1e-4, err_msg=name)
    for key, value in a["metrics"].items():
        assert abs(b["metrics"][key] - value) < 1e-4, key


def _checkpoint_at(model_dir: pathlib.Path, step: int) -> None:
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    v1 = tf.compat.v1
    with tf.Graph().as_default():
        global_step = v1.Variable(step, dtype=tf.int64, name="global_step")
        with v1.Session() as session:
            session.run(global_step.initializer)
            v1.train.Saver().save(session, str(model_dir / "model.ckpt"), global_step=step)


def test_a_worker_waits_for_the_chiefs_final_checkpoint(tmp_path, caplog):
    """A non-chief worker's train() returns once the chief's checkpoint of its last step exists."""
    import logging
    import threading

    from tfport.estimator._engine.running.sessions import ChiefCheckpointWait

    _checkpoint_at(tmp_path, 0)
    waiter = ChiefCheckpointWait(str(tmp_path), timeout=60, poll_secs=0.05)
    waiter.step = 12
    chief = threading.Timer(0.5, _checkpoint_at, args=(tmp_path, 12))
    chief.start()
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        waiter.wait()
    chief.join()
    assert (tmp_path / "model.ckpt-12.index").exists()
    assert any(
        "Waiting for the chief's checkpoint of step 12" in r.getMessage() for r in caplog.records
    )

    late = ChiefCheckpointWait(str(tmp_path), timeout=0.2, poll_secs=0.05)
    late.step = 20
    with caplog.at_level(logging.WARNING, logger="tensorflow"):
        late.wait()
    assert any("no checkpoint of step 20" in r.getMessage() for r in caplog.records)
