"""Canned estimators -> Keras 3: same predictions after a save/load round trip in a
process that never imports tfport (every family, v1 and v2, every feature column kind)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import tfport

tfport.install()

import tensorflow as tf  # noqa: E402
import way_out_cases as cases  # noqa: E402

from tfport.keras import estimator_to_keras, save_keras  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent
ALL = sorted(cases.GOLDENS) + sorted(cases.TRAINED)


def _estimator(name: str, goldens: pathlib.Path, root: pathlib.Path):
    model_dir = root / name
    if name in cases.GOLDENS:
        shutil.copytree(goldens / name / "model_dir", model_dir)
        return cases.GOLDENS[name](str(model_dir))
    factory, label_kind, steps = cases.TRAINED[name]
    estimator = factory(str(model_dir))
    cases.train(estimator, label_kind, steps)
    return estimator


@pytest.fixture(scope="module")
def round_trip(goldens, tmp_path_factory):
    """{case: (estimator predictions, plain-Keras predictions, the model's output names)}."""
    root = tmp_path_factory.mktemp("way_out")
    feats = cases.with_x0(cases.features(0))
    np.savez(root / "inputs.npz", **feats)
    want, paths, names = {}, [], {}
    for name in ALL:
        estimator = _estimator(name, goldens, root)
        want[name] = cases.predict(estimator, feats)
        model = estimator_to_keras(estimator)
        names[name] = sorted(model.output.keys()) if isinstance(model.output, dict) else None
        paths.append(save_keras(model, str(root / f"{name}.keras")))
    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    out = root / "out"
    out.mkdir()
    proc = subprocess.run(
        [sys.executable, str(HERE / "plain_keras.py"), str(root / "inputs.npz"), str(out), *paths],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = {name: dict(np.load(out / f"{name}.npz", allow_pickle=True)) for name in ALL}
    return {name: (want[name], got[name], names[name]) for name in ALL}


def _max_diff(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    if a.dtype.kind in "fc":
        return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64))))
    as_text = lambda v: np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else str(s))(v)  # noqa: E731
    return 0.0 if (as_text(a) == as_text(b)).all() else float("inf")


@pytest.mark.slow
@pytest.mark.parametrize("name", ALL)
def test_plain_keras_predictions_equal_the_estimators(round_trip, name):
    want, got, names = round_trip[name]
    assert sorted(got) == sorted(want) == names
    worst = max(_max_diff(want[key], got[key]) for key in want)
    print(f"{name}: max prediction difference after the round trip {worst:.3g}")
    for key in want:
        assert _max_diff(want[key], got[key]) <= 1e-5, (name, key)
    logits = want.get("logits", want.get("predictions"))
    assert np.abs(logits).max() > 1e-3  # the checkpoint's weights, not an all-zero model


@pytest.mark.slow
def test_multivalent_pad_and_oov_values_matter(round_trip):
    # The rows holding pad / OOV values differ from each other: the test data reach them.
    want, _, _ = round_trip["linear_columns_v2"]
    assert len({tuple(np.round(r, 5)) for r in want["logits"]}) == cases.ROWS


def test_a_custom_model_fn_estimator_is_refused(tmp_path):
    def model_fn(features, labels, mode):  # pragma: no cover - never called
        raise AssertionError

    estimator = tf.estimator.Estimator(model_fn, model_dir=str(tmp_path))
    with pytest.raises(ValueError) as err:
        estimator_to_keras(estimator)
    text = str(err.value)
    assert "Only canned estimators convert" in text and "DNNLinearCombined*" in text
    assert "tfport ckpt port" in text and "\n" not in text


def test_a_normalizer_fn_and_an_unsupported_column_are_named(tmp_path):
    column = tf.feature_column.numeric_column("x", normalizer_fn=lambda v: v - 1.0)
    estimator = tf.estimator.LinearRegressor([column], model_dir=str(tmp_path))
    with pytest.raises(ValueError, match=r"'x' \(NumericColumn\) is not supported .*normalizer_fn"):
        estimator_to_keras(estimator)
    seq = tf.feature_column.sequence_categorical_column_with_identity("s", 3)
    estimator = tf.estimator.LinearRegressor([seq], model_dir=str(tmp_path / "b"))
    with pytest.raises(ValueError, match=r"'s' \(SequenceCategoricalColumn\) is not supported"):
        estimator_to_keras(estimator)
