"""Property tests (hypothesis): whatever the writer writes, the reader reads back exactly."""

from __future__ import annotations

import os
import tempfile

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tfport.checkpoint import CheckpointReader, CheckpointWriter, diff_checkpoints

DTYPES = st.sampled_from(
    [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64, np.uint8,
     np.uint16, np.bool_, np.complex64]
)  # fmt: skip
NAMES = st.text(st.characters(blacklist_categories=("Cs",), min_codepoint=1), min_size=1,
                max_size=20)  # fmt: skip
ARRAYS = DTYPES.flatmap(
    lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5))
)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(st.dictionaries(NAMES, ARRAYS, min_size=1, max_size=6))
def test_numeric_round_trip(tensors):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "m")
        with CheckpointWriter(prefix) as w:
            for name, value in tensors.items():
                w.add(name, value)
        with CheckpointReader(prefix) as r:
            assert r.names() == sorted(tensors)
            for name, value in tensors.items():
                got = r.read(name)
                assert got.dtype == value.dtype and got.shape == value.shape
                assert got.tobytes() == np.ascontiguousarray(value).tobytes()
        assert diff_checkpoints(prefix, prefix)["equal"]


@SETTINGS
@given(st.lists(st.binary(max_size=40), min_size=0, max_size=10))
def test_string_round_trip(items):
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "m")
        value = np.array(items, dtype=object).reshape(len(items))
        with CheckpointWriter(prefix) as w:
            w.add("s", value)
        with CheckpointReader(prefix) as r:
            assert list(r.read("s")) == items


@st.composite
def _partitions(draw):
    rows = draw(st.integers(1, 12))
    cols = draw(st.integers(1, 4))
    cuts = sorted(draw(st.sets(st.integers(1, rows - 1), max_size=4))) if rows > 1 else []
    bounds = [0, *cuts, rows]
    return rows, cols, list(zip(bounds, bounds[1:]))


@SETTINGS
@given(_partitions(), st.booleans())
def test_slices_round_trip_and_overlap_refused(parts, overlap):
    rows, cols, spans = parts
    value = np.arange(rows * cols, dtype=np.float32).reshape(rows, cols)
    pieces = [([(a, b - a), (0, cols)], value[a:b]) for a, b in spans]
    if overlap:
        pieces.append(pieces[0])
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "m")
        with CheckpointWriter(prefix) as w:
            w.add_slices("v", value.shape, pieces if not overlap else pieces[1:] + pieces[:1])
        if overlap:
            try:
                CheckpointReader(prefix)
            except Exception as err:  # noqa: BLE001
                assert "overlap" in str(err)
                return
            raise AssertionError("an overlapping slice was accepted")
        np.testing.assert_array_equal(CheckpointReader(prefix).read("v"), value)
