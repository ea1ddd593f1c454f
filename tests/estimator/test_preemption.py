"""SIGTERM during train saves the current step and exits; a restart resumes there."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time

import pytest

SCRIPT = textwrap.dedent(
    """
    import pathlib, sys, time
    sys.path.insert(0, {models_dir!r})
    import tensorflow as tf
    import models
    import tfport.estimator as tfe

    marker = pathlib.Path(sys.argv[2])

    class Slow(tfe.SessionRunHook):
        def begin(self):
            self.step = tf.compat.v1.train.get_global_step()
        def after_run(self, ctx, values):
            # read after the step's run: a fetch beside the train op may see the step before
            # or after its increment (the marker was one ahead of the checkpoint under load)
            marker.write_text(str(ctx.session.run(self.step)))
            time.sleep(0.02)

    est = models.estimator(sys.argv[1], save_checkpoints_steps=10**6)
    est.train(models.input_fn(), steps=int(sys.argv[3]), hooks=[Slow()])
    print("finished", est.get_variable_value("global_step"))
    """
)


def _run(tmp_path: pathlib.Path, steps: int) -> subprocess.Popen:
    script = tmp_path / "train.py"
    script.write_text(SCRIPT.format(models_dir=str(pathlib.Path(__file__).parent)))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    return subprocess.Popen(
        [sys.executable, str(script), str(tmp_path / "m"), str(tmp_path / "marker"), str(steps)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


@pytest.mark.slow
def test_sigterm_saves_current_step_and_restart_resumes(tmp_path):
    import tensorflow as tf

    proc = _run(tmp_path, 100000)
    marker = tmp_path / "marker"
    deadline = time.time() + 120
    while time.time() < deadline and not (
        marker.exists() and marker.read_text().strip() and int(marker.read_text()) >= 15
    ):
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, err[-3000:]
    assert "Traceback" not in err and "received signal" in err
    last_step = int(marker.read_text())
    latest = tf.train.latest_checkpoint(str(tmp_path / "m"))
    saved = int(tf.train.load_variable(latest, "global_step"))
    assert saved == last_step >= 15
    assert latest.endswith(f"model.ckpt-{saved}")

    proc = _run(tmp_path, 5)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    assert f"finished {saved + 5}" in out


KILL_SCRIPT = SCRIPT.replace("save_checkpoints_steps=10**6", "save_checkpoints_steps=3")


@pytest.mark.slow
def test_kill_9_leaves_the_last_committed_checkpoint_restorable(tmp_path):
    import tensorflow as tf

    script = tmp_path / "train.py"
    script.write_text(KILL_SCRIPT.format(models_dir=str(pathlib.Path(__file__).parent)))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    marker = tmp_path / "marker"
    for kill_after in (7, 13, 20):  # kill -9 at different points of the save cycle
        proc = subprocess.Popen(
            [sys.executable, str(script), str(tmp_path / "m"), str(marker), "100000"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        deadline = time.time() + 120
        start = int(marker.read_text()) if marker.exists() and marker.read_text() else 0
        while time.time() < deadline:
            text = marker.read_text().strip() if marker.exists() else ""
            if text and int(text) >= start + kill_after:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=60)
        latest = tf.train.latest_checkpoint(str(tmp_path / "m"))
        reader = tf.train.load_checkpoint(latest)  # every tensor of it reads back
        for name in reader.get_variable_to_shape_map():
            reader.get_tensor(name)
    proc = _run(tmp_path, 2)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err[-3000:]
    step = int(tf.train.load_variable(latest, "global_step"))
    assert f"finished {step + 2}" in out
