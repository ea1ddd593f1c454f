"""Issue 41, Build 1: module-level private helpers of legacy `estimator`, `training` and
`run_config` that libraries call, behaving as legacy's code says (expected values worked
out here from legacy's rules, not from tfport's output)."""

from __future__ import annotations

import glob

import pytest


@pytest.fixture(scope="module")
def tf():
    import tfport

    tfport.install()
    import tensorflow

    return tensorflow


def test_estimator_module_helpers(tf, tmp_path):
    from tensorflow.python.estimator import estimator as legacy

    assert legacy._dict_to_str({"loss": 0.5, "b": b"x", "acc": 1}) == "acc = 1, loss = 0.5"
    hook = tf.compat.v1.train.StopAtStepHook(last_step=1)
    assert legacy._check_hooks_type((hook,)) == [hook]
    with pytest.raises(TypeError, match="Hooks must be a SessionRunHook, given: 3"):
        legacy._check_hooks_type([3])
    with pytest.raises(TypeError, match="list of CheckpointSaverListener"):
        legacy._check_listeners_type([hook])
    assert legacy._load_global_step_from_checkpoint_dir(str(tmp_path)) == 0
    with pytest.raises(ValueError, match="Could not find trained model in model_dir"):
        legacy._check_checkpoint_available(str(tmp_path))
    legacy._write_dict_to_summary(str(tmp_path), {"auc": 0.75, "global_step": 9}, 7)
    legacy._write_checkpoint_path_to_summary(str(tmp_path), "/m/model.ckpt-7", 7)
    seen = {}
    for path in glob.glob(str(tmp_path / "events.out.tfevents.*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                seen[value.tag] = (event.step, value.simple_value or value.tensor.string_val)
    assert seen == {"auc": (7, 0.75), "checkpoint_path": (7, [b"/m/model.ckpt-7"])}


def test_training_validators(tf):
    from tensorflow.python.estimator import training

    latest = tf.estimator.LatestExporter("a", lambda: None)
    assert training._validate_exporters(None) == ()
    assert training._validate_exporters(latest) == (latest,)
    with pytest.raises(ValueError, match="must have unique names"):
        training._validate_exporters([latest, tf.estimator.FinalExporter("a", lambda: None)])
    with pytest.raises(TypeError, match="an iterable of Exporter"):
        training._validate_exporters([latest, 3])
    with pytest.raises(TypeError, match="`input_fn` must be callable"):
        training._validate_input_fn(3)
    with pytest.raises(TypeError, match="All hooks must be `SessionRunHook`"):
        training._validate_hooks([3])
    assert training._validate_saving_listeners(None) == ()


def test_run_config_cluster_helpers(tf):
    from tensorflow.python.estimator import run_config

    cluster = tf.train.ClusterSpec({"chief": ["a:1"], "worker": ["b:1", "c:1"], "ps": ["d:1"]})
    assert run_config._count_ps(cluster) == 1
    assert run_config._count_worker(cluster, chief_task_type="chief") == 3
    # chief first, then the other jobs sorted, ps last
    ids = [
        run_config._get_global_id_in_cluster(cluster, t, i, "chief")
        for t, i in [("chief", 0), ("worker", 0), ("worker", 1), ("ps", 0)]
    ]
    assert ids == [0, 1, 2, 3]
    assert run_config._TF_CONFIG_ENV == "TF_CONFIG" and run_config._GRPC_SCHEME == "grpc://"
