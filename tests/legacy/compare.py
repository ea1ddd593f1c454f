"""Helpers to run the repo's legacy case scripts (legacy/scripts/) under tfport and to
compare the results with the committed goldens (legacy/goldens/, made by legacy/generate.py)."""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys
import types

import numpy as np


@functools.cache
def _cases(legacy_dir: pathlib.Path) -> dict:
    """Case name -> legacy/generate.py's Case (the generator's own discovery rule)."""
    spec = importlib.util.spec_from_file_location("legacy_generate", legacy_dir / "generate.py")
    generate = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = generate  # its dataclass looks its module up there
    spec.loader.exec_module(generate)
    return generate.discover(legacy_dir / "scripts")


def script_cases(legacy_dir: pathlib.Path) -> list[str]:
    """Every Estimator case the scripts declare (`CASES`; not the `ARTIFACTS`)."""
    cases = _cases(pathlib.Path(legacy_dir))
    return [name for name, case in cases.items() if case.kind == "estimator"]


def script(legacy_dir: pathlib.Path, case: str) -> pathlib.Path:
    """The script in legacy_dir/scripts that declares CASE."""
    return _cases(pathlib.Path(legacy_dir))[case].script


def load_script(legacy_dir: pathlib.Path, case: str) -> types.ModuleType:
    """Imports the script declaring CASE as a module (call tfport.install() first). Its
    folder is on sys.path meanwhile, as when it runs (its sibling `_values` imports)."""
    path = script(legacy_dir, case)
    spec = importlib.util.spec_from_file_location(f"legacy_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module


def load_script_installed(legacy_dir: pathlib.Path, case: str) -> types.ModuleType:
    """`load_script` with tfport installed while the script's legacy imports resolve; tfport
    is left as installed as it was (module-level use in a test file changes nothing)."""
    import tfport
    from tfport import _install as tfport_install

    was_installed = bool(tfport_install._current)
    tfport.install()
    try:
        return load_script(legacy_dir, case)
    finally:
        if not was_installed:
            tfport.uninstall()


# (golden case folder, model_dir, copied step) of every step_copy not checked yet: the
# checkpoints tfport then writes there must hold exactly legacy's variable names, checked
# after each test module by tests/conftest.py (`unchecked_names`)
COPIES: list[tuple[pathlib.Path, pathlib.Path, int]] = []


def step_copy(golden_case: pathlib.Path, dest: pathlib.Path, step: int = 0) -> pathlib.Path:
    """Copies a golden model_dir keeping only model.ckpt-STEP (step 0: the README's recipe)."""
    model_dir = dest / "model_dir"
    model_dir.mkdir(parents=True)
    COPIES.append((golden_case, model_dir, step))
    for f in (golden_case / "model_dir").iterdir():
        if f.name.startswith(f"model.ckpt-{step}."):
            shutil.copy(f, model_dir)
    (model_dir / "checkpoint").write_text(
        f'model_checkpoint_path: "model.ckpt-{step}"\n'
        f'all_model_checkpoint_paths: "model.ckpt-{step}"\n'
    )
    return model_dir


def written_checkpoints(model_dir: pathlib.Path, copied: int) -> list[pathlib.Path]:
    """The checkpoints tfport wrote into a step copy (every model.ckpt-N but the copied one)."""
    steps = {int(p.name.split("-")[1].split(".")[0]) for p in model_dir.glob("model.ckpt-*.index")}
    return [model_dir / f"model.ckpt-{s}" for s in sorted(steps - {copied})]


def variable_names(prefix: pathlib.Path) -> set[str]:
    """The variable names of a name-based checkpoint (the object graph entry left out)."""
    import tensorflow as tf

    return {n for n, _ in tf.train.list_variables(str(prefix))} - {"_CHECKPOINTABLE_OBJECT_GRAPH"}


def unchecked_names() -> list[str]:
    """Checks, then forgets, every copy made since the last call: each checkpoint tfport
    wrote into a copy of a golden model_dir holds exactly the names of legacy's step-40
    checkpoint of that case. Returns one line per checkpoint that does not."""
    problems = []
    while COPIES:
        golden_case, model_dir, copied = COPIES.pop()
        legacy_prefix = golden_case / "model_dir" / "model.ckpt-40"
        written = written_checkpoints(model_dir, copied) if model_dir.is_dir() else []
        if not written or not pathlib.Path(f"{legacy_prefix}.index").is_file():
            continue
        legacy = variable_names(legacy_prefix)
        for checkpoint in written:
            got = variable_names(checkpoint)
            if got != legacy:
                problems.append(
                    f"{checkpoint} ({golden_case.name}): not in legacy's checkpoint "
                    f"{sorted(got - legacy)}, missing {sorted(legacy - got)}"
                )
    return problems


def step0_copy(golden_case: pathlib.Path, dest: pathlib.Path) -> pathlib.Path:
    """Copies a golden model_dir keeping only model.ckpt-0 (the README's comparison recipe)."""
    return step_copy(golden_case, dest, 0)


def summary_tags(model_dir: pathlib.Path, sub: str = ".") -> set[str]:
    """The summary tags of the event files under model_dir/sub."""
    import tensorflow as tf

    tags: set[str] = set()
    for path in (model_dir / sub).glob("events.out.tfevents*"):
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            tags.update(v.tag for v in event.summary.value)
    return tags


def run_case(
    legacy_dir: pathlib.Path,
    case: str,
    model_dir: pathlib.Path,
    out_json: pathlib.Path,
    *extra: str,
    timeout: int = 600,
) -> dict:
    """Runs `tfport run [extra] SCRIPT CASE MODEL_DIR OUT_JSON`; returns OUT_JSON's dict."""
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [
        sys.executable,
        "-m",
        "tfport",
        "run",
        *extra,
        str(script(legacy_dir, case)),
        case,
        str(model_dir),
        str(out_json),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(out_json.read_text())


def run_cases(
    goldens: pathlib.Path, root: pathlib.Path, runner: pathlib.Path, cases: tuple, *extra: str
) -> dict:
    """case -> (model_dir, out): `tfport run [extra] RUNNER CASE,MODEL_DIR,OUT_JSON ...`, all
    cases in one process, each from a step-0 copy of its golden under `root`."""
    jobs, dirs = [], {}
    for case in cases:
        dirs[case] = step0_copy(goldens / case, root / case)
        jobs.append(f"{case},{dirs[case]},{root / case / 'out.json'}")
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", *extra, str(runner), *jobs]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {c: (dirs[c], json.loads((root / c / "out.json").read_text())) for c in cases}


def read_checkpoint(prefix: str) -> dict:
    """Reads every variable of a checkpoint with TF's reader."""
    import tensorflow as tf

    reader = tf.train.load_checkpoint(prefix)
    return {
        name: reader.get_tensor(name)
        for name in reader.get_variable_to_shape_map()
        if name != "_CHECKPOINTABLE_OBJECT_GRAPH"
    }


# float32 keeps 24 bits, and CPUs differ in how they round: the same legacy script from the
# same checkpoint gives numbers a few units in the last place apart on two machines
# (measured: TF 2.15 on an AVX-512 machine against the goldens' machine, an Ftrl accumulator
# of 874.63 off by 1.2e-4, two ulps; tfport on that machine equals legacy there bit for bit).
# Every golden comparison therefore allows RTOL of the expected value on top of its
# absolute tolerance, as np.allclose does: 1e-6 is eight float32 ulps.
RTOL = 1e-6


def excess(a: object, b: object, rtol: float = RTOL) -> float:
    """Largest |a - b| beyond rtol * |b| over nested numbers (dicts / lists / arrays; b: the
    expected values); `excess(got, want) <= atol` is np.allclose(got, want, rtol, atol)."""
    if isinstance(a, dict):
        assert set(a) == set(b), (sorted(a), sorted(b))
        return max([excess(a[k], b[k], rtol) for k in a] or [0.0])
    if isinstance(a, (list, tuple)) and _nested(a):  # dicts or ragged lists inside
        assert isinstance(b, (list, tuple)) and len(a) == len(b), (len(a), b)
        return max([excess(x, y, rtol) for x, y in zip(a, b)] or [0.0])
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    assert x.shape == y.shape, (x.shape, y.shape)
    return float(np.max(np.abs(x - y) - rtol * np.abs(y))) if x.size else 0.0


def max_abs_diff(a: object, b: object) -> float:
    """Largest absolute difference between nested numbers (for exact comparisons)."""
    return excess(a, b, rtol=0.0)


def _nested(value: list | tuple) -> bool:
    """Whether a list holds dicts or ragged lists (not one numeric array)."""
    try:
        return np.asarray(value).dtype.kind == "O"
    except ValueError:  # ragged
        return True


def assert_checkpoints_match(
    got: str, want: str, atol: float, ignore: frozenset = frozenset(), atols: dict | None = None
) -> None:
    """Same names (but `want`'s in `ignore`), shapes, dtypes; values within
    atol + RTOL * |want|, or `atols[name]` in place of atol for the names it holds."""
    a, b = read_checkpoint(got), read_checkpoint(want)
    b = {k: v for k, v in b.items() if k not in ignore}
    assert sorted(a) == sorted(b), sorted(set(a) ^ set(b))
    for name in b:
        assert a[name].dtype == b[name].dtype, name
        assert a[name].shape == b[name].shape, name
        if a[name].dtype.kind in "fiu":
            diff = excess(a[name], b[name])
            assert diff <= (atols or {}).get(name, atol), (name, diff)
        else:
            assert (a[name] == b[name]).all(), name


def assert_run_matches(golden_case: pathlib.Path, model_dir: pathlib.Path, out: dict, atol: float):
    """A case script's run (its out.json as `out`, its model_dir) against the golden's
    expected.json and step-40 checkpoint: variable list, checkpoint, eval metrics and the
    24 predictions. Returns the golden's expected.json for the caller's own checks."""
    want = json.loads((golden_case / "expected.json").read_text())
    assert out["variables"] == want["variables"]
    assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(golden_case / "model_dir/model.ckpt-40"), atol
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert excess(out["eval_metrics"], want["eval_metrics"]) <= atol
    assert len(out["predictions"]) == len(want["predictions"]) == 24
    assert excess(out["predictions"], want["predictions"]) <= atol
    return want
