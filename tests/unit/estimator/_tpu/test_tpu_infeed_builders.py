"""Issue 27h: legacy `tpu_estimator`'s infeed enqueue builders, built in a graph, against
what they build on the legacy stack (legacy/goldens/tpu_infeed_builders, made by
legacy/scripts/tpu_infeed_builders.py on TF 2.15 with a one-core TPU context): what they
return, the input_fn's deployment, the InfeedEnqueueTuple ops (dtypes, shapes, ordinals),
the recorded structure and the values of the enqueued tensors over successive batches.
"""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest
from tests.legacy import compare

from tfport._common.tfenv import import_tf
from tfport.estimator import tpu as tfport_tpu
from tfport.estimator._tpu import tpu_enqueue
from tfport.estimator._tpu.tpu_context import EmulatedDeployment
from tfport.estimator._tpu.tpu_infeed import iterations_per_loop_variable
from tfport.estimator._tpu.tpu_inputs import (
    InputsStructureRecorder,
    _CapturedObject,
    _Inputs,
    _StopSignals,
)
from tfport.estimator._tpu.tpu_pipeline import _InputPipeline

tf = import_tf()
LEGACY = pathlib.Path(__file__).parents[4] / "legacy"
GOLDEN = json.loads((LEGACY / "goldens/tpu_infeed_builders/values.json").read_text())


# the golden's script as a module (its legacy imports resolve to tfport): the same input_fn,
# data and recording helpers on both stacks
SCRIPT = compare.load_script_installed(LEGACY, "tpu_infeed_builders")


def _call(builder, ctx, input_fn, recorder):
    return SCRIPT._call(tpu_enqueue, builder, ctx, input_fn, recorder)


def _build(builder, mode, kind, batch):
    """The legacy script's case, with tfport's deployment for legacy's one-core context."""
    ctx = EmulatedDeployment(1, batch_size_for_input_fn=batch, mode=mode)
    with tf.Graph().as_default():
        recorder = InputsStructureRecorder()
        return SCRIPT._record(
            lambda input_fn: _call(builder, ctx, input_fn, recorder), recorder, kind, batch
        )


BUILDERS = sorted(case for case in GOLDEN if not case.startswith("pipeline/"))
PIPELINES = sorted(case for case in GOLDEN if case.startswith("pipeline/"))


@pytest.mark.parametrize("case", BUILDERS)
def test_builder_builds_what_legacy_builds(case):
    builder, mode, kind = case.split("/")
    got = _build(builder, mode, kind, 4)
    want = GOLDEN[case]
    assert {k: v for k, v in got.items() if k != "batches"} == {
        k: v for k, v in want.items() if k != "batches"
    }
    assert len(got.get("batches", [])) == len(want.get("batches", []))
    for got_batch, want_batch in zip(got.get("batches", []), want.get("batches", [])):
        if want_batch == "OutOfRangeError":
            assert got_batch == want_batch
            continue
        for g, w in zip(got_batch, want_batch, strict=True):
            np.testing.assert_allclose(np.asarray(g, float), np.asarray(w, float), atol=0)


@pytest.mark.parametrize("case", PIPELINES)
def test_input_pipeline_builds_what_legacy_builds(case):
    _, config_name, mode, kind = case.split("/")
    per_host = 3 if config_name == "per_host_v2" else True  # InputPipelineConfig.PER_HOST_V2
    config = tfport_tpu.RunConfig(
        tpu_config=tfport_tpu.TPUConfig(per_host_input_for_training=per_host)
    )
    ctx = EmulatedDeployment(1, batch_size_for_input_fn=4, mode=mode, config=config)
    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()  # made first, as TPUEstimator does
        iterations_per_loop_variable()
        got = SCRIPT._record_pipeline(lambda fn: _InputPipeline(fn, None, ctx), kind, 4)
    assert got == GOLDEN[case]


class _PerCoreDeployment(EmulatedDeployment):
    """A context asking for per-core input (TPUConfig PER_SHARD_V1 on a TPU system)."""

    def is_input_sharded_per_core(self):
        return True


class _BroadcastDeployment(EmulatedDeployment):
    """A context asking for broadcast input (TPUConfig BROADCAST on a TPU system)."""

    def is_input_broadcast_with_iterators(self):
        return True


@pytest.mark.parametrize(
    ("deployment", "kind", "ordinals", "on_coordinator"),
    [
        (_PerCoreDeployment, "tensors", [0, 1], True),
        (_BroadcastDeployment, "dataset_full", [], False),
    ],
)
def test_input_pipeline_per_core_and_broadcast(deployment, kind, ordinals, on_coordinator):
    ctx = deployment(2, batch_size_for_input_fn=4, mode="train")
    seen = []
    with tf.Graph().as_default():
        tf.compat.v1.train.get_or_create_global_step()
        pipeline = _InputPipeline(SCRIPT._input_fn(kind, 4, seen), None, ctx)
        enqueue_ops, dequeue_fn, hooks, coordinator = (
            pipeline.generate_infeed_enqueue_ops_and_dequeue_fn()
        )
        assert coordinator is on_coordinator and len(enqueue_ops) == 1
        if ordinals:  # per core: the input_fn called once per core, the ops built directly
            assert [op.get_attr("device_ordinal") for op in enqueue_ops[0]] == ordinals
        assert len(seen) == (2 if ordinals else 1)
        features, labels = dequeue_fn().features_and_labels()
        assert sorted(features) == ["ids", "x"] and labels.shape.as_list()[-1] == 1
        assert [type(h).__name__ for h in hooks] == ["MultiHostDatasetInitializerHook"]


def test_per_host_splits_the_batch_among_two_replicas_and_v2_reads_one_per_replica():
    data = SCRIPT._data()
    ctx = EmulatedDeployment(2, batch_size_for_input_fn=4, mode="train")
    with tf.Graph().as_default():
        input_fn = SCRIPT._input_fn("dataset_full", 4, [])  # static shapes, as a TPU needs
        enqueue_fn, queue, init = _call("per_host", ctx, input_fn, InputsStructureRecorder())
        ops = enqueue_fn()
        assert [op.get_attr("device_ordinal") for op in ops] == [0, 1]
        halves = [SCRIPT._run_inputs(op, init)[0] for op in ops]
        assert halves[0][1] == data["x"][:2].tolist() and halves[1][1] == data["x"][2:4].tolist()
        assert queue.get().number_of_shards == 2
    with tf.Graph().as_default():
        enqueue_fn, _, init = _call("per_host_v2", ctx, SCRIPT._input_fn("dataset_full", 2, []),
                                    InputsStructureRecorder())  # fmt: skip
        ops = enqueue_fn()
        assert [op.get_attr("device_ordinal") for op in ops] == [0, 1]
        # one session run reads one batch per replica, replica 0 first
        first = SCRIPT._run_inputs(ops[1], init)[0]
        assert first[1] == data["x"][2:4].tolist()


def test_broadcast_sends_one_batch_to_every_replica_of_two():
    data = SCRIPT._data()
    ctx = EmulatedDeployment(2, batch_size_for_input_fn=4, mode="eval")
    with tf.Graph().as_default():
        enqueue_fn, _, init = _call("broadcast", ctx, SCRIPT._input_fn("dataset_full", 4, []),
                                    InputsStructureRecorder())  # fmt: skip
        ops = enqueue_fn()
        assert [op.get_attr("device_ordinal") for op in ops] == [0, 1]
        assert list(ops[0].inputs) == list(ops[1].inputs)
        assert SCRIPT._run_inputs(ops[0], init)[0][1] == data["x"][:4].tolist()


def test_recorder_round_trips_packed_small_features_and_signals():
    features = {f"s{i}": tf.constant([[float(i)], [i + 0.5]]) for i in range(5)}
    features["wide"] = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    labels = tf.constant([[1], [0]])
    signals = _StopSignals(stop=True, batch_size=2).as_dict()
    recorder = InputsStructureRecorder()
    recorder.validate_and_record_structure(dict(features), labels)
    flat = recorder.flatten_features_and_labels(dict(features), labels, signals)
    assert len(flat) == 4  # the five [2, 1] features packed into one tensor
    restored = recorder.unflatten_features_and_labels(flat)
    assert sorted(restored.features_and_labels()[0]) == sorted(features)
    for key, value in features.items():
        assert restored.features_and_labels()[0][key].numpy().tolist() == value.numpy().tolist()
    assert bool(_StopSignals.should_stop(restored.signals()["stopping"][0][0]))
    assert recorder.has_labels() and recorder.flattened_input_dims is None


def test_recorder_partition_dims_and_captured_object():
    recorder = InputsStructureRecorder([{"a": [1, 2], "b": None}, None])
    recorder.validate_and_record_structure({"a": 1, "b": 2}, tf.constant([1]))
    assert recorder.flattened_input_dims == [[1, 2], None, None]
    with pytest.raises(ValueError, match="mismatched feature keys"):
        InputsStructureRecorder([{"a": [1]}]).validate_and_record_structure({"c": 1}, None)
    box = _CapturedObject()
    with pytest.raises(RuntimeError, match="not captured"):
        box.get()
    box.capture(3)
    assert box.get() == 3
    with pytest.raises(RuntimeError, match="only once"):
        box.capture(4)
    assert _Inputs.from_input_fn(({"x": 1}, None)).features_and_labels() == ({"x": 1}, None)
