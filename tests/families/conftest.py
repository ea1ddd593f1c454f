"""Runs of the families goldens (legacy/scripts/families_cases.py) under `tfport run`,
several cases per subprocess, each from the legacy step-0 checkpoint."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

HERE = pathlib.Path(__file__).parent
ATOL = 1e-5


def tfport_run(*args: str, timeout: int = 600) -> subprocess.CompletedProcess:
    """`python -m tfport run ARGS` with TensorFlow's C++ logs quiet."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)


def run_from_step0(goldens: pathlib.Path, root: pathlib.Path, cases: tuple, *extra: str) -> dict:
    """case -> (model_dir, out dict): CASES run in one `tfport run [extra]` from step 0."""
    jobs, dirs = [], {}
    for case in cases:
        model_dir = compare.step0_copy(goldens / case, root / case)
        dirs[case] = model_dir
        jobs.append(f"{case},{model_dir},{root / case / 'out.json'}")
    proc = tfport_run(*extra, str(HERE / "run_cases.py"), *jobs)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {c: (dirs[c], json.loads((root / c / "out.json").read_text())) for c in cases}


@pytest.fixture(scope="session")
def families_runs(goldens, tmp_path_factory):
    """case -> (model_dir, out) for every families case (one subprocess in all)."""
    cases = (
        "families_kmeans",
        "families_kmeans_pp",
        "families_logit_fns",
        "families_rnn_simple_rnn",
        "families_rnn_lstm",
        "families_rnn_gru",
    )
    return run_from_step0(goldens, tmp_path_factory.mktemp("families"), cases)
