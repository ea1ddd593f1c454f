"""Issue 27: every golden's tfport checkpoint holds exactly the legacy variable names.

Every checkpoint tfport writes into a copy of a golden model_dir (`compare.step_copy`: the
golden tests on one device, mirrored:2, loops, ...) is checked against the names of the
legacy step-40 checkpoint of its case after the test module that made the copy
(`tests/conftest.py`, `compare.unchecked_names`). This file holds that check to account:
it reports a checkpoint whose names differ, and every golden Estimator case is trained from
a copy by some test module.
"""

from __future__ import annotations

import pathlib
import re
import shutil
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent / "legacy"))
import compare  # noqa: E402

TESTS = pathlib.Path(__file__).parent
LEGACY = TESTS.parent / "legacy"
GOLDENS = LEGACY / "goldens"
# the generator's Estimator cases (trained to step 40; artifacts write their own folders)
CASES = sorted(
    case
    for case in compare.script_cases(LEGACY)
    if (GOLDENS / case / "model_dir" / "model.ckpt-40.index").is_file()
)
# the texts of the test modules that train golden cases from copies
_TEXTS = [p.read_text() for p in TESTS.rglob("*.py") if p.name != pathlib.Path(__file__).name]
_COPYING = [text for text in _TEXTS if re.search(r"step0?_copy|run_case|run_from_step0", text)]


@pytest.mark.parametrize("case", CASES)
def test_every_golden_case_is_trained_from_a_copy_by_a_test_module(case):
    assert any(re.search(rf"\b{case}\b", text) for text in _COPYING), (
        f"no test module that trains golden copies names {case}: its checkpoint names go unchecked"
    )


def test_a_written_checkpoint_is_reported_unless_it_holds_exactly_the_legacy_names(tmp_path):
    import tensorflow as tf

    golden = GOLDENS / "custom_v1_adam"
    model_dir = compare.step_copy(golden, tmp_path)
    for f in (golden / "model_dir").glob("model.ckpt-40.*"):  # legacy's own names: accepted
        shutil.copy(f, model_dir / f.name.replace("ckpt-40", "ckpt-41"))
    assert compare.unchecked_names() == []
    assert compare.COPIES == []

    model_dir = compare.step_copy(golden, tmp_path / "again")
    legacy = compare.variable_names(golden / "model_dir" / "model.ckpt-40")
    kept = sorted(legacy)[0]
    graph = tf.Graph()
    with graph.as_default():
        v1 = tf.compat.v1
        v1.get_variable(kept, shape=[], initializer=v1.zeros_initializer())
        v1.get_variable("not_legacy", shape=[], initializer=v1.zeros_initializer())
        with v1.Session() as session:
            session.run(v1.global_variables_initializer())
            v1.train.Saver().save(session, str(model_dir / "model.ckpt-42"))
    (problem,) = compare.unchecked_names()
    assert "model.ckpt-42 (custom_v1_adam)" in problem and "['not_legacy']" in problem
    missing = sorted(legacy - {kept})
    assert f"missing {missing}" in problem
