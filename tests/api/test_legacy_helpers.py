"""Issue 41: legacy's private module helpers (`model_fn`'s spec validators, `estimator`'s
metric and argument helpers, `run_config`'s TF_CONFIG helpers, v1 `canned.head`'s metric
helpers: names and values) behave as on TF 2.15
(legacy/goldens/legacy_helpers, made by legacy/scripts/legacy_helpers.py): each input
returns what legacy returned or raises the same kind of exception; where both raise a
builtin exception, with legacy's message (object addresses aside)."""

from __future__ import annotations

import pytest
from tests.api import golden_values

GOLDEN = golden_values.golden("legacy_helpers")
SCRIPT = golden_values.script("legacy_helpers")
recorded = golden_values.recorded_fixture(SCRIPT, as_json=False)


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_legacy_private_helpers_behave_as_on_tf_2_15(recorded, group):
    got = recorded[group]
    assert sorted(got) == sorted(GOLDEN[group])
    assert golden_values.differ(got, GOLDEN[group]) == {}
