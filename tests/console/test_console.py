"""Issue 16: the legacy console, the user's own output, legacy-accepting checks, the TF2
guide's model_fn and reproducible seeded runs, each run unmodified under `tfport run`."""

from __future__ import annotations

import importlib.util
import json
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ATOL = 1e-5


def _tfport_run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("TF_CPP_MIN_LOG_LEVEL", None)  # tfport's own default, as a user gets it
    cmd = [sys.executable, "-m", "tfport", "run", *args]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return proc


def _guide_module(legacy_dir: pathlib.Path):
    spec = importlib.util.spec_from_file_location(
        "guide_cases", legacy_dir / "scripts/guide_cases.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_console_prints_the_legacy_info_kinds_and_all_user_lines(legacy_dir, goldens, tmp_path):
    guide = _guide_module(legacy_dir)
    proc = _tfport_run(str(legacy_dir / "scripts/guide_cases.py"), "--console", str(tmp_path / "m"))
    got = guide.console_kinds(proc.stderr + proc.stdout)
    want = json.loads((goldens / "guide_console/kinds.json").read_text())
    assert got["info"] == want["info"]
    assert sorted(got["user"]) == sorted(want["user"])
    assert len(want["info"]) > 40  # the golden holds the whole training/eval/predict console
    assert "tfport: step" not in proc.stderr  # no progress line in non-terminal output


def test_kinds_strip_values_paths_and_times(legacy_dir):
    guide = _guide_module(legacy_dir)
    assert guide.kind("loss = 0.48391408, step = 10 (0.085 sec)") == "loss = N.N, step = N"
    assert guide.kind("Saving checkpoints for 20 into /x/model.ckpt.") == "Saving checkpoints for N"
    assert guide.kind("Starting evaluation at 2026-12-02T17:23:24") == "Starting evaluation"


@pytest.mark.slow
def test_linear_tutorial_with_numeric_crossed_key_matches_legacy(goldens, legacy_dir, tmp_path):
    case = "guide_linear_census"
    model_dir = compare.step0_copy(goldens / case, tmp_path)
    out = compare.run_case(legacy_dir, case, model_dir, tmp_path / "out.json")
    want = json.loads((goldens / case / "expected.json").read_text())
    assert out["variables"] == want["variables"]
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= ATOL
    assert compare.excess(out["predictions"], want["predictions"]) <= ATOL
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"),
        str(goldens / case / "model_dir/model.ckpt-40"),
        ATOL,
    )


@pytest.mark.slow
def test_seeded_runs_are_identical_and_the_tf2_guide_model_fn_trains(tmp_path):
    script = str(HERE / "scripts/seeded_guide.py")
    outs = []
    for run in ("a", "b"):
        _tfport_run(script, str(tmp_path / run))
        outs.append(json.loads((tmp_path / run / "out.json").read_text()))
    a, b = outs
    for name in ("tf2_guide", "v1_layers", "keras_layers", "canned_dnn"):
        assert a[name]["global_step"] == 10.0
        for step in (0, 5, 10):
            got = compare.read_checkpoint(str(tmp_path / "a" / name / f"model.ckpt-{step}"))
            want = compare.read_checkpoint(str(tmp_path / "b" / name / f"model.ckpt-{step}"))
            assert sorted(got) == sorted(want)
            assert max(float(np.max(np.abs(got[k] - want[k]))) for k in got) == 0.0, (name, step)
        assert a[name] == b[name]
    assert "Accuracy" in a["tf2_guide"]  # the Keras metric object as eval_metric_ops
    # The user's global generators were never reseeded: two runs draw differently.
    assert a["python_random"] != b["python_random"]
    assert a["numpy_random"] != b["numpy_random"]
