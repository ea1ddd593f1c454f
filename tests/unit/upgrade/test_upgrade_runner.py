"""Runner semantics: one value per file, failures isolated, atomic writes, dry runs."""

from __future__ import annotations

import os
import pathlib
import stat

import pytest
from tests.upgrade.upgrade_helpers import src

from tfport._common.errors import TfportInputError
from tfport.upgrade import Status, report_text, upgrade_file, upgrade_paths

LEGACY = src(
    """
    import tensorflow as tf


    def model_fn(features, labels, mode):
        shape_n = features.shape[1].value
        return tf.estimator.EstimatorSpec(mode, loss=tf.reduce_sum(features))
    """
)
MODERN = "import tensorflow as tf\n\nprint(tf.constant(1))\n"
BROKEN = "def broken(:\n    pass\n"


@pytest.fixture()
def tree(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "in"
    (root / "pkg").mkdir(parents=True)
    (root / "a_legacy.py").write_text(LEGACY)
    (root / "pkg" / "b_modern.py").write_text(MODERN)
    (root / "pkg" / "c_broken.py").write_text(BROKEN)
    (root / "notes.txt").write_text("not python")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "skip.py").write_text(LEGACY)
    return root


def _by_name(results) -> dict:
    return {pathlib.Path(r.path).name: r for r in results}


def test_each_file_gets_a_value_and_a_failure_stops_nothing(tree, tmp_path) -> None:
    out = tmp_path / "out"
    results = _by_name(upgrade_paths([str(tree)], out_dir=str(out)))
    assert set(results) == {"a_legacy.py", "b_modern.py", "c_broken.py"}
    assert results["a_legacy.py"].status is Status.CHANGED
    assert results["b_modern.py"].status is Status.UNCHANGED
    broken = results["c_broken.py"]
    assert broken.status is Status.FAILED and broken.output is None
    assert "Syntax error" in broken.reason and "c_broken.py:1:" in broken.reason
    assert "tfport.estimator.EstimatorSpec" in (out / "a_legacy.py").read_text()
    assert (out / "pkg" / "b_modern.py").read_text() == MODERN
    assert not (out / "pkg" / "c_broken.py").exists()
    assert (tree / "a_legacy.py").read_text() == LEGACY  # inputs never modified


def test_in_place_then_second_run_changes_nothing(tree) -> None:
    first = _by_name(upgrade_paths([str(tree)], in_place=True))
    assert first["a_legacy.py"].status is Status.CHANGED
    upgraded = (tree / "a_legacy.py").read_text()
    second = _by_name(upgrade_paths([str(tree)], in_place=True))
    assert [r.status for r in second.values() if not r.failed] == [Status.UNCHANGED] * 2
    assert (tree / "a_legacy.py").read_text() == upgraded
    assert (tree / "pkg" / "c_broken.py").read_text() == BROKEN


def test_dry_run_writes_nothing_and_gives_a_diff(tree) -> None:
    before = {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()}
    results = _by_name(upgrade_paths([str(tree)], write=False))
    assert {p: p.read_bytes() for p in tree.rglob("*") if p.is_file()} == before
    diff = results["a_legacy.py"].diff
    assert "-    return tf.estimator.EstimatorSpec(" in diff
    assert "+    return tfport.estimator.EstimatorSpec(" in diff
    assert "-    shape_n = features.shape[1].value" in diff
    assert results["b_modern.py"].diff == ""


def test_in_place_write_is_atomic_and_keeps_the_mode(tmp_path) -> None:
    path = tmp_path / "train.py"
    path.write_text(LEGACY)
    os.chmod(path, 0o754)
    result = upgrade_file(str(path))
    assert result.status is Status.CHANGED
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o754
    assert sorted(p.name for p in tmp_path.iterdir()) == ["train.py"]  # no temp files left


def test_in_place_through_a_symlink_rewrites_the_target(tmp_path) -> None:
    real = tmp_path / "real.py"
    real.write_text(LEGACY)
    link = tmp_path / "link.py"
    link.symlink_to(real)
    assert upgrade_file(str(link)).status is Status.CHANGED
    assert link.is_symlink()
    assert "tfport.estimator.EstimatorSpec" in real.read_text()


def test_existing_outputs_are_refused_before_anything_is_written(tree, tmp_path) -> None:
    out = tmp_path / "out"
    (out / "pkg").mkdir(parents=True)
    (out / "pkg" / "b_modern.py").write_text("keep me")
    with pytest.raises(TfportInputError, match="already exist.*--overwrite"):
        upgrade_paths([str(tree)], out_dir=str(out))
    assert not (out / "a_legacy.py").exists()
    upgrade_paths([str(tree)], out_dir=str(out), overwrite=True)
    assert (out / "pkg" / "b_modern.py").read_text() == MODERN


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"paths": ["missing_dir"], "in_place": True}, "No such file or folder"),
        ({"paths": [], "in_place": True}, "No PATH given"),
        ({"paths": ["."]}, "Nowhere to write"),
        ({"paths": ["."], "in_place": True, "out_dir": "x"}, "exclude each other"),
    ],
    ids=["missing", "no_paths", "nowhere", "both"],
)
def test_bad_usage_raises_input_error(kwargs, match, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    paths = kwargs.pop("paths")
    with pytest.raises(TfportInputError, match=match):
        upgrade_paths(paths, **kwargs)


def test_out_inside_the_input_folder_is_refused(tree) -> None:
    with pytest.raises(TfportInputError, match="inside an input folder"):
        upgrade_paths([str(tree)], out_dir=str(tree / "upgraded"))


def test_unreadable_encoding_is_a_failed_value(tmp_path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes(b"# -*- coding: utf-8 -*-\nx = '\xff'\n")
    result = upgrade_file(str(path), write=False)
    assert result.status is Status.FAILED and "UnicodeDecodeError" in result.reason


def test_report_lists_file_line_col_level_message(tree, tmp_path) -> None:
    results = upgrade_paths([str(tree)], out_dir=str(tmp_path / "out"))
    text = report_text(results)
    legacy = str(tree / "a_legacy.py")
    assert f"{legacy}:5:14: INFO: TensorShape: dropped '.value'" in text
    assert f"{legacy}:6:11: INFO: Renamed 'tf.estimator.EstimatorSpec'" in text
    assert f"{tree / 'pkg' / 'c_broken.py'}:1:0: ERROR: failed: Syntax error" in text
    assert "1 changed, 1 runs as is under tfport, 0 need manual work, 1 failed" in text
