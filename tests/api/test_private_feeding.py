"""Issue 41: legacy's queue-based feeding (`inputs.queues.feeding_functions` and
`feeding_queue_runner`) behaves as on TF 2.15 (legacy/goldens/private_feeding, made by
legacy/scripts/private_feeding.py): the batches each feed function returns for numpy,
OrderedDict, pandas and generator input (epochs, random start, padding, end of input),
the padding and batch-index helpers, the queues `_enqueue_data` builds and the batches a
`MonitoredSession` dequeues from them through the registered `_FeedingQueueRunner`, and
the runner's own checks, each equal to legacy's."""

from __future__ import annotations

import pytest
from tests.api import golden_values

GOLDEN = golden_values.golden("private_feeding")
SCRIPT = golden_values.script("private_feeding")
recorded = golden_values.recorded_fixture(SCRIPT, as_json=True)


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_legacy_queue_feeding_behaves_as_on_tf_2_15(recorded, group):
    got = recorded[group]
    assert sorted(got) == sorted(GOLDEN[group])
    differ = {k: (got[k], GOLDEN[group][k]) for k in got if got[k] != GOLDEN[group][k]}
    assert differ == {}
