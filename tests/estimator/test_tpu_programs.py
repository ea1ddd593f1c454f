"""TPUEstimator programs as they are written (legacy/scripts/tpu_programs.py), issue 28.

`tpu_cnn_host_call`: a CNN with batch normalization, a TF2-summary host_call every step,
CrossShardOptimizer when use_tpu, an export. `tpu_pretrain_lamb`: a transformer-style
pretraining program with dropout, LAMB's own apply_gradients over tf.gradients, its own
global-step increment and a warm-up learning rate. Goldens: TF 2.15 + estimator 2.15,
use_tpu=False. Each program runs from its golden's step-0 checkpoint with use_tpu False
and True, iterations_per_loop 1 and 100, on one device and on mirrored:2 (a covering
matrix of 8 runs, two `tfport run` processes), then seeded runs from scratch.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

DRIVER = pathlib.Path(__file__).parents[1] / "console" / "guide_driver.py"
SCRIPT = "tpu_programs.py"
CASES = {"cnn": "tpu_cnn_host_call", "pretrain": "tpu_pretrain_lamb"}
# (program, use_tpu, iterations_per_loop, extra flags) per process: every program runs with
# use_tpu False and True, 1 and 100 iterations, on one device and on mirrored:2.
ONE_DEVICE = [
    ("cnn", False, 1, ["--tpu="]),  # TPUClusterResolver('') with use_tpu=False
    ("cnn", True, 100, []),
    ("pretrain", False, 100, []),
    ("pretrain", True, 1, ["--tpu="]),  # ... and with use_tpu=True
]
MIRRORED = [
    ("cnn", True, 1, []),
    ("cnn", False, 100, []),
    ("pretrain", True, 100, []),  # CrossShardOptimizer around LAMB
    ("pretrain", False, 1, []),  # LAMB alone: gradients all-reduced by tfport
]
ATOL = {"one": 1e-5, "mirrored": 1e-4}


def _name(program, use_tpu, iterations):
    return f"{program}_{'tpu' if use_tpu else 'cpu'}_{iterations}"


def _tfport_run(root, jobs, *extra):
    (root / "jobs.json").write_text(json.dumps(jobs))
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", *extra, str(DRIVER)]
    cmd += [str(root / "jobs.json"), str(root / "status.json")]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1200)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads((root / "status.json").read_text()), proc.stdout + proc.stderr


def _job(script, name, model_dir, program, use_tpu, iterations, *flags):
    argv = [f"--program={program}", f"--model_dir={model_dir}"]
    argv += [f"--out_json={model_dir.parent / 'out.json'}", f"--iterations={iterations}"]
    argv += ["--use_tpu" if use_tpu else "--nouse_tpu", *flags]
    return {"name": name, "script": str(script), "argv": argv}


@pytest.fixture(scope="module")
def runs(goldens, legacy_dir, tmp_path_factory):
    """The 8-run matrix from the goldens' step-0 checkpoints; then the seeded runs."""
    script = compare.script(legacy_dir, CASES["cnn"])
    results = {}
    for where, matrix, extra in (
        ("one", ONE_DEVICE, ()),
        ("mirrored", MIRRORED, ("--strategy", "mirrored:2")),
    ):
        root = tmp_path_factory.mktemp(where)
        jobs = []
        for program, use_tpu, iterations, flags in matrix:
            name = _name(program, use_tpu, iterations)
            model_dir = compare.step0_copy(goldens / CASES[program], root / name)
            jobs.append(_job(script, name, model_dir, program, use_tpu, iterations, *flags))
        if where == "one":
            jobs += _seeded_jobs(script, root)
        status, console = _tfport_run(root, jobs, *extra)
        results[where] = (root, status, console)
    return results


def _seeded_jobs(script, root):
    """From scratch, 20 steps: iterations 1 once and 100 three times, per program."""
    jobs = []
    for program in CASES:
        for name, iterations in (("i1", 1), ("i100a", 100), ("i100b", 100), ("i100c", 100)):
            model_dir = root / f"seeded_{program}_{name}" / "model_dir"
            model_dir.parent.mkdir(parents=True)
            flags = ["--train_steps=20"]
            job = _job(script, model_dir.parent.name, model_dir, program, False, iterations, *flags)
            jobs.append(job)
    return jobs


def _out(runs, where, name):
    root, status, _ = runs[where]
    assert status[name]["ok"], status[name]["error"]
    return json.loads((root / name / "out.json").read_text()), root / name / "model_dir"


@pytest.mark.slow
@pytest.mark.parametrize(
    "where,program,use_tpu,iterations",
    [("one", *m[:3]) for m in ONE_DEVICE] + [("mirrored", *m[:3]) for m in MIRRORED],
)
def test_program_matches_legacy(runs, goldens, where, program, use_tpu, iterations):
    out, model_dir = _out(runs, where, _name(program, use_tpu, iterations))
    golden = goldens / CASES[program]
    want = json.loads((golden / "expected.json").read_text())
    atol = ATOL[where]
    assert out["variables"] == want["variables"]
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= atol
    assert compare.excess(out["predictions"], want["predictions"]) <= atol
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(golden / "model_dir" / "model.ckpt-40"), atol
    )
    # host_call: the same events (tag, step) as legacy's, values within 1e-5.
    got, expected = out["host_call_events"], want["host_call_events"]
    assert [e[:2] for e in got] == [e[:2] for e in expected]
    assert compare.excess([e[2] for e in got], [e[2] for e in expected]) <= 1e-5
    if program == "cnn":
        assert len(expected) == 80  # loss and learning_rate at steps 0..39
        export = model_dir.parent / "export" / out["export_dir"]
        assert (export / "saved_model.pb").is_file()


@pytest.mark.slow
def test_empty_tpu_name_resolves_to_the_local_machine(runs):
    _, status, console = runs["one"]
    for name in (_name("cnn", False, 1), _name("pretrain", True, 1)):
        assert status[name]["ok"], status[name]["error"]
    lines = [line for line in console.splitlines() if "resolving to the local machine" in line]
    assert len(lines) == 2, lines  # one INFO line per resolver


@pytest.mark.slow
@pytest.mark.parametrize("program", list(CASES))
def test_seeded_runs_repeat_whatever_the_loop(runs, program):
    root, status, _ = runs["one"]
    dirs = {}
    for name in ("i1", "i100a", "i100b", "i100c"):
        job = f"seeded_{program}_{name}"
        assert status[job]["ok"], status[job]["error"]
        dirs[name] = root / job / "model_dir"
    step0 = compare.read_checkpoint(str(dirs["i1"] / "model.ckpt-0"))
    assert (
        compare.max_abs_diff(step0, compare.read_checkpoint(str(dirs["i100a"] / "model.ckpt-0")))
        == 0
    )
    last = [
        compare.read_checkpoint(str(dirs[n] / "model.ckpt-20")) for n in ("i100a", "i100b", "i100c")
    ]
    assert compare.max_abs_diff(last[0], last[1]) == 0
    assert compare.max_abs_diff(last[0], last[2]) == 0
    # ... and 20 steps with one step per run train to the same weights.
    first = compare.read_checkpoint(str(dirs["i1"] / "model.ckpt-20"))
    assert compare.max_abs_diff(first, last[0]) <= 1e-6
