"""Makes tfport's golden artifacts with the real legacy stack.

Run it with the legacy venv's python (tensorflow-cpu 2.15.1 + tensorflow-estimator 2.15.0,
see legacy/requirements.txt), never with the project's::

    /path/to/legacy-venv/bin/python legacy/generate.py            # every case
    /path/to/legacy-venv/bin/python legacy/generate.py canned_dnn  # only the named ones

Cases come from the scripts in ``legacy/scripts/``: a module-level ``CASES`` tuple names
Estimator cases (contract ``python SCRIPT CASE MODEL_DIR OUT_JSON``), an optional
``CONVERTER`` dict maps a case to the legacy ``checkpoint_converter.py`` kind, and an
``ARTIFACTS`` tuple names folders a script writes itself (``python SCRIPT NAME OUT_DIR``).
The declarations are read with ``ast``; the scripts are only ever run as subprocesses.

Every case is built in a hidden folder next to its golden, checked (the resume check
must reproduce everything exactly), stripped of machine paths and then moved in place.
``legacy/goldens/.complete`` is written last.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SCRIPTS = HERE / "scripts"
GOLDENS = HERE / "goldens"
STEP0_STATE = 'model_checkpoint_path: "model.ckpt-0"\nall_model_checkpoint_paths: "model.ckpt-0"\n'


@dataclasses.dataclass(frozen=True)
class Case:
    """One golden: its name, the script that makes it and how.

    Attributes:
        name: the case name (the golden folder's name).
        script: the script that answers for it.
        kind: ``"estimator"`` (CASES) or ``"artifact"`` (ARTIFACTS).
        converter: the legacy checkpoint_converter kind, or None.
    """

    name: str
    script: pathlib.Path
    kind: str
    converter: str | None = None


def _literal(tree: ast.Module, name: str, default: object) -> object:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return default


def discover(scripts: pathlib.Path = SCRIPTS) -> dict[str, Case]:
    """Reads the CASES / CONVERTER / ARTIFACTS declarations of every script.

    Args:
        scripts: the folder of case scripts.

    Returns:
        Case name -> Case, in script then declaration order.

    Raises:
        ValueError: two scripts declare the same name.
    """
    found: dict[str, Case] = {}
    for script in sorted(scripts.glob("*.py")):
        tree = ast.parse(script.read_text(), str(script))
        converter = _literal(tree, "CONVERTER", {})
        entries = [(n, "estimator") for n in _literal(tree, "CASES", ())]
        entries += [(n, "artifact") for n in _literal(tree, "ARTIFACTS", ())]
        for name, kind in entries:
            if name in found:
                raise ValueError(
                    f"case {name!r} is declared by {found[name].script.name} and {script.name}"
                )
            found[name] = Case(name, script, kind, converter.get(name))
    return found


def _run(args: list[str], log: pathlib.Path, cwd: pathlib.Path) -> None:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONDONTWRITEBYTECODE="1")
    with open(log, "a") as out:
        proc = subprocess.run(args, stdout=out, stderr=subprocess.STDOUT, env=env, cwd=cwd)
    if proc.returncode:
        tail = log.read_text()[-3000:]
        raise RuntimeError(f"{' '.join(args)} failed (exit {proc.returncode}):\n{tail}")


def run_estimator_case(
    case: Case, model_dir: pathlib.Path, out_json: pathlib.Path, log: pathlib.Path
) -> dict:
    """Runs ``python SCRIPT CASE MODEL_DIR OUT_JSON`` on the legacy stack.

    Returns:
        The OUT_JSON the script wrote.
    """
    _run(
        [sys.executable, str(case.script), case.name, str(model_dir), str(out_json)],
        log,
        cwd=model_dir.parent,
    )
    return json.loads(out_json.read_text())


def max_abs_diff(a: object, b: object) -> float:
    """Largest absolute difference of nested numbers; inf where structures differ."""
    import numpy as np

    if isinstance(a, dict) or isinstance(b, dict):
        if not (isinstance(a, dict) and isinstance(b, dict)) or set(a) != set(b):
            return float("inf")
        return max([max_abs_diff(a[k], b[k]) for k in a] or [0.0])
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and _nested(a, b):
        if len(a) != len(b):
            return float("inf")
        return max([max_abs_diff(x, y) for x, y in zip(a, b)] or [0.0])
    x, y = np.asarray(a), np.asarray(b)
    if x.shape != y.shape:
        return float("inf")
    if x.dtype.kind not in "fiub" or y.dtype.kind not in "fiub":
        return 0.0 if np.array_equal(x, y) else float("inf")
    return float(np.max(np.abs(x.astype(float) - y.astype(float)), initial=0.0))


def _nested(a: list | tuple, b: list | tuple) -> bool:
    """Whether a or b holds dicts or ragged lists (not one numeric array)."""
    import numpy as np

    for value in (a, b):
        try:
            if np.asarray(value).dtype.kind == "O":
                return True
        except ValueError:  # ragged
            return True
    return False


def checkpoint_diff(a_prefix: str, b_prefix: str) -> float:
    """Largest difference over every variable of two checkpoints (names must agree)."""
    import tensorflow as tf

    a, b = tf.train.load_checkpoint(a_prefix), tf.train.load_checkpoint(b_prefix)
    names = set(a.get_variable_to_shape_map()) - {"_CHECKPOINTABLE_OBJECT_GRAPH"}
    if names != set(b.get_variable_to_shape_map()) - {"_CHECKPOINTABLE_OBJECT_GRAPH"}:
        return float("inf")
    return max([max_abs_diff(a.get_tensor(n), b.get_tensor(n)) for n in names] or [0.0])


def resume_check(case: Case, build: pathlib.Path, expected: dict) -> dict:
    """Reruns CASE from a copy of its model_dir holding only model.ckpt-0.

    Returns:
        ``{"metrics", "predictions", "variables"}``: the largest differences from the
        first run (the generator requires all three to be 0.0).
    """
    with tempfile.TemporaryDirectory(prefix=".resume-", dir=build.parent) as tmp:
        model_dir = pathlib.Path(tmp) / "model_dir"
        model_dir.mkdir()
        for f in (build / "model_dir").glob("model.ckpt-0.*"):
            shutil.copy(f, model_dir)
        (model_dir / "checkpoint").write_text(STEP0_STATE)
        out = run_estimator_case(
            case, model_dir, pathlib.Path(tmp) / "out.json", build / "generate.log"
        )
        return {
            "metrics": max_abs_diff(expected["eval_metrics"], out["eval_metrics"]),
            "predictions": max_abs_diff(expected["predictions"], out["predictions"]),
            "variables": checkpoint_diff(
                str(build / "model_dir" / "model.ckpt-40"), str(model_dir / "model.ckpt-40")
            ),
        }


def convert(case: Case, build: pathlib.Path) -> None:
    """Runs the legacy checkpoint_converter.py on the step-40 checkpoint into converted/."""
    from tensorflow_estimator.python.estimator.tools import checkpoint_converter

    model_dir = build / "model_dir"
    (build / "converted").mkdir()
    _run(
        [
            sys.executable,
            checkpoint_converter.__file__,
            case.converter,
            str(model_dir / "model.ckpt-40"),
            str(model_dir / "graph.pbtxt"),
            str(build / "converted" / "model.ckpt"),
        ],
        build / "generate.log",
        cwd=build,
    )


def event_tags(build: pathlib.Path) -> dict[str, list[str]]:
    """Replaces model_dir's event files by the summary tags they held.

    Event files hold absolute paths and wall times, so each folder's event files give way
    to an ``events.tags.json`` listing their tags (so ``eval/`` stays in the golden).

    Returns:
        Subfolder of model_dir (``"."``, ``"eval"``) -> sorted tags.
    """
    import tensorflow as tf

    tags: dict[str, set[str]] = {}
    model_dir = build / "model_dir"
    for path in sorted(model_dir.rglob("events.out.tfevents*")):
        found = tags.setdefault(str(path.parent.relative_to(model_dir)), set())
        for event in tf.compat.v1.train.summary_iterator(str(path)):
            found.update(value.tag for value in event.summary.value)
        path.unlink()
    for sub, names in tags.items():
        (model_dir / sub / "events.tags.json").write_text(json.dumps(sorted(names)) + "\n")
    return {sub: sorted(names) for sub, names in sorted(tags.items())}


def strip_machine_paths(build: pathlib.Path) -> None:
    """Makes checkpoint state files relative, cleans .pbtxt, drops .meta; fails on leftovers.

    Raises:
        RuntimeError: a file still names the build folder (or its parent) afterwards.
    """
    prefix = str(build).encode()
    for path in sorted(p for p in build.rglob("*") if p.is_file()):
        if path.suffix == ".meta":  # binary MetaGraphDef, holds paths; restoring never needs it
            path.unlink()
        elif path.name == "checkpoint":
            lines = []
            for line in path.read_text().splitlines():
                key, value = line.split(": ", 1)
                if value.startswith('"'):
                    value = '"' + os.path.basename(value.strip('"')) + '"'
                lines.append(f"{key}: {value}\n")
            path.write_text("".join(lines))
        elif path.suffix == ".pbtxt":
            path.write_bytes(path.read_bytes().replace(prefix + b"/", b""))
    parent = str(build.parent).encode()
    for path in sorted(p for p in build.rglob("*") if p.is_file()):
        if path.name != "generate.log" and parent in path.read_bytes():
            raise RuntimeError(f"a machine path is left in {path.relative_to(build)}")


def make_case(case: Case, out: pathlib.Path) -> dict | None:
    """Builds one golden folder under OUT; returns its resume check (None for artifacts).

    Raises:
        RuntimeError: a run failed, the resume check was not exact, or paths were left.
    """
    build = out / f".{case.name}.build"
    shutil.rmtree(build, ignore_errors=True)
    build.mkdir(parents=True)
    report = None
    if case.kind == "artifact":
        _run(
            [sys.executable, str(case.script), case.name, str(build)],
            build / "generate.log",
            cwd=build,
        )
    else:
        expected = run_estimator_case(
            case, build / "model_dir", build / "expected.json", build / "generate.log"
        )
        report = resume_check(case, build, expected)
        if any(report.values()):
            raise RuntimeError(
                f"{case.name}: the legacy run is not reproducible from its "
                f"step-0 checkpoint: {report}"
            )
        (build / "resume_check.json").write_text(json.dumps(report, indent=1, sort_keys=True))
        if case.converter:
            convert(case, build)
        expected["script"] = case.script.name
        expected["summary_tags"] = event_tags(build)
        (build / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True))
    strip_machine_paths(build)
    (build / "generate.log").unlink()
    shutil.rmtree(out / case.name, ignore_errors=True)
    build.rename(out / case.name)
    return report


def _stack() -> dict:
    from importlib.metadata import version

    import tensorflow as tf

    return {
        "python": platform.python_version(),
        "tensorflow-cpu": tf.__version__,
        "tensorflow-estimator": version("tensorflow-estimator"),
    }


def main(argv: list[str] | None = None) -> int:
    """Generates the goldens (all, or the named cases) and writes goldens/.complete."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("cases", nargs="*", help="only these cases (default: all)")
    parser.add_argument("--out", type=pathlib.Path, default=GOLDENS)
    parser.add_argument("--list", action="store_true", help="list the cases and exit")
    args = parser.parse_args(argv)
    cases = discover()
    if args.list:
        for case in cases.values():
            print(f"{case.name}\t{case.kind}\t{case.script.name}")
        return 0
    unknown = sorted(set(args.cases) - set(cases))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(cases)}")
    try:
        import tensorflow_estimator  # noqa: F401
    except ImportError:
        print(
            "generate.py must run on the legacy stack (tensorflow-cpu==2.15.1 + "
            "tensorflow-estimator==2.15.0, legacy/requirements.txt); use that venv's "
            f"python. Received: python={sys.executable}",
            file=sys.stderr,
        )
        return 2
    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / ".complete").unlink(missing_ok=True)
    for name in args.cases or list(cases):
        report = make_case(cases[name], out)
        print(
            f"{name}: done" + (f", resume check {report}" if report is not None else ""), flush=True
        )
    made = sorted(p.name for p in out.iterdir() if p.is_dir() and not p.name.startswith("."))
    (out / ".complete").write_text(
        json.dumps({"cases": made, "stack": _stack()}, indent=1, sort_keys=True) + "\n"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
