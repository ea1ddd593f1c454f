"""`tfport.compat.contrib.layers` pooling honours `data_format` (NCHW pooled per channel)."""

from __future__ import annotations

import numpy as np
import pytest

from tfport.compat.contrib import layers


@pytest.fixture()
def tf():
    from tfport._common.tfenv import import_tf

    v1 = import_tf().compat.v1
    with v1.Graph().as_default():
        yield v1


def _pool_nchw(x: np.ndarray, size: int, reduce) -> np.ndarray:
    """Independent reference: VALID pooling with stride == size over H and W of NCHW."""
    n, c, h, w = x.shape
    blocks = x[:, :, : h // size * size, : w // size * size]
    blocks = blocks.reshape(n, c, h // size, size, w // size, size)
    return reduce(reduce(blocks, axis=5), axis=3)


@pytest.mark.parametrize(
    ("fn", "reduce"),
    [(layers.max_pool2d, np.max), (layers.avg_pool2d, np.mean)],
    ids=["max", "avg"],
)
def test_nchw_inputs_pool_over_height_and_width(tf, fn, reduce) -> None:
    x = np.random.RandomState(0).normal(size=(2, 3, 4, 6)).astype(np.float32)
    y = fn(tf.constant(x), 2, stride=2, data_format="NCHW")
    with tf.Session() as session:
        got = session.run(y)
    np.testing.assert_allclose(got, _pool_nchw(x, 2, reduce), rtol=1e-6)
    assert got.shape == (2, 3, 2, 3)


def test_nhwc_stays_the_default(tf) -> None:
    x = np.random.RandomState(1).normal(size=(1, 4, 4, 2)).astype(np.float32)
    y = layers.max_pool2d(tf.constant(x), 2)
    with tf.Session() as session:
        got = session.run(y)
    expected = _pool_nchw(x.transpose(0, 3, 1, 2), 2, np.max).transpose(0, 2, 3, 1)
    np.testing.assert_allclose(got, expected)


def test_an_unknown_data_format_is_refused(tf) -> None:
    with pytest.raises(ValueError, match="data_format must be 'NHWC' or 'NCHW'"):
        layers.avg_pool2d(tf.zeros([1, 4, 4, 1]), 2, data_format="NDHWC")
