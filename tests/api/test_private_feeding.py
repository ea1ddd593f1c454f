"""Issue 41: legacy's queue-based feeding (`inputs.queues.feeding_functions` and
`feeding_queue_runner`) behaves as on TF 2.15 (legacy/goldens/private_feeding, made by
legacy/scripts/private_feeding.py): the batches each feed function returns for numpy,
OrderedDict, pandas and generator input (epochs, random start, padding, end of input),
the padding and batch-index helpers, the queues `_enqueue_data` builds and the batches a
`MonitoredSession` dequeues from them through the registered `_FeedingQueueRunner`, and
the runner's own checks, each equal to legacy's."""

from __future__ import annotations

import json
import pathlib

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/private_feeding/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "private_feeding")


@pytest.fixture(scope="module")
def recorded():
    import tfport

    tfport.install()
    return json.loads(json.dumps(SCRIPT.record()))


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_legacy_queue_feeding_behaves_as_on_tf_2_15(recorded, group):
    got = recorded[group]
    assert sorted(got) == sorted(GOLDEN[group])
    differ = {k: (got[k], GOLDEN[group][k]) for k in got if got[k] != GOLDEN[group][k]}
    assert differ == {}
