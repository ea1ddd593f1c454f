"""Bad input to canned estimators: one clear TfportInputError naming the column / value."""

from __future__ import annotations

import numpy as np
import pytest

from tfport._common.errors import TfportInputError


def _tf():
    from tfport._common.tfenv import import_tf

    return import_tf()


def _input_fn(features, labels):
    tf = _tf()
    return lambda: tf.data.Dataset.from_tensor_slices((features, labels)).batch(2)


def _x(n=4):
    return np.ones((n, 2), "float32")


def _dnn(tmp_path, v2=False, **kwargs):
    import tfport.estimator as _canned
    from tfport.estimator import v1 as _canned_v1

    module = _canned if v2 else _canned_v1
    column = _tf().feature_column.numeric_column("x", shape=(2,))
    return module.DNNClassifier([2], [column], str(tmp_path), **kwargs)


def test_unknown_feature_key_names_column_and_received_keys(tmp_path):
    est = _dnn(tmp_path, n_classes=3)
    with pytest.raises(TfportInputError, match=r"column 'x'.*received_keys=\['z'\]"):
        est.train(_input_fn({"z": _x()}, np.zeros(4, "int64")), steps=1)


def test_wrong_dtype_names_column_and_dtype(tmp_path):
    est = _dnn(tmp_path, n_classes=3)
    strings = np.array([["a", "b"]] * 4)
    with pytest.raises(TfportInputError, match=r"column 'x'.*dtype='string'"):
        est.train(_input_fn({"x": strings}, np.zeros(4, "int64")), steps=1)


def test_categorical_column_wrong_dtype(tmp_path):
    from tfport.estimator import v1 as _canned_v1

    tf = _tf()
    color = tf.feature_column.categorical_column_with_vocabulary_list("color", ["r", "g"])
    est = _canned_v1.LinearClassifier([color], str(tmp_path), n_classes=3)
    with pytest.raises(TfportInputError, match=r"column 'color'.*dtype='int64'"):
        est.train(_input_fn({"color": np.arange(4)}, np.zeros(4, "int64")), steps=1)


@pytest.mark.parametrize("v2", [False, True], ids=["v1", "v2"])
def test_label_outside_n_classes_names_the_label(tmp_path, v2):
    est = _dnn(tmp_path, v2=v2, n_classes=3)
    labels = np.array([0, 1, 2, 7], "int64")
    with pytest.raises(TfportInputError, match=r"n_classes - 1 = 2.*labels=\['7'\]"):
        est.train(_input_fn({"x": _x()}, labels), steps=2)


def test_label_outside_vocabulary_names_the_label(tmp_path):
    est = _dnn(tmp_path, v2=True, n_classes=3, label_vocabulary=["a", "b", "c"])
    labels = np.array(["a", "b", "zebra", "c"])
    with pytest.raises(TfportInputError, match=r"label_vocabulary a, b, c.*labels=\['zebra'\]"):
        est.evaluate(_input_fn({"x": _x()}, labels))


def test_string_labels_without_vocabulary(tmp_path):
    est = _dnn(tmp_path, n_classes=3)
    with pytest.raises(TfportInputError, match="label_vocabulary"):
        est.train(_input_fn({"x": _x()}, np.array(["a", "b", "c", "a"])), steps=1)


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(n_classes=1),
        dict(n_classes=3, loss_reduction="x"),
        dict(n_classes=3, label_vocabulary=["a"]),
    ],
)
def test_bad_constructor_arguments(tmp_path, kwargs):
    with pytest.raises(TfportInputError):
        _dnn(tmp_path, **kwargs)
