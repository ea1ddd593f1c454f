"""Issue 41, Build 2: TensorFlow 2.15's own Estimator glue outside the estimator package,
gone from TF 2.21, importable after `tfport.install()` with legacy's names and signatures:
`tensorflow.python.distribute.estimator_training` (libraries building their own
`train_and_evaluate`, RunConfig subclasses) and the `tensorflow.python.tpu.*` stubs of the
TPU modules; values against TF 2.15 (legacy/goldens/library_glue, made by
legacy/scripts/library_glue.py)."""

from __future__ import annotations

import importlib
import json
import pathlib
import subprocess
import sys
import textwrap

import pytest
from tests.api import module_walk
from tests.legacy import compare

LEGACY = pathlib.Path(__file__).parents[2] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/library_glue/values.json").read_text())
SCRIPT = compare.load_script_installed(LEGACY, "library_glue")


@pytest.fixture(scope="module")
def installed():
    import tfport

    tfport.install()


def test_estimator_training_imports_with_legacy_signatures(installed):
    from tensorflow.python.distribute import estimator_training

    for name, text in GOLDEN["signatures"].items():
        got = module_walk.actual_signature(getattr(estimator_training, name))
        assert module_walk.compare(module_walk.parse_signature(text), got) == [], name
    module = importlib.import_module("tensorflow.python.distribute.estimator_training")
    assert module is estimator_training


def test_estimator_training_computes_what_legacy_computed(installed):
    assert SCRIPT.values() == GOLDEN["values"]


@pytest.mark.parametrize("stub", sorted(GOLDEN["stub_names"]))
def test_every_name_of_the_tpu_stubs_resolves(installed, stub):
    module = importlib.import_module(f"tensorflow.python.tpu.{stub}")
    missing = [n for n in GOLDEN["stub_names"][stub] if not hasattr(module, n)]
    assert missing == []


def test_the_standalone_client_mode_is_refused_with_one_line(installed):
    import tensorflow as tf
    from tensorflow.python.distribute import estimator_training

    from tfport._common.errors import TfportInputError

    est = tf.estimator.Estimator(lambda features, labels, mode: None)
    est._config._distribute_coordinator_mode = "standalone_client"
    est._config._cluster_spec = {"worker": ["localhost:1"]}
    for call in (
        lambda: estimator_training.train_and_evaluate(est, None, None, None),
        lambda: estimator_training.estimator_train(est, None, []),
    ):
        with pytest.raises(TfportInputError) as info:
            call()
        assert "\n" not in str(info.value) and "STANDALONE_CLIENT" in str(info.value)
        assert str(info.value).endswith("Received: mode='standalone_client'")


@pytest.mark.slow
def test_uninstall_takes_the_glue_modules_away():
    code = textwrap.dedent(
        """
        import sys
        import tfport
        import tensorflow.python.distribute as dist
        handle = tfport.install()
        from tensorflow.python.distribute import estimator_training
        tfport.uninstall()
        print("tensorflow.python.distribute.estimator_training" in sys.modules,
              hasattr(dist, "estimator_training"))
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.split()[-2:] == ["False", "False"]


def test_the_tpu_estimator_module_helpers_a_library_imports(installed):
    import tensorflow as tf
    from tensorflow.python.tpu import tpu_estimator as stub

    export = tf.estimator.export
    with tf.Graph().as_default() as graph:
        scores, classes = tf.zeros([2, 3]), tf.constant([["a"] * 3] * 2)
        pair = stub._export_output_to_tensors(export.ClassificationOutput(scores, classes))
        assert pair == [scores, classes]
        clone = stub._clone_export_output_with_tensors(
            export.ClassificationOutput(scores, classes), [scores * 2, classes]
        )
        assert isinstance(clone, export.ClassificationOutput) and clone.scores is not scores
        predict = export.PredictOutput({"b": scores, "a": classes})
        assert stub._export_output_to_tensors(predict) == [scores, classes]
        clone = stub._clone_export_output_with_tensors(predict, [classes, scores])
        assert clone.outputs["b"] is classes and clone.outputs["a"] is scores
        with pytest.raises(ValueError, match="length 1"):
            stub._clone_export_output_with_tensors(export.RegressionOutput(scores[:, 0]), [])
        with pytest.raises(ValueError, match="must be have type"):
            stub._export_output_to_tensors("not an output")
        step = stub._create_global_step(graph)
        assert step.dtype.base_dtype == tf.int64 and "Var" in step.op.type
        assert tf.compat.v1.train.get_global_step() is step
        with pytest.raises(ValueError, match="already exists"):
            stub._create_global_step(None)
    assert stub._TPU_TRAIN_OP == "_tpu_train_op" and stub._ITERATIONS_PER_LOOP_VAR == (
        "iterations_per_loop"
    )
