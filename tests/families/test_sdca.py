"""LinearSDCA against the legacy converged solutions (legacy/goldens/families_sdca).

SDCA steps are not reproducible (the kernel shuffles each batch with an unseeded random
device, on the legacy stack too), so the golden holds converged solutions of a strongly
convex problem: tfport's converged weights must be within 1e-3 of them, metrics within 1e-4.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from conftest import tfport_run
from tfport._common.errors import TfportInputError

SCRIPT = pathlib.Path(__file__).parents[2] / "legacy" / "scripts" / "families_sdca.py"
KINDS = ("classifier_v2", "regressor_v2", "classifier_v1")
RUNNER = f"""
import importlib.util, json, sys, tempfile
spec = importlib.util.spec_from_file_location("families_sdca", {str(SCRIPT)!r})
sdca = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sdca)
out = {{}}
for kind in {KINDS!r}:
    with tempfile.TemporaryDirectory() as model_dir:
        out[kind] = sdca._run(kind, model_dir)
json.dump(out, open(sys.argv[1], "w"))
"""


@pytest.fixture(scope="module")
def converged(goldens, tmp_path_factory) -> tuple:
    """(legacy expected.json, tfport's runs of the same three estimators)."""
    root = tmp_path_factory.mktemp("sdca")
    (root / "runner.py").write_text(RUNNER)
    proc = tfport_run(str(root / "runner.py"), str(root / "out.json"))
    assert proc.returncode == 0, proc.stderr[-4000:]
    expected = json.loads((goldens / "families_sdca" / "expected.json").read_text())
    return expected, json.loads((root / "out.json").read_text())


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_converged_solution_matches_legacy(converged, kind):
    expected, got = converged
    want, have = expected[kind], got[kind]
    assert want["run_to_run"] < 1e-5  # the golden itself converged
    assert have["variables"] == want["variables"]  # weights, unshrunk copies, state table
    for name, value in want["weights"].items():
        np.testing.assert_allclose(have["weights"][name], value, atol=1e-3, rtol=0, err_msg=name)
    assert set(have["eval_metrics"]) == set(want["eval_metrics"])
    for key, value in want["eval_metrics"].items():
        assert abs(have["eval_metrics"][key] - value) <= 1e-4, key
    np.testing.assert_allclose(have["predictions"], want["predictions"], atol=1e-4, rtol=0)
    assert sorted(have["summary_tags"]) == sorted(want["summary_tags"])
    for tag, value in have["summary_tags"].items():
        if tag.endswith("approximate_duality_gap"):  # converged: the gap closed
            assert abs(value) < 1e-4, tag
        if tag.endswith("examples_seen"):  # one dual per example id in the state table
            assert value == want["summary_tags"][tag] == 64, tag


def _tf():
    from tfport._common.tfenv import import_tf

    return import_tf()


def _estimator(tmp_path, **kwargs):
    import tfport.estimator as est_lib

    tf = _tf()
    sdca = est_lib.experimental.LinearSDCA(
        example_id_column="example_id", symmetric_l2_regularization=2.0
    )
    cols = [tf.feature_column.numeric_column("x")]
    return est_lib.LinearClassifier(cols, str(tmp_path), optimizer=sdca, **kwargs)


def test_missing_example_id_column_is_one_clear_error(tmp_path):
    tf = _tf()
    est = _estimator(tmp_path)

    def input_fn():
        x = np.arange(4, dtype="float32")
        return tf.data.Dataset.from_tensor_slices(({"x": x}, np.zeros(4, "int64"))).batch(4)

    with pytest.raises(TfportInputError) as err:
        est.train(input_fn, steps=1)
    text = str(err.value)
    assert "\n" not in text
    assert "example id column 'example_id'" in text


@pytest.mark.parametrize(
    ("kwargs", "what"),
    [
        ({"n_classes": 3}, "multi-class"),
        ({"sparse_combiner": "mean"}, "sparse_combiner must be 'sum'"),
    ],
)
def test_legacy_refusals_are_one_line(tmp_path, kwargs, what):
    with pytest.raises(TfportInputError) as err:
        _estimator(tmp_path, **kwargs)
    assert "\n" not in str(err.value)
    assert what in str(err.value)


@pytest.mark.slow
def test_sdca_refuses_replicas_with_one_line(tmp_path):
    script = tmp_path / "sdca_mirrored.py"
    script.write_text(
        "import tensorflow as tf\n"
        "sdca = tf.estimator.experimental.LinearSDCA(example_id_column='example_id')\n"
        "tf.estimator.LinearRegressor([tf.feature_column.numeric_column('x')],\n"
        f"                             {str(tmp_path / 'm')!r}, optimizer=sdca)\n"
    )
    proc = tfport_run("--strategy", "mirrored:2", str(script))
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "LinearSDCA runs on one" in line]
    assert len(lines) == 1, proc.stderr[-2000:]
    assert "replicas=2" in lines[0]
