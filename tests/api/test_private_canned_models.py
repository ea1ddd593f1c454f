"""Issue 41: legacy's canned internals that libraries construct directly behave as on
TF 2.15 (legacy/goldens/private_canned_models, made by
legacy/scripts/private_canned_models.py): the Keras DNN models (`_DNNModel`, `_DNNModelV2`:
variable names, logits, summaries), `_LinearModelLayer`, `_SparseFeatureColumn`,
`LinearSDCA._prune_and_unique_sparse_ids`, the SDCA solver `_SDCAModel` and its hook, the
sharded dense hash tables (lookups, sizes, exports, checkpoint keys, errors) and the k-means
`_ModelFn` / `_predict_one_key`.

Numbers compare within 1e-5: SDCA's kernel visits examples in an unseeded random order (on
the legacy stack too), so its values are compared after convergence."""

from __future__ import annotations

import math

import pytest
from tests.api import golden_values

GOLDEN = golden_values.golden("private_canned_models")
SCRIPT = golden_values.script("private_canned_models")
recorded = golden_values.recorded_fixture(SCRIPT, as_json=True)


def _differences(got: object, want: object, path: str = "") -> list[str]:
    if isinstance(want, dict) and isinstance(got, dict):
        if sorted(got) != sorted(want):
            return [f"{path}: keys {sorted(got)} instead of {sorted(want)}"]
        return [d for k in want for d in _differences(got[k], want[k], f"{path}/{k}")]
    if isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            return [f"{path}: {len(got)} items instead of {len(want)}"]
        return [d for i, (g, w) in enumerate(zip(got, want)) for d in _differences(g, w, path)]
    if isinstance(want, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-5):
            return []
    elif got == want:
        return []
    return [f"{path}: {got!r} instead of {want!r}"]


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_private_canned_models_behave_as_on_tf_2_15(recorded, group):
    assert _differences(recorded[group], GOLDEN[group], group) == []
