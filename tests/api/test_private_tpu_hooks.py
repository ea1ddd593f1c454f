"""Issue 41: legacy TPUEstimator's internal context, loop hooks and graph checks behave as on
TF 2.15 (legacy/goldens/private_tpu_hooks, made by legacy/scripts/private_tpu_hooks.py):
`_InternalTPUContext`'s answers per RunConfig and mode with no TPU present, the iterations
`_TPUStopAtStepHook`, `_SetEvalIterationsHook` and `_StoppingPredictHook` load and where
they stop a MonitoredSession, the iterations variable and eval-step helpers, the graph
checks, the infeed queue contexts and `IterationCountEstimator`'s estimates. Each input
returns what legacy returned or raises the same kind of exception; where both raise a
builtin exception, with legacy's message (object addresses aside)."""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/private_tpu_hooks/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "private_tpu_hooks")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _same(got: object, want: object) -> bool:
    if isinstance(want, list) and want[:1] == ["raises"]:
        if not (isinstance(got, list) and got[:2] == want[:2]):
            return False
        exact = want[3] and got[3]  # both builtin: the message is part of the contract
        return not exact or _ADDRESS.sub("", got[2]) == _ADDRESS.sub("", want[2])
    if isinstance(want, dict) and isinstance(got, dict):
        return sorted(got) == sorted(want) and all(_same(got[k], want[k]) for k in want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(map(_same, got, want))
    return got == want


def _differ(got: dict, want: dict) -> dict:
    return {k: (got.get(k), want[k]) for k in want if k not in got or not _same(got[k], want[k])}


@pytest.fixture(scope="module")
def recorded():
    import tfport

    tfport.install()
    return SCRIPT.record()


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_legacy_tpu_internals_behave_as_on_tf_2_15(recorded, group):
    got = recorded[group]
    assert sorted(got) == sorted(GOLDEN[group])
    assert _differ(got, GOLDEN[group]) == {}


def test_a_different_answer_is_reported():
    want = GOLDEN["hooks"]
    got = dict(want, stop_num_steps=[[4, 4], [4, 8], [4, 12]])
    assert list(_differ(got, want)) == ["stop_num_steps"]
    raised = ["raises", "ValueError", "other message", True]
    assert not _same(raised, want["stop_neither"])
