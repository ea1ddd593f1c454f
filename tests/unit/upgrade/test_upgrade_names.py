"""Canonical names: what a dotted expression refers to, whatever the file's aliases."""

from __future__ import annotations

import libcst as cst
import pytest

from tfport.upgrade._estimator import match
from tfport.upgrade._names import collect_aliases


@pytest.mark.parametrize(
    "source,expr,canonical",
    [
        ("import tensorflow as tf", "tf.estimator.Estimator", "tf.estimator.Estimator"),
        ("import tensorflow", "tensorflow.layers.dense", "tf.layers.dense"),
        ("import tensorflow.compat.v1 as tf", "tf.estimator.X", "tf.compat.v1.estimator.X"),
        ("import tensorflow.compat.v1 as tf", "tf.compat.v2.estimator", "tf.compat.v2.estimator"),
        ("from tensorflow.compat import v1", "v1.layers.dense", "tf.compat.v1.layers.dense"),
        ("import tensorflow as tf\nv1 = tf.compat.v1", "v1.tpu.X", "tf.compat.v1.tpu.X"),
        ("from tensorflow.contrib import tpu as t", "t.TPUConfig", "tf.contrib.tpu.TPUConfig"),
        ("import numpy as tf", "tf.estimator", None),
        ("import tensorflow as tf", "np.estimator", None),
    ],
    ids=["plain", "no_alias", "compat_v1", "nested_compat", "from_compat", "assigned",
         "from_contrib", "not_tf", "unbound"],
)  # fmt: skip
def test_canonical(source: str, expr: str, canonical: str | None) -> None:
    aliases = collect_aliases(cst.parse_module(source + "\n"))
    assert aliases.canonical(cst.parse_expression(expr)) == canonical


@pytest.mark.parametrize(
    "canonical,target",
    [
        ("tf.estimator.ModeKeys.TRAIN", "tfport.estimator.ModeKeys.TRAIN"),
        ("tf.compat.v1.estimator.DNNClassifier", "tfport.estimator.v1.DNNClassifier"),
        ("tf.compat.v1.estimator.Estimator", "tfport.estimator.Estimator"),
        ("tf.compat.v1.estimator.tpu.TPUEstimator", "tfport.estimator.tpu.TPUEstimator"),
        ("tf.contrib.tpu.CrossShardOptimizer", "tfport.estimator.tpu.CrossShardOptimizer"),
        ("tf.compat.v1.tpu.CrossShardOptimizer", "tfport.estimator.tpu.CrossShardOptimizer"),
        ("tf.keras.estimator.model_to_estimator", "tfport.keras.model_to_estimator"),
        ("tf.contrib.tpu.bfloat16_scope", None),
        ("tf.compat.v1.tpu.shard", None),
        ("tf.estimatorx", None),
    ],
)
def test_rules(canonical: str, target: str | None) -> None:
    found = match(canonical)
    assert (found[1] if found else None) == target


def test_imports_inside_functions_count_but_assignments_there_do_not() -> None:
    source = "def f():\n    import tensorflow.compat.v1 as tf1\n    v = tf1.compat.v1\n"
    names = collect_aliases(cst.parse_module(source)).names
    assert names == {"tf1": "tf.compat.v1"}
