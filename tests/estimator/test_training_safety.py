"""One training per model_dir, failed checkpoint saves, SIGTERM with steps per loop."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest
import tensorflow as tf

from tfport._common.errors import TfportOperationError

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import models  # noqa: E402

LOCK = ".tfport-train.lock"
SLOW_SCRIPT = textwrap.dedent(
    """
    import pathlib, sys, time
    sys.path.insert(0, {models_dir!r})
    import tensorflow as tf
    import models

    steps_file = pathlib.Path(sys.argv[2])

    class Record(tf.compat.v1.train.SessionRunHook):
        def begin(self):
            self.step = tf.compat.v1.train.get_global_step()
        def after_run(self, ctx, values):
            steps_file.write_text(str(ctx.session.run(self.step)))
            time.sleep(0.05)

    est = models.estimator(sys.argv[1], save_checkpoints_steps=10**6,
                           iterations_per_loop=int(sys.argv[3]))
    est.train(models.input_fn(), steps=100000, hooks=[Record()])
    """
)


def _slow_training(tmp_path: pathlib.Path, loop: int) -> subprocess.Popen:
    script = tmp_path / "slow.py"
    script.write_text(SLOW_SCRIPT.format(models_dir=str(pathlib.Path(__file__).parent)))
    cmd = [sys.executable, "-m", "tfport", "run", str(script), str(tmp_path / "m"),
           str(tmp_path / "steps"), str(loop)]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(path: pathlib.Path, proc: subprocess.Popen) -> None:
    deadline = time.time() + 180
    while not path.exists():
        assert proc.poll() is None, proc.stderr.read()[-3000:]
        assert time.time() < deadline, "training did not start"
        time.sleep(0.2)


@pytest.mark.slow
def test_a_second_training_on_one_model_dir_is_refused(tmp_path):
    first = _slow_training(tmp_path, 1)
    try:
        _wait_for(tmp_path / "steps", first)
        assert (tmp_path / "m" / LOCK).exists()
        script = tmp_path / "second.py"
        script.write_text(
            f"import sys; sys.path.insert(0, {str(pathlib.Path(__file__).parent)!r})\n"
            "import models\n"
            f"models.estimator({str(tmp_path / 'm')!r}).train(models.input_fn(), steps=5)\n"
        )
        cmd = [sys.executable, "-m", "tfport", "run", str(script)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 1
        last = proc.stderr.strip().splitlines()[-1]
        assert f"pid {first.pid}" in last and "Another training runs" in last
        assert "Traceback" not in proc.stderr
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=120)
    assert not (tmp_path / "m" / LOCK).exists()  # released on the way out


def test_a_stale_lock_of_a_dead_process_is_removed(tmp_path, caplog):
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    holder = {"pid": dead.pid, "host": socket.gethostname(), "started": 0}
    (model_dir / LOCK).write_text(json.dumps(holder))
    with caplog.at_level("WARNING", logger="tfport"):
        models.estimator(model_dir).train(models.input_fn(), steps=3)
    assert "stale training lock" in caplog.text
    assert not (model_dir / LOCK).exists()
    assert tf.train.load_variable(str(model_dir), "global_step") == 3


def test_a_lock_of_another_host_is_refused_unless_forced(tmp_path, monkeypatch):
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    holder = {"pid": 1, "host": "elsewhere.example", "started": 0}
    (model_dir / LOCK).write_text(json.dumps(holder))
    with pytest.raises(TfportOperationError, match="pid 1 on elsewhere.example"):
        models.estimator(model_dir).train(models.input_fn(), steps=3)
    monkeypatch.setenv("TFPORT_FORCE_LOCK", "1")
    models.estimator(model_dir).train(models.input_fn(), steps=3)
    assert tf.train.load_variable(str(model_dir), "global_step") == 3


def test_a_failed_save_keeps_the_last_complete_checkpoint_and_resumes(tmp_path, monkeypatch):
    model_dir = tmp_path / "m"
    saver_class = tf.compat.v1.train.Saver
    original = saver_class.save

    def failing_save(self, sess, save_path, global_step=None, **kwargs):
        step = int(sess.run(global_step) if hasattr(global_step, "op") else global_step)
        if step == 20:
            pathlib.Path(f"{save_path}-{step}.data-00000-of-00001").write_bytes(b"partial")
            raise tf.errors.ResourceExhaustedError(None, None, "No space left on device")
        return original(self, sess, save_path, global_step=global_step, **kwargs)

    monkeypatch.setattr(saver_class, "save", failing_save)
    est = models.estimator(model_dir, save_checkpoints_steps=10)
    with pytest.raises(TfportOperationError) as info:
        est.train(models.input_fn(), max_steps=30)
    text = str(info.value)
    assert "step 20" in text and "No space left on device" in text and "model.ckpt-10" in text
    assert len(text.splitlines()) == 1
    assert tf.train.latest_checkpoint(str(model_dir)).endswith("model.ckpt-10")
    assert not list(model_dir.glob("model.ckpt-20*"))
    assert not (model_dir / LOCK).exists()
    monkeypatch.setattr(saver_class, "save", original)
    est.train(models.input_fn(), max_steps=30)
    assert tf.train.load_variable(str(model_dir), "global_step") == 30


@pytest.mark.slow
def test_sigterm_with_steps_per_loop_saves_the_last_loop_boundary(tmp_path):
    proc = _slow_training(tmp_path, 5)
    _wait_for(tmp_path / "steps", proc)
    time.sleep(1.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=180)
    assert proc.returncode == 128 + signal.SIGTERM, err[-3000:]
    completed = int((tmp_path / "steps").read_text())
    saved = int(tf.train.load_variable(str(tmp_path / "m"), "global_step"))
    assert saved == completed and saved % 5 == 0 and saved > 0
    assert tf.train.latest_checkpoint(str(tmp_path / "m")).endswith(f"model.ckpt-{saved}")
    assert not (tmp_path / "m" / LOCK).exists()
    os.environ.pop("TFPORT_FORCE_LOCK", None)
