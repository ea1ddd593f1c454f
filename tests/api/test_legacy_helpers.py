"""Issue 41: legacy's private module helpers (`model_fn`'s spec validators, `estimator`'s
metric and argument helpers, `run_config`'s TF_CONFIG helpers, v1 `canned.head`'s metric
helpers: names and values) behave as on TF 2.15
(legacy/goldens/legacy_helpers, made by legacy/scripts/legacy_helpers.py): each input
returns what legacy returned or raises the same kind of exception; where both raise a
builtin exception, with legacy's message (object addresses aside)."""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/legacy_helpers/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "legacy_helpers")
_ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _same(got: object, want: object) -> bool:
    if isinstance(want, list) and want[:1] == ["raises"]:
        if not (isinstance(got, list) and got[:2] == want[:2]):
            return False
        exact = want[3] and got[3]  # both builtin: the message is part of the contract
        return not exact or _ADDRESS.sub("", got[2]) == _ADDRESS.sub("", want[2])
    return got == want


@pytest.fixture(scope="module")
def recorded():
    import tfport

    tfport.install()
    return SCRIPT.record()


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_legacy_private_helpers_behave_as_on_tf_2_15(recorded, group):
    got = recorded[group]
    assert sorted(got) == sorted(GOLDEN[group])
    differ = {k: (got[k], GOLDEN[group][k]) for k in got if not _same(got[k], GOLDEN[group][k])}
    assert differ == {}
