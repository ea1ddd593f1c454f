"""The parsing exports of the canned cases serve what the golden exports serve."""

from __future__ import annotations

import numpy as np
import pytest
from canned_helpers import ATOL


def _examples(with_color: bool) -> list:
    import tensorflow as tf

    rng = np.random.RandomState(5)
    out = []
    for i in range(16):
        feature = {
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=rng.normal(size=4).tolist()))
        }
        if with_color:
            color = ["red", "green", "blue", "purple"][i % 4].encode()
            feature["color"] = tf.train.Feature(bytes_list=tf.train.BytesList(value=[color]))
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(example.SerializeToString())
    return out


@pytest.mark.slow
@pytest.mark.parametrize(
    "case,with_color", [("canned_dnn", False), ("canned_dnn_v2", True), ("canned_linear", True)]
)
def test_parsing_export_matches_golden_export(case, with_color, canned_runs, goldens):
    import tensorflow as tf

    work, _, out = canned_runs(case)
    ours = tf.saved_model.load(str(work / "export" / out["export_dir"]))
    theirs = tf.saved_model.load(str(next((goldens / case / "export").iterdir())))
    assert set(ours.signatures) == set(theirs.signatures)
    serialized = tf.constant(_examples(with_color))
    for name, signature in theirs.signatures.items():
        key = next(iter(signature.structured_input_signature[1]))
        want = signature(**{key: serialized})
        got = ours.signatures[name](**{key: serialized})
        assert set(got) == set(want), name
        for output, value in want.items():
            a, b = got[output].numpy(), value.numpy()
            assert a.dtype == b.dtype and a.shape == b.shape, (name, output)
            if a.dtype.kind == "f":
                np.testing.assert_allclose(a, b, atol=ATOL, err_msg=f"{name}/{output}")
            else:
                np.testing.assert_array_equal(a, b, err_msg=f"{name}/{output}")
