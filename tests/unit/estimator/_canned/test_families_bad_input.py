"""Bad input to the families: one clear TfportInputError each."""

from __future__ import annotations

import numpy as np
import pytest

from tfport._common.errors import TfportInputError


def _tf():
    from tfport._common.tfenv import import_tf

    return import_tf()


def _one_line(err: pytest.ExceptionInfo) -> str:
    text = str(err.value)
    assert "\n" not in text
    return text


def test_sequence_column_fed_to_a_dnn_estimator(tmp_path):
    import tfport.estimator as est_lib

    tf = _tf()
    column = tf.feature_column.sequence_numeric_column("p")
    est = est_lib.DNNClassifier([2], [column], str(tmp_path))
    dense = tf.sparse.from_dense
    values = np.ones((4, 3), "float32")

    def input_fn():
        ds = tf.data.Dataset.from_tensor_slices(({"p": values}, np.zeros(4, "int64")))
        return ds.batch(2).map(lambda f, y: ({"p": dense(f["p"])}, y))

    with pytest.raises(TfportInputError) as err:
        est.train(input_fn, steps=1)
    assert "'p' is a sequence column" in _one_line(err)
    assert "RNNClassifier" in str(err.value)


def test_rnn_refuses_a_non_sequence_column():
    from tfport.estimator import experimental

    tf = _tf()
    with pytest.raises(TfportInputError) as err:
        experimental.RNNClassifier([tf.feature_column.numeric_column("x")], units=[4])
    assert "must be sequence columns; 'x' is not" in _one_line(err)


def test_rnn_refuses_rnn_cell_fn_with_units():
    from tfport.estimator import experimental

    tf = _tf()
    column = tf.feature_column.sequence_numeric_column("p")
    with pytest.raises(TfportInputError) as err:
        experimental.RNNEstimator(
            experimental_head(), [column], units=[4], rnn_cell_fn=lambda: None
        )
    assert "must not be specified when using rnn_cell_fn" in _one_line(err)


def experimental_head():
    import tfport.estimator as est_lib

    return est_lib.RegressionHead()


@pytest.mark.parametrize("init", ["random", "kmeans_plus_plus"])
def test_kmeans_with_more_clusters_than_points(tmp_path, init):
    from tfport.estimator import experimental_v1

    tf = _tf()
    points = np.arange(8, dtype="float32").reshape(4, 2)
    km = experimental_v1.KMeans(num_clusters=6, initial_clusters=init, model_dir=str(tmp_path))
    with pytest.raises(TfportInputError) as err:
        km.train(lambda: tf.data.Dataset.from_tensor_slices({"p": points}).batch(4), steps=1)
    text = _one_line(err)
    assert "num_clusters is larger than the number of input points" in text
    assert "num_clusters=6" in text


def test_kmeans_refuses_an_unknown_metric():
    from tfport.estimator import experimental_v1

    with pytest.raises(TfportInputError) as err:
        experimental_v1.KMeans(num_clusters=2, distance_metric="manhattan")
    assert "distance_metric='manhattan'" in _one_line(err)
