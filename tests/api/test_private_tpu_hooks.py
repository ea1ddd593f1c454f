"""Issue 41: legacy TPUEstimator's internal context, loop hooks and graph checks behave as on
TF 2.15 (legacy/goldens/private_tpu_hooks, made by legacy/scripts/private_tpu_hooks.py):
`_InternalTPUContext`'s answers per RunConfig and mode with no TPU present, the iterations
`_TPUStopAtStepHook`, `_SetEvalIterationsHook` and `_StoppingPredictHook` load and where
they stop a MonitoredSession, the iterations variable and eval-step helpers, the graph
checks, the infeed queue contexts and `IterationCountEstimator`'s estimates. Each input
returns what legacy returned or raises the same kind of exception; where both raise a
builtin exception, with legacy's message (object addresses aside)."""

from __future__ import annotations

import pytest
from tests.api import golden_values

GOLDEN = golden_values.golden("private_tpu_hooks")
SCRIPT = golden_values.script("private_tpu_hooks")
recorded = golden_values.recorded_fixture(SCRIPT, as_json=False)


def _differ(got: dict, want: dict) -> dict:
    return golden_values.differ(got, want, nested=True)  # outcomes inside lists, dicts too


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
    assert not golden_values.same(raised, want["stop_neither"], nested=True)
