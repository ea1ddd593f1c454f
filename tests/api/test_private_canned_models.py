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

import json
import math
import pathlib

import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/private_canned_models/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "private_canned_models")


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


@pytest.fixture(scope="module")
def recorded():
    import tfport

    tfport.install()
    return json.loads(json.dumps(SCRIPT.record()))  # tuples as the golden's lists


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_private_canned_models_behave_as_on_tf_2_15(recorded, group):
    assert _differences(recorded[group], GOLDEN[group], group) == []
