"""The export's own check: predictions compared float by float, what was checked named."""

from __future__ import annotations

import numpy as np
import pytest

from tfport._common.errors import TfportInputError
from tfport.keras._modelfn import _check


def test_floats_within_tolerance_pass_and_the_worst_difference_is_kept():
    want = {"p": np.array([[0.25, 0.75]], np.float32), "ids": np.array([1])}
    got = {"p": want["p"] + np.float32(3e-6), "ids": np.array([0])}  # ids: floats decide
    result = _check._compare(want, got, "tensorflow")
    assert result["rows"] == _check.ROWS
    assert 2e-6 < result["max_abs_diff"] < 4e-6


@pytest.mark.parametrize(
    ("got", "said"),
    [
        ({"p": np.array([[0.25, 0.7501]])}, "a max difference of 0.0001"),
        ({"p": np.array([0.25, 0.75])}, "shape (2,)"),
        ({}, "shape None"),
    ],
)
def test_a_difference_is_one_line_naming_the_prediction_and_backend(got, said):
    want = {"p": np.array([[0.25, 0.75]], np.float32)}
    with pytest.raises(TfportInputError) as err:
        _check._compare(want, got, "jax")
    text = str(err.value)
    assert "\n" not in text and said in text and "'p'" in text and "on jax" in text


def test_backends_are_named_and_checked_before_anything_runs():
    assert _check.known_backends(["tensorflow", "jax"]) == ("tensorflow", "jax")
    for bad in (["torch"], []):
        with pytest.raises(TfportInputError, match="Unknown backend"):
            _check.known_backends(bad)
    line = _check.docstring_line(
        {"tensorflow": {"max_abs_diff": 1.2e-7, "rows": 16}, "jax": {"skipped": "needs TF"}}
    )
    assert line == "Checked at export on 16 generated rows: tensorflow (max difference 1.2e-07)."
