"""model_fns of Keras models run per replica: mirrored:2 (2 logical CPUs) equals one device."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

SCRIPT = pathlib.Path(__file__).parent / "_mirrored_script.py"


FLAVORS = ("tf_keras2out", "keras3")


def _run(tmp_path: pathlib.Path, *extra: str) -> dict:
    name = "mirrored" if extra else "single"
    out = tmp_path / f"{name}.json"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [
        sys.executable,
        "-m",
        "tfport",
        "run",
        *extra,
        str(SCRIPT),
        ",".join(FLAVORS),
        str(tmp_path / name),
        str(out),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(out.read_text())


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("mirrored")
    return _run(tmp_path), _run(tmp_path, "--strategy", "mirrored:2")


@pytest.mark.slow
@pytest.mark.parametrize("flavor", FLAVORS)
def test_mirrored_2_equals_single_device(runs, flavor):
    single, mirrored = runs[0][flavor], runs[1][flavor]
    assert single["weights"]
    assert compare.excess(mirrored["weights"], single["weights"]) <= 1e-4
    assert compare.excess(mirrored["metrics"], single["metrics"]) <= 1e-4
    if flavor == "tf_keras2out":  # the legacy multi-output names
        assert {"a_accuracy", "b_accuracy"} <= set(single["metrics"])
