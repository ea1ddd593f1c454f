"""Small behaviours of the time-series helpers and SavedModelEstimator, as legacy's.

Expected values follow the legacy functions' documented rules (prediction times after
the last filtered time, `model_state_NN` keys, `metrics/<name>/value` +
`metrics/<name>/update_op` pairs), computed here by hand.
"""

from __future__ import annotations

import json

import numpy as np
import pytest


@pytest.fixture(scope="module", autouse=True)
def installed():
    import tfport

    tfport.install()


def test_prediction_times_by_steps_and_by_times():
    from tensorflow_estimator.python.estimator.canned.timeseries import model_utils

    previous = {"times": np.array([[3, 4], [7, 9]])}
    got = model_utils.canonicalize_times_or_steps_from_output(None, 3, previous)
    assert got.tolist() == [[5, 6, 7], [10, 11, 12]]
    times = [[5, 8], [10, 11]]
    got = model_utils.canonicalize_times_or_steps_from_output(times, None, previous)
    assert got.tolist() == times
    with pytest.raises(ValueError, match="must be after"):
        model_utils.canonicalize_times_or_steps_from_output([[4, 5], [10, 11]], None, previous)
    with pytest.raises(ValueError, match="Only one of"):
        model_utils.canonicalize_times_or_steps_from_output(times, 2, previous)


def test_state_flattens_to_numbered_keys():
    from tensorflow_estimator.python.estimator.canned.timeseries import head

    flat = head.state_to_dictionary((1, (2, 3)))
    assert flat == {"model_state_00": 1, "model_state_01": 2, "model_state_02": 3}


def test_numpy_series_get_batch_and_feature_dimensions():
    from tensorflow_estimator.python.estimator.canned.timeseries import saved_model_utils

    features = saved_model_utils._canonicalize_numpy_data(
        {"times": [1, 2, 3], "values": [0.5, 0.6, 0.7]}, require_single_batch=True
    )
    assert features["times"].shape == (1, 3)
    assert features["values"].shape == (1, 3, 1)
    with pytest.raises(ValueError, match="prefixed by the shape of the times"):
        saved_model_utils._canonicalize_numpy_data(
            {"times": [1, 2], "values": [0.5]}, require_single_batch=False
        )


def test_state_managers_refuse_a_passed_state_where_legacy_did():
    from tensorflow_estimator.python.estimator.canned.timeseries import state_management

    with pytest.raises(ValueError, match="not supported for this model"):
        state_management.PassthroughStateManager().define_loss(None, {"start_tuple": ()}, "eval")
    with pytest.raises(ValueError, match="for training is not supported"):
        state_management.FilteringOnlyStateManager().define_loss(None, {"start_tuple": ()}, "train")


def test_eval_metrics_pair_values_with_update_ops():
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator as sme

    outputs = {
        "metrics/auc/value": 1,
        "metrics/auc/update_op": 2,
        "metrics/lonely/value": 3,
        "loss": 4,
        "predictions/x": 5,
    }
    assert sme._extract_eval_metrics(outputs) == {"metrics/auc": (1, 2)}
    loss, predictions, metrics = sme._validate_and_extract_outputs(
        "eval", outputs, "tensorflow/supervised/eval"
    )
    assert (loss, predictions, metrics) == (4, {"predictions/x": 5}, {"metrics/auc": (1, 2)})
    with pytest.raises(RuntimeError, match="Invalid SignatureDef method name"):
        sme._validate_and_extract_outputs("train", outputs, "tensorflow/supervised/eval")


def test_saved_model_estimator_over_the_legacy_export(goldens, tmp_path):
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator as sme

    want = json.loads((goldens / "private_saved_model" / "expected.json").read_text())
    export = goldens / "private_saved_model" / "export" / want["export_dir"]
    est = sme.SavedModelEstimator(str(export), model_dir=str(tmp_path / "m"))
    assert est._available_modes == ["train", "eval", "infer"]
    assert est.latest_checkpoint() == str(export / "variables" / "variables")
    with pytest.raises(ValueError, match="invalid SavedModel format"):
        sme._get_saved_model_ckpt(str(tmp_path))
