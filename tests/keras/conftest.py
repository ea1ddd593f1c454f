"""Fixtures shared by the Keras tests."""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parent))
import _data  # noqa: E402


@pytest.fixture(scope="module")
def tfport_mod():
    """`tfport`, installed (tf.keras.estimator.model_to_estimator routed to tfport)."""
    import tfport

    tfport.install()
    return tfport


@pytest.fixture(scope="module")
def data():
    """The golden cases' synthetic data."""
    return _data.data()
