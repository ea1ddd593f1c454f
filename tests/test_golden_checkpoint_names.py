"""Issue 27: every golden's tfport checkpoint holds exactly the legacy variable names.

For each golden Estimator case (legacy/goldens/<case>/model_dir), every checkpoint tfport
wrote this session into a copy of that model_dir (`compare.step_copy`: the golden tests
on one device, mirrored:2, loops, ...) must hold exactly the names of the legacy step-40
checkpoint. This file runs after the folders of tests (pytest collects in name order), so in
the full suite it mostly reads what the golden tests left; a case nobody ran (or this file
alone) is run here from its step-0 copy, one process per legacy script.
"""

from __future__ import annotations

import collections
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "legacy"))
import compare  # noqa: E402

LEGACY = pathlib.Path(__file__).parents[1] / "legacy"
GOLDENS = LEGACY / "goldens"
# the generator's Estimator cases (trained to step 40; artifacts write their own folders)
CASES = sorted(
    case
    for case in compare.script_cases(LEGACY)
    if (GOLDENS / case / "model_dir" / "model.ckpt-40.index").is_file()
)
RUNNER = pathlib.Path(__file__).parent / "legacy" / "run_scripts.py"


def _names(prefix: str) -> set[str]:
    import tensorflow as tf

    return {n for n, _ in tf.train.list_variables(prefix)} - {"_CHECKPOINTABLE_OBJECT_GRAPH"}


def _written(model_dir: pathlib.Path, copied: int) -> list[str]:
    """The checkpoints tfport wrote into `model_dir` (not the copied one)."""
    steps = {int(p.name.split("-")[1].split(".")[0]) for p in model_dir.glob("model.ckpt-*.index")}
    return [str(model_dir / f"model.ckpt-{s}") for s in sorted(steps - {copied})]


def _checkpoints(case: str) -> list[str]:
    copies = compare.COPIES.get(case, [])
    return [c for model_dir, step in copies for c in _written(model_dir, step)]


@pytest.fixture(scope="module")
def runs_of_the_rest(legacy_dir, tmp_path_factory):
    """Runs, from step 0 on one device, every case no earlier test of this session ran."""
    missing = [case for case in CASES if not _checkpoints(case)]
    jobs: dict = collections.defaultdict(list)
    for case in missing:
        script = compare.script(legacy_dir, case)
        root = tmp_path_factory.mktemp(case)
        model_dir = compare.step0_copy(GOLDENS / case, root)
        key = (script, case if "flags.DEFINE" in script.read_text() else "")  # absl: alone
        jobs[key].append(f"{case},{model_dir},{root / 'out.json'}")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    for (script, _), group in sorted(jobs.items()):
        cmd = [sys.executable, "-m", "tfport", "run", str(RUNNER), str(script), *group]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
        assert proc.returncode == 0, proc.stderr[-4000:]
    return missing


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_every_tfport_checkpoint_holds_exactly_the_legacy_names(case, runs_of_the_rest):
    legacy = _names(str(GOLDENS / case / "model_dir" / "model.ckpt-40"))
    checkpoints = _checkpoints(case)
    assert checkpoints, f"{case}: no tfport checkpoint was written"
    for checkpoint in checkpoints:
        got = _names(checkpoint)
        assert got == legacy, (checkpoint, sorted(got - legacy), sorted(legacy - got))
