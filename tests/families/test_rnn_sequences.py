"""`RNNClassifier(return_sequences=True)`: one prediction per step, against the legacy golden.

The `families_rnn_seq` case (legacy/scripts/families_rnn_seq.py: a label and a weight per
step, sequences of 1 to 5 steps) resumes from the legacy step-0 checkpoint under
`tfport run`, once on one device and once on `--strategy mirrored:2` (one subprocess
each), and must give the legacy step-40 variables, evaluation metrics and per-step
predictions (with the sequence mask): within 1e-5 on one device, 1e-4 on two replicas.
Two replicas see halves of a global batch with different numbers of valid steps, so each
replica's mean loss over its own steps must be weighted by its share of the steps.

The public interface of `SequentialHeadWrapper` (`loss`, `update_metrics`, `predictions`
through the legacy `head.sequential_head` path) runs in-process on the fixed numbers of
the `families_seq_head` golden (the same function, run eagerly on the legacy stack).
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from conftest import ATOL, HERE, compare, tfport_run
from tfport._common.errors import TfportInputError

CASE = "families_rnn_seq"
REPLICAS_ATOL = 1e-4  # N replicas vs one device, from a common step-0 checkpoint
# strategy -> (tfport run options, steps per session.run of each run in its process)
STRATEGIES = {"one_device": ((), (1,)), "mirrored_2": (("--strategy", "mirrored:2"), (1, 4))}


@pytest.fixture(scope="module", params=sorted(STRATEGIES))
def runs(request, goldens, tmp_path_factory):
    """(strategy, [(model_dir, out) per loop]): the case from the legacy step-0 checkpoint.

    One subprocess per strategy; on two replicas also with 4 steps per loop (the model
    step, and the replicas' all-reduce of their valid steps, inside the engine's loop).
    """
    options, loops = STRATEGIES[request.param]
    root = tmp_path_factory.mktemp(request.param)
    jobs, dirs = [], []
    for loop in loops:
        where = root / f"loop{loop}"
        model_dir = compare.step0_copy(goldens / CASE, where)
        dirs.append((model_dir, where / "out.json"))
        jobs.append(f"{CASE},{model_dir},{where / 'out.json'},{loop}")
    script = HERE / "run_cases_with_loops.py"
    proc = tfport_run(*options, str(script), "families_rnn_seq", *jobs)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return request.param, [(d, json.loads(out.read_text())) for d, out in dirs]


def _by_key(predictions: list) -> dict:
    return {key: [p[key] for p in predictions] for key in predictions[0]}


def test_sequential_rnn_gives_the_legacy_numbers(runs, goldens):
    strategy, results = runs
    atol = ATOL if strategy == "one_device" else REPLICAS_ATOL
    want = json.loads((goldens / CASE / "expected.json").read_text())
    for model_dir, out in results:
        _check(model_dir, out, want, goldens, atol)


def _check(model_dir, out, want, goldens, atol):
    assert out["variables"] == want["variables"]
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"), str(goldens / CASE / "model_dir" / "model.ckpt-40"), atol
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= atol
    got, expected = _by_key(out["predictions"]), _by_key(want["predictions"])
    assert got["sequence_mask"] == expected["sequence_mask"]
    assert compare.excess(got, expected) <= atol


def test_replica_halves_hold_different_numbers_of_steps(goldens):
    cases = compare.load_script(goldens.parent, CASE)
    features, labels = cases._sequences()
    steps = (features["price"] != cases.PAD).sum(1)
    half = cases.BATCH // 2
    batches = [steps[i : i + cases.BATCH] for i in range(0, len(steps), cases.BATCH)]
    assert all(b.max() == cases.MAX_LEN for b in batches)  # legacy: mask = padded length
    assert any(b[:half].sum() != b[half:].sum() for b in batches)
    assert any(b[half:].max() < cases.MAX_LEN for b in batches)
    assert labels.shape == features["w"].shape == (len(steps), cases.MAX_LEN)


def _columns():
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    return tf, [tf.feature_column.sequence_numeric_column("price")]


def test_return_sequences_refuses_a_weight_feature_column():
    from tfport.estimator import experimental

    tf, columns = _columns()
    with pytest.raises(TfportInputError) as err:
        experimental.RNNClassifier(
            columns,
            units=[4],
            return_sequences=True,
            weight_column=tf.feature_column.numeric_column("w"),
        )
    assert isinstance(err.value, TypeError)  # as legacy
    text = str(err.value)
    assert "\n" not in text
    assert "must be given as feature names (strings)" in text
    assert "Received: feature_columns='NumericColumn'" in text


def test_rnn_estimator_with_return_sequences_needs_a_sequential_head():
    import tfport.estimator as est
    from tfport.estimator import experimental

    _, columns = _columns()
    with pytest.raises(TfportInputError) as err:
        experimental.RNNEstimator(est.BinaryClassHead(), columns, units=[4], return_sequences=True)
    text = str(err.value)
    assert "\n" not in text
    assert "needs a sequential head" in text
    assert "Received: head='BinaryClassHead', return_sequences=True" in text


def test_legacy_sequential_head_path_wraps_a_head_for_rnn_estimator():
    import tfport
    import tfport.estimator as est
    from tfport.estimator import experimental

    tfport.install()
    from tensorflow_estimator.python.estimator.head import sequential_head

    _, columns = _columns()
    head = sequential_head.SequentialHeadWrapper(
        est.BinaryClassHead(weight_column="w"), "mask", feature_columns="w"
    )
    assert isinstance(head, sequential_head._SequentialHead)
    assert head.input_sequence_mask_key == "mask"
    assert head.logits_dimension == 1
    experimental.RNNEstimator(head, columns, units=[4], return_sequences=True)
    with pytest.raises(TfportInputError, match="MultiHead is not supported"):
        sequential_head.SequentialHeadWrapper(
            est.MultiHead([est.BinaryClassHead(name="a"), est.RegressionHead(name="b")])
        )


def test_flattening_keeps_the_valid_steps_only():
    from tfport.estimator._heads import sequential

    tf, _ = _columns()
    mask = tf.constant([[True, True, False], [True, False, False]])
    logits = tf.reshape(tf.range(6, dtype=tf.float32), [2, 3, 1])
    flat = sequential._flatten(tf, logits, mask, tf.constant(3), "logits")
    np.testing.assert_array_equal(np.asarray(flat), [[0.0], [1.0], [3.0]])


@pytest.fixture(scope="module")
def head_numbers(goldens):
    """(tfport's, legacy's) numbers of the sequential head's interface (eager, in-process)."""
    import tfport

    tfport.install()
    cases = compare.load_script(goldens.parent, CASE)
    want = json.loads((goldens / "families_seq_head" / "expected.json").read_text())
    return cases.seq_head_numbers(), want


@pytest.mark.parametrize("kind", ["binary", "multi_class"])
def test_sequential_head_interface_gives_the_legacy_numbers(kind, head_numbers):
    got, want = (numbers[kind] for numbers in head_numbers)
    assert (got["name"], got["logits_dimension"]) == (want["name"], want["logits_dimension"])
    assert abs(got["loss"] - want["loss"]) <= ATOL
    assert compare.excess(got["predictions"], want["predictions"]) <= ATOL
    assert set(got["metrics"]) <= set(want["metrics"])
    shared = {key: want["metrics"][key] for key in got["metrics"]}
    assert compare.excess(got["metrics"], shared) <= ATOL
    assert {"accuracy", "average_loss"} <= {key.split("/")[0] for key in got["metrics"]}


def test_binary_sequential_head_updates_every_legacy_metric(head_numbers):
    got, want = (numbers["binary"] for numbers in head_numbers)
    assert set(got["metrics"]) == set(want["metrics"])


def test_return_sequences_export_serves_what_legacy_served(goldens, tmp_path):
    """The legacy 2-step checkpoint exported under tfport: same signatures, same outputs."""
    import tfport

    tfport.install()
    cases = compare.load_script(goldens.parent, CASE)
    golden = goldens / "families_rnn_seq_export"
    model_dir = tmp_path / "model_dir"
    shutil.copytree(golden / "model_dir", model_dir)
    got = cases.export_numbers(str(model_dir), str(tmp_path / "export"))
    want = json.loads((golden / "expected.json").read_text())
    assert sorted(got) == sorted(want)
    for name in want:
        if name != "served":
            assert got[name] == want[name], name
    assert sorted(got["served"]) == sorted(want["served"])
    assert compare.excess(got["served"], want["served"]) <= ATOL
