"""Issue 41: legacy TPUEstimator's TPU computation internals behave as on TF 2.15
(legacy/goldens/private_tpu_computation, made by legacy/scripts/private_tpu_computation.py):
`_OutfeedHostCall` (validation, host calls run off a TPU, outfeed ops built),
`_OutfeedHostCallHook`, `_ModelFnWrapper`, the TPU programs built in a graph, the
inference computation, and `_tpu_estimator_embedding`'s tables and slot variable names.
Each input returns what legacy returned or raises the same kind of exception; where both
raise a builtin exception, with legacy's message (object addresses aside)."""

from __future__ import annotations

import pytest
from tests.api import golden_values

GOLDEN = golden_values.golden("private_tpu_computation")
SCRIPT = golden_values.script("private_tpu_computation")
recorded = golden_values.recorded_fixture(SCRIPT, as_json=True)


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GOLDEN))
def test_tpu_computation_internals_behave_as_on_tf_2_15(recorded, group):
    got = recorded[group]
    assert sorted(got) == sorted(GOLDEN[group])
    assert golden_values.differ(got, GOLDEN[group]) == {}


def test_augmented_model_fn_and_inference_call_complete_params_as_tpu_estimator():
    import tensorflow as tf

    from tfport.estimator._engine.api.tpu_spec import TPUEstimatorSpec
    from tfport.estimator._tpu.tpu_estimator import TPUEstimator

    seen: dict = {}

    def model_fn(features, labels, mode, params):
        seen.clear()
        seen.update(params)
        return TPUEstimatorSpec(mode, predictions={"p": features["x"] * 2.0})

    est = TPUEstimator(model_fn, use_tpu=False, predict_batch_size=8, params={"k": 1})
    with tf.Graph().as_default():
        spec = est._augment_model_fn(model_fn, None)(
            {"x": tf.ones([8, 3])}, None, "infer", est.config, {"k": 1}
        )
        assert (type(spec).__name__, sorted(seen)) == (
            "EstimatorSpec",
            ["batch_size", "k", "use_tpu"],
        )
        assert seen["batch_size"] == 8 and seen["use_tpu"] is False
        spec = est._call_model_fn_for_inference(
            {"x": tf.ones([8, 3])}, None, "_inference_on_tpu", est.config
        )
        assert (sorted(seen), seen["use_tpu"], sorted(spec.predictions)) == (
            ["k", "use_tpu"],
            True,
            ["p"],
        )
    with pytest.raises(ValueError, match="mode must be _inference_on_tpu; got infer"):
        est._call_model_fn_for_inference({}, None, "infer", est.config)
    with pytest.raises(ValueError, match="batch_axis"):
        est._augment_model_fn(model_fn, {"x": 1})
