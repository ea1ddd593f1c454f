"""Acceptance: five small trees, upgraded, run under `tfport run` with no hand edit and give
the original's numbers; the report of each is a golden.

The numbers of each ORIGINAL tree come from the legacy stack
(``legacy/scripts/upgrade_trees.py`` -> ``legacy/goldens/upgrade_<tree>/numbers.json``;
TF 1.x trees through a TF 1.x stand-in there). Trees that run on TF 2.21 as written must
be left byte for byte as they are (so the upgraded program is the original one).
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tfport.upgrade import Status, report_text, upgrade_paths

TREES_DIR = pathlib.Path(__file__).parent / "data" / "trees"
# tree -> (entry script, runs on TF 2.21 as written)
TREES = {
    "compat_flags": ("train.py", True),
    "tf1_contrib": ("run.py", False),
    "resize": ("resize.py", False),
    "internals": ("solve.py", True),
    "plain": ("predict.py", True),
}


@pytest.fixture(scope="module")
def upgraded(tmp_path_factory) -> dict[str, tuple[pathlib.Path, list]]:
    out = tmp_path_factory.mktemp("trees")
    done = {}
    for tree in TREES:
        results = upgrade_paths([str(TREES_DIR / tree)], out_dir=str(out / tree))
        done[tree] = (out / tree, results)
    return done


def _report(tree: str, out: pathlib.Path, results: list) -> str:
    text = report_text(results)
    return text.replace(str(out), "OUT").replace(str(TREES_DIR / tree), tree)


@pytest.mark.parametrize("tree", list(TREES))
def test_report_text_is_the_golden(upgraded, tree) -> None:
    out, results = upgraded[tree]
    golden = (TREES_DIR / f"{tree}.report.txt").read_text()
    assert _report(tree, out, results) == golden


@pytest.mark.parametrize("tree", [t for t, (_, runs) in TREES.items() if runs])
def test_code_that_runs_is_left_byte_for_byte(upgraded, tree) -> None:
    out, results = upgraded[tree]
    assert {r.status for r in results} == {Status.UNCHANGED}
    for result in results:
        original = pathlib.Path(result.path)
        assert pathlib.Path(result.output).read_bytes() == original.read_bytes(), original.name


@pytest.mark.parametrize("tree", [t for t, (_, runs) in TREES.items() if not runs])
def test_tf1_trees_are_upgraded_with_nothing_left(upgraded, tree) -> None:
    _, results = upgraded[tree]
    assert {r.status for r in results} == {Status.CHANGED}
    assert not [r.unresolved for r in results if r.unresolved]


def _assert_close(got, legacy, where: str) -> None:
    if isinstance(legacy, list) and legacy and isinstance(legacy[0], list):
        assert len(got) == len(legacy), where
        for i, (a, b) in enumerate(zip(got, legacy)):
            _assert_close(a, b, f"{where}[{i}]")
        return
    np.testing.assert_allclose(
        np.asarray(got, np.float64), np.asarray(legacy, np.float64), rtol=0, atol=1e-6,
        err_msg=where,
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("tree", list(TREES))
def test_upgraded_tree_runs_under_tfport_with_the_originals_numbers(
    upgraded, tree, goldens, tmp_path
) -> None:
    out, _ = upgraded[tree]
    script, _ = TREES[tree]
    numbers = tmp_path / "numbers.json"
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "run", str(out / script), f"--out={numbers}"],
        cwd=out,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-4000:]
    got = json.loads(numbers.read_text())
    legacy = json.loads((goldens / f"upgrade_{tree}" / "numbers.json").read_text())
    assert sorted(got) == sorted(legacy)
    for key, value in legacy.items():
        if key == "variables":
            assert got[key] == value
        else:
            _assert_close(got[key], value, key)
