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
    settings = legacy._get_default_warm_start_settings("/old/model_dir")
    assert settings.ckpt_to_initialize_from == "/old/model_dir"
    assert (
        settings.vars_to_warm_start == ".*"
        and legacy._get_default_warm_start_settings(None) is None
    )
    with pytest.raises(ValueError, match="warm_start_from must be"):
        legacy._get_default_warm_start_settings(3)
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


def _model_fn(features, labels, mode):
    import tensorflow as tf

    v1 = tf.compat.v1
    w = v1.get_variable("w", initializer=0.0)
    return tf.estimator.EstimatorSpec(mode, loss=w, train_op=v1.no_op(), predictions={"w": w})


def test_estimator_private_methods_libraries_call_or_override(tf, tmp_path):
    v1 = tf.compat.v1
    est = tf.estimator.Estimator(_model_fn, model_dir=str(tmp_path / "m"))
    assert est._convert_train_steps_to_hooks(None, None) == []
    (hook,) = est._convert_train_steps_to_hooks(None, 7)
    assert isinstance(hook, v1.train.StopAtStepHook) and hook._last_step == 7
    assert tf.estimator.Estimator._estimator_api_names == ("estimator.Estimator",)
    # warm start: a variable saved as 3.0 is loaded by _maybe_warm_start(None), not when a
    # checkpoint path says the model resumes
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=3.0)
        with v1.Session() as sess:
            sess.run(w.initializer)
            source = v1.train.Saver().save(sess, str(tmp_path / "src" / "model.ckpt"))
    warm = tf.estimator.Estimator(_model_fn, str(tmp_path / "w"), warm_start_from=source)
    for resume, want in ((None, 3.0), ("some/ckpt", 0.0)):
        with tf.Graph().as_default():
            w = v1.get_variable("w", initializer=0.0)
            warm._maybe_warm_start(resume)
            with v1.Session() as sess:
                sess.run(v1.global_variables_initializer())
                assert sess.run(w) == want, resume

    # a SavedModel folder warm-starts from its variables/variables, as legacy inferred it
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=5.0)
        with v1.Session() as sess:
            sess.run(w.initializer)
            builder = v1.saved_model.Builder(str(tmp_path / "saved"))
            builder.add_meta_graph_and_variables(sess, ["serve"])
            builder.save()
    settings = tf.estimator.Estimator(
        _model_fn, str(tmp_path / "s"), warm_start_from=str(tmp_path / "saved")
    )
    assert settings._warm_start_settings.ckpt_to_initialize_from == str(
        tmp_path / "saved" / "variables" / "variables"
    )
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=0.0)
        settings._maybe_warm_start(None)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            assert sess.run(w) == 5.0

    class Exports(tf.estimator.Estimator):
        def _export_all_saved_models(self, export_dir_base, input_receiver_fn_map, *args, **kw):
            return ("overridden", sorted(input_receiver_fn_map), args, kw)

    got = Exports(_model_fn).experimental_export_all_saved_models("base", {"infer": None})
    assert got[:2] == ("overridden", ["infer"])


def test_private_hooks_libraries_construct_take_legacys_arguments(tf):
    """Legacy's positional constructors (issue 41): the early-stopping and k-means hooks."""
    from tensorflow_estimator.python.estimator import early_stopping
    from tensorflow_estimator.python.estimator.canned import kmeans

    v1 = tf.compat.v1
    with tf.Graph().as_default():
        step = v1.train.get_or_create_global_step()
        train_op = v1.assign_add(step, 1)
        loss = v1.placeholder_with_default(1.0, [])
        stop = early_stopping._StopOnPredicateHook(lambda: True, None, 2)
        check = early_stopping._CheckForStoppingHook()
        steady = kmeans._LossRelativeChangeHook(loss, 0.5)
        done = v1.get_variable("done", initializer=False)
        init = kmeans._InitializeClustersHook(v1.assign(done, True), done, True)
        with v1.train.MonitoredSession(hooks=[stop, check, steady, init]) as sess:
            assert sess.run(done)  # the chief ran init_op until the flag was set
            assert sess.should_stop()  # the predicate is true at its first check
        assert steady.previous == 1.0  # the loss hook fetched the loss
        with v1.train.MonitoredSession(hooks=[check]) as sess:
            sess.run(train_op)  # a new session (no checkpoint) starts with the flag False
            assert not sess.should_stop()
