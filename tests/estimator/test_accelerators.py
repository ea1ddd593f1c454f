"""One model_fn on CPU, logical multi-device Mirrored, TPUEstimator on CPU, steps per loop."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
sys.path.insert(0, str(pathlib.Path(__file__).parent))
import compare  # noqa: E402
import models  # noqa: E402


def _expected(goldens, case):
    return json.loads((goldens / case / "expected.json").read_text())


@pytest.mark.slow
def test_golden_tpu_estimator_on_cpu(goldens, legacy_dir, tmp_path):
    case = "tpu_estimator_on_cpu"
    model_dir = compare.step0_copy(goldens / case, tmp_path / "case")
    out = compare.run_case(legacy_dir, case, model_dir, tmp_path / "out.json")
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / case / "model_dir" / "model.ckpt-40"), 1e-5
    )
    want = _expected(goldens, case)
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= 1e-5
    assert compare.excess(out["predictions"], want["predictions"]) <= 1e-5
    assert set(want["summary_tags"]["."]) <= compare.summary_tags(model_dir)


@pytest.mark.slow
def test_custom_v1_adam_on_mirrored_2_matches_single_device_golden(goldens, legacy_dir, tmp_path):
    case = "custom_v1_adam"
    model_dir = compare.step0_copy(goldens / case, tmp_path / "case")
    out = compare.run_case(
        legacy_dir, case, model_dir, tmp_path / "out.json", "--strategy", "mirrored:2"
    )
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / case / "model_dir" / "model.ckpt-40"), 1e-4
    )
    want = _expected(goldens, case)
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= 1e-5
    assert compare.excess(out["predictions"], want["predictions"]) <= 1e-5


DRIVER = textwrap.dedent(
    """
    import sys
    import tensorflow as tf
    sys.path.insert(0, {scripts!r})
    import estimator_cases as cases

    base = tf.compat.v1.estimator.tpu.TPUEstimator

    class ForcedTPU(base):  # the same TPU model_fn, params["use_tpu"] forced true
        def __init__(self, *args, **kwargs):
            kwargs["use_tpu"] = True
            super().__init__(*args, **kwargs)

    tf.compat.v1.estimator.tpu.TPUEstimator = ForcedTPU
    cases.main("tpu_estimator_on_cpu", sys.argv[1], sys.argv[2])
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("strategy", [[], ["--strategy", "mirrored:2"]], ids=["cpu", "mirrored2"])
def test_cross_shard_optimizer_model_fn_trains_without_tpu(goldens, legacy_dir, tmp_path, strategy):
    case = "tpu_estimator_on_cpu"
    model_dir = compare.step0_copy(goldens / case, tmp_path / "case")
    driver = tmp_path / "driver.py"
    driver.write_text(DRIVER.format(scripts=str(compare.script(legacy_dir, case).parent)))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "tfport",
            "run",
            *strategy,
            str(driver),
            str(model_dir),
            str(tmp_path / "out.json"),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / case / "model_dir" / "model.ckpt-40"), 1e-4
    )


def test_iterations_per_loop_gives_the_same_variables(tmp_path):
    start = models.estimator(tmp_path / "one", save_checkpoints_steps=100)
    start.train(models.input_fn(), max_steps=3)
    shutil.copytree(tmp_path / "one", tmp_path / "ten")
    one = models.estimator(tmp_path / "one", save_checkpoints_steps=20)
    ten = models.estimator(tmp_path / "ten", save_checkpoints_steps=20, iterations_per_loop=10)
    one.train(models.input_fn(), max_steps=45)
    ten.train(models.input_fn(), max_steps=45)
    assert ten.get_variable_value("global_step") == 45
    for name in one.get_variable_names():
        np.testing.assert_allclose(
            ten.get_variable_value(name), one.get_variable_value(name), atol=1e-6, err_msg=name
        )
    steps = sorted(
        int(p.name.split("-")[1].split(".")[0])
        for p in (tmp_path / "ten").glob("model.ckpt-*.index")
    )
    assert steps[-1] == 45 and all(s % 10 in (0, 3, 5) for s in steps)


def _tfport(*args: str, env: dict | None = None, cwd: pathlib.Path | None = None):
    return subprocess.run(
        [sys.executable, "-m", "tfport", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {tests!r})
    import tensorflow as tf
    import models
    est = tf.estimator.Estimator(models.model_fn, params={{"lr": 0.1}},
                                 config=tf.estimator.RunConfig(model_dir=sys.argv[1]))
    est.train(models.input_fn(batch=int(sys.argv[2])), max_steps=2)
    print("trained")
    """
)


def _script(tmp_path):
    path = tmp_path / "train.py"
    path.write_text(SCRIPT.format(tests=str(pathlib.Path(__file__).parent)))
    return path


@pytest.mark.slow
def test_batch_not_divisible_by_replicas_is_exit_2(tmp_path):
    # a static global batch of 33 (drop_remainder=True) cannot be split over 2 replicas
    models_dir = tmp_path / "fixed.py"
    models_dir.write_text(
        SCRIPT.replace(
            "models.input_fn(batch=int(sys.argv[2]))",
            "lambda: models.input_fn(batch=int(sys.argv[2]))()"
            ".unbatch().batch(int(sys.argv[2]), "
            "drop_remainder=True)",
        ).format(tests=str(pathlib.Path(__file__).parent))
    )
    proc = _tfport("run", "--strategy", "mirrored:2", str(models_dir), str(tmp_path / "m2"), "33")
    assert proc.returncode == 2, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert "not divisible" in last and "Received:" in last and "Traceback" not in proc.stderr


@pytest.mark.slow
def test_a_seeded_model_starts_from_one_devices_weights_on_mirrored_2(tmp_path):
    # Replicas build the model in threads of their own; unseeded Keras initializers there
    # drew their seeds from the global `random`, so each run started somewhere else.
    seeded = (
        _script(tmp_path)
        .read_text()
        .replace("model_dir=sys.argv[1]", "model_dir=sys.argv[1], tf_random_seed=1")
    )
    (tmp_path / "seeded.py").write_text(seeded)
    proc = _tfport(
        "run", "--strategy", "mirrored:2", str(tmp_path / "seeded.py"), str(tmp_path / "m2"), "32"
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    one = models.estimator(tmp_path / "one", save_checkpoints_steps=100)
    one.train(models.input_fn(), max_steps=1)
    got = compare.read_checkpoint(str(tmp_path / "m2" / "model.ckpt-0"))
    want = compare.read_checkpoint(str(tmp_path / "one" / "model.ckpt-0"))
    for name in ("logits/kernel", "logits/bias"):
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


@pytest.mark.slow
def test_tpu_where_none_is_refused_before_the_script_runs(tmp_path):
    proc = _tfport("run", "--strategy", "tpu", str(_script(tmp_path)), str(tmp_path / "m"), "32")
    assert proc.returncode == 2, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert "No TPU" in last and "strategy='tpu'" in last and "Traceback" not in proc.stderr
    assert not (tmp_path / "m").exists()  # refused while parsing: nothing ran


def test_malformed_tf_config_is_exit_2(tmp_path):
    proc = _tfport(
        "run",
        str(_script(tmp_path)),
        str(tmp_path / "m"),
        "32",
        env={"TF_CONFIG": '{"cluster": {"worker": ["a:1"]}, "task": {"type": "ps"}}'},
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("tfport: error: TF_CONFIG") and "Received:" in last


def test_unknown_strategy_spec_is_exit_2(tmp_path):
    proc = _tfport("run", "--strategy", "mirrored:x", str(_script(tmp_path)), "m", "32")
    assert proc.returncode == 2 and "Unknown strategy spec" in proc.stderr


def test_to_accelerator_returns_a_copy_on_the_strategy(tmp_path):
    import tfport

    est = models.estimator(tmp_path)
    moved = tfport.to_accelerator(est, "default")
    assert moved is not est and moved.model_dir == est.model_dir
    assert moved.config.train_distribute is None


@pytest.mark.slow
@pytest.mark.parametrize("case", ["canned_dnn", "canned_linear", "canned_dnn_v2"])
def test_canned_legacy_checkpoint_resumes_on_mirrored_2_with_single_device_names(
    goldens, legacy_dir, tmp_path, case
):
    """Under a strategy TF names slots differently (and drops partitioners); tfport keeps
    reading and writing the single-device names, so legacy checkpoints resume."""
    model_dir = compare.step0_copy(goldens / case, tmp_path / "case")
    out = compare.run_case(
        legacy_dir, case, model_dir, tmp_path / "out.json", "--strategy", "mirrored:2"
    )
    got = compare.read_checkpoint(str(model_dir / "model.ckpt-40"))
    want = compare.read_checkpoint(str(goldens / case / "model_dir" / "model.ckpt-40"))
    assert sorted(got) == sorted(want)
    for name, value in want.items():
        if value.dtype.kind == "f":  # all-reduce sums in another order: float32 rounding
            np.testing.assert_allclose(got[name], value, rtol=1e-6, atol=1e-4, err_msg=name)
    expected = _expected(goldens, case)
    assert compare.excess(out["eval_metrics"], expected["eval_metrics"]) <= 1e-4
    assert compare.excess(out["predictions"], expected["predictions"]) <= 1e-5
