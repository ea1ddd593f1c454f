"""Units of the console: the stderr noise patterns, the progress line, the canned checks."""

from __future__ import annotations

import pytest

from tfport._common import tfenv

CPP = [
    "I0000 00:00:1796232331.337541   22505 cudart_stub.cc:31] Could not find cuda drivers on "
    "your machine, GPU will not be used.",
    "I0000 00:00:1796232331.989600   23911 cpu_feature_guard.cc:227] This TensorFlow binary is "
    "optimized to use available CPU instructions in performance-critical operations.",
    "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR",
    "To enable the following instructions: AVX2 FMA, in other operations, rebuild TensorFlow "
    "with the appropriate compiler flags.",
]
USER = [
    "I1202 17:25:51.076042 139753848880000 mnist.py:7] Prediction is 3",
    "I1202 17:25:51.076042 139753848880000 <string>:7] Evaluation results: 0.9",
    "I0000 00:00:1796232331.337541   22505 mnist.py:31] Could not find cuda drivers on your "
    "machine, GPU will not be used.",
    "INFO:tensorflow:loss = 0.5, step = 10",
    "I1202 17:25:51.076042 139 port.py:3] oneDNN custom operations are on. mine",
    "E1202 17:25:51.076042 139 train.py:3] failed call to cuInit: my own error text",
    "Prediction is 3",
]


@pytest.mark.parametrize("line", CPP)
def test_listed_cpp_startup_lines_are_noise(line):
    assert tfenv._NOISE.match(line)


@pytest.mark.parametrize("line", USER)
def test_user_lines_are_never_noise(line):
    assert not tfenv._NOISE.match(line)
    assert not tfenv._NO_GPU.match(line)


def test_progress_line_text_and_default_off():
    from tfport.estimator._engine.running import console

    assert tfenv.progress_stream() is None
    assert console.progress_hook(None, None, 100) is None
    text = console.progress_text(60, 0.5, 10, 0.0, 10.0, 110)
    assert text == "tfport: step 60/110  loss 0.5  5.0 steps/s  ETA 10s"
    assert "ETA" not in console.progress_text(5, 1.0, 0, 0.0, 1.0, None)


def _check(feature, column):
    from tfport._common.errors import TfportInputError
    from tfport.estimator._canned import checks

    try:
        checks.check_features({"a": feature, "b": feature}, [column], "Test")
    except TfportInputError as err:
        return str(err)
    return "ok"


def test_checks_accept_and_refuse_what_legacy_feature_columns_did():
    # Measured on TF 2.15 + tensorflow-estimator 2.15 (input_layer / linear_model).
    tf = tfenv.import_tf()
    fc = tf.feature_column
    f64 = tf.constant([[1.0], [2.0]], tf.float64)
    i64 = tf.constant([[1], [2]], tf.int64)
    s = tf.constant([["x"], ["y"]])
    assert _check(f64, fc.crossed_column(["a", "b"], 10)) == "ok"
    assert _check(i64, fc.crossed_column(["a", "b"], 10)) == "ok"
    bucket = fc.bucketized_column(fc.numeric_column("a"), [0.0])
    assert _check(i64, fc.crossed_column([bucket, "b"], 10)) == "ok"
    assert _check(i64, fc.numeric_column("a")) == "ok"
    assert _check(f64, fc.numeric_column("a", dtype=tf.int64)) == "ok"
    assert "needs a numeric dtype" in _check(s, fc.numeric_column("a"))
    assert "needs a numeric dtype" in _check(s, fc.crossed_column([bucket, "b"], 10))
    assert "needs string" in _check(i64, fc.categorical_column_with_hash_bucket("a", 10))
    assert "needs string" in _check(f64, fc.categorical_column_with_vocabulary_list("a", ["x"]))
    assert "needs int64" in _check(f64, fc.categorical_column_with_identity("a", 10))
    assert "needs int64" in _check(s, fc.categorical_column_with_vocabulary_list("a", [1, 2]))
