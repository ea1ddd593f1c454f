"""The regression net: programs written the way users write them, on one device and on
`mirrored:2`, give the same numbers (issue 36).

Each program of `programs/net.py` (the TF tutorials' premade-estimator and feature-column
shapes, a CTR model on a pandas input_fn, a finite tfrecord pipeline with a short last
batch into a v1 `linear_model`, a ranking tfrecord pipeline that reshapes on
the batch dimension, a module with its own variable scopes exported as a SavedModel, a
ResNet-style TPUEstimator with `iterations_per_loop=2`, use_tpu False and True) trains,
evaluates and predicts on one device and on `mirrored:2` in one `tfport run` process,
seeded alike; the two runs' variables, metrics and predictions agree within 1e-4 (the
tolerance of the mirrored:2 goldens). Any change to the replica path runs against it.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

PROGRAMS = pathlib.Path(__file__).parent / "programs" / "net.py"
CASES = [
    "premade",
    "feature_cols",
    "ctr",
    "tfrecord_linear",
    "ranking",
    "hub_module",
    "tpu_conv",
    "tpu_conv_tpu",
]
TOLERANCE = 1e-4


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("net")
    out = root / "results.json"
    cmd = [sys.executable, "-m", "tfport", "run", str(PROGRAMS), str(root), str(out), *CASES]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text())


def _run(results: dict, case: str, strategy: str) -> dict:
    run = results[f"{case}/{strategy}"]
    assert "error" not in run, f"{case} on {strategy}: {run.get('error')}"
    return run


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES)
def test_mirrored_2_gives_one_devices_numbers(results, case):
    one, two = _run(results, case, "default"), _run(results, case, "mirrored:2")
    assert one["variables"] and sorted(one["variables"]) == sorted(two["variables"])
    for name, value in one["variables"].items():
        np.testing.assert_allclose(two["variables"][name], value, atol=TOLERANCE, err_msg=name)
    assert one["metrics"]["global_step"] == two["metrics"]["global_step"] > 0
    assert sorted(one["metrics"]) == sorted(two["metrics"])
    for key, value in one["metrics"].items():
        assert abs(two["metrics"][key] - value) < TOLERANCE, key
    assert len(one["predictions"]) == len(two["predictions"]) > 0
    np.testing.assert_allclose(two["predictions"], one["predictions"], atol=TOLERANCE)
