"""How a global batch is split across replicas (issue 36).

Every row goes to exactly one replica, in order, as evenly as the batch allows: a
finite dataset's short last batch (24 rows on 2 replicas) must not become 24 + 0, which
made a v1 `linear_model` fail on the empty replica (`SparseReshape` cannot infer a size
for an empty tensor), and an odd one (7 rows) must not lose a row.
"""

from __future__ import annotations

import types

import numpy as np
import tensorflow as tf
from hypothesis import given, settings
from hypothesis import strategies as st

from tfport.estimator._engine.building import inputs


def _rows(batch: int, replicas: int) -> list[list[int]]:
    t = tf.range(batch)
    return [inputs._slice(tf, t, i, replicas).numpy().tolist() for i in range(replicas)]


@settings(max_examples=40, deadline=None)
@given(batch=st.integers(0, 40), replicas=st.integers(1, 8))
def test_every_row_goes_to_one_replica_in_order_as_evenly_as_it_can(batch, replicas):
    parts = _rows(batch, replicas)
    assert sum(parts, []) == list(range(batch))
    sizes = [len(p) for p in parts]
    assert max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_a_short_batch_splits_evenly_and_a_sparse_batch_keeps_its_columns():
    assert _rows(24, 2) == [list(range(12)), list(range(12, 24))]
    assert [len(p) for p in _rows(7, 2)] == [4, 3]
    sparse = tf.sparse.from_dense(np.arange(1, 22).reshape(7, 3))
    halves = [inputs._slice(tf, sparse, i, 2) for i in range(2)]
    assert [h.dense_shape.numpy().tolist() for h in halves] == [[4, 3], [3, 3]]
    np.testing.assert_array_equal(tf.sparse.to_dense(halves[1]), np.arange(13, 22).reshape(3, 3))


def test_a_static_batch_that_divides_keeps_a_static_replica_shape():
    t = tf.zeros([10, 3])
    assert inputs._slice(tf, t, 1, 2).shape.as_list() == [5, 3]


def test_a_dataset_becomes_each_replicas_slice_of_every_global_batch_in_turn():
    strategy = types.SimpleNamespace(num_replicas_in_sync=2, extended=object())
    x = np.arange(37, dtype="float32")
    dataset = tf.data.Dataset.from_tensor_slices(({"x": x}, x * 10)).batch(10)
    elements = list(inputs._replica_slices(tf, dataset, strategy)(None))
    sizes = [len(labels) for _, labels in elements]
    assert sizes == [5, 5, 5, 5, 5, 5, 4, 3]  # the last batch of 7: replica 0 gets 4
    rows = np.concatenate([features["x"].numpy() for features, _ in elements])
    np.testing.assert_array_equal(rows, x)
