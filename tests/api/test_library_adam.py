"""Issue 41, Build 6: 50 `tf.compat.v1.train.AdamOptimizer` steps (dense layers, a sparse
embedding column, seeded dropout, batch norm) under tfport against TF 2.15
(legacy/goldens/library_adam, made by legacy/scripts/library_adam.py): every step's loss
and every variable, Adam's slots and beta powers included, after steps 1, 10 and 50.
Measured on the machine that made the golden: equal bit for bit at every step. The
tolerance is the project's allowance for other CPUs' rounding (compare.RTOL)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/library_adam/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "library_adam")
ATOL = 1e-6


@pytest.mark.slow
def test_fifty_adam_steps_follow_legacy_step_by_step(tmp_path):
    import tfport

    tfport.install()
    got = SCRIPT.record(str(tmp_path / "m"))
    losses = np.abs(np.array(got["loss"]) - np.array(GOLDEN["loss"]))
    first = int(np.argmax(losses > 0)) + 1 if losses.any() else None
    assert compare.excess(got["loss"], GOLDEN["loss"]) <= ATOL, (first, losses.max())
    for step in ("1", "10", "50"):
        assert sorted(got[step]) == sorted(GOLDEN[step])
        for name, want in GOLDEN[step].items():
            assert compare.excess(got[step][name], want) <= ATOL, (step, name)
