"""Engine behaviour: train/evaluate/predict semantics, hooks, warm start, train_and_evaluate."""

from __future__ import annotations

import numpy as np
import pytest
import tensorflow as tf
from tests.estimator import models

import tfport.estimator as tfe

v1 = tf.compat.v1


def test_steps_and_max_steps_semantics(tmp_path):
    est = models.estimator(tmp_path, save_checkpoints_steps=5)
    est.train(models.input_fn(), steps=3)
    assert est.get_variable_value("global_step") == 3
    est.train(models.input_fn(), steps=4)
    assert est.get_variable_value("global_step") == 7
    est.train(models.input_fn(), max_steps=7)  # already there: no training
    assert est.get_variable_value("global_step") == 7
    assert est.latest_checkpoint().endswith("model.ckpt-7")


def test_training_reduces_loss_and_evaluate_reports_loss_and_step(tmp_path):
    est = models.estimator(tmp_path)
    first = est.evaluate(models.input_fn(repeat=False))
    est.train(models.input_fn(), max_steps=60)
    after = est.evaluate(models.input_fn(repeat=False), steps=2, name="short")
    assert after["global_step"] == 60 and first["global_step"] == 0
    assert after["loss"] < first["loss"]
    assert (tmp_path / "eval_short").is_dir()


def test_evaluate_loss_is_mean_of_batch_losses(tmp_path):
    est = models.estimator(tmp_path)
    est.train(models.input_fn(), max_steps=5)
    kernel = est.get_variable_value("logits/kernel")
    bias = est.get_variable_value("logits/bias")
    metrics = est.evaluate(models.input_fn(batch=64, repeat=False))
    logits = models.X @ kernel + bias
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    per_example = -logp[np.arange(len(models.Y)), models.Y]
    want = np.mean([per_example[i : i + 64].mean() for i in range(0, 256, 64)])
    assert abs(metrics["loss"] - want) < 1e-5
    assert abs(metrics["accuracy"] - np.mean(logits.argmax(1) == models.Y)) < 1e-6


def test_predict_single_examples_batches_and_keys(tmp_path):
    est = models.estimator(tmp_path)
    est.train(models.input_fn(), max_steps=2)
    preds = list(est.predict(models.input_fn(batch=100, repeat=False, labels=False)))
    assert len(preds) == 256 and set(preds[0]) == {"logits"}
    batches = list(
        est.predict(
            models.input_fn(batch=100, repeat=False, labels=False), yield_single_examples=False
        )
    )
    assert [len(b["logits"]) for b in batches] == [100, 100, 56]
    np.testing.assert_allclose(batches[0]["logits"][5], preds[5]["logits"])
    with pytest.raises(ValueError, match="predict_keys"):
        list(est.predict(models.input_fn(repeat=False, labels=False), predict_keys=["nope"]))


def test_nan_loss_raises_nan_loss_error(tmp_path):
    def model_fn(features, labels, mode):
        loss = tf.reduce_sum(v1.layers.dense(features, 1)) * np.float32("nan")
        train_op = v1.assign_add(v1.train.get_global_step(), 1)
        return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tfe.Estimator(model_fn, config=tfe.RunConfig(model_dir=str(tmp_path)))
    with pytest.raises(tfe.NanLossDuringTrainingError):
        est.train(models.input_fn(), max_steps=3)


def test_hooks_from_train_and_spec_run(tmp_path):
    calls = {"train": 0, "spec": 0}

    class Counter(tfe.SessionRunHook):
        def __init__(self, key):
            self.key = key

        def after_run(self, run_context, run_values):
            calls[self.key] += 1

    def model_fn(features, labels, mode, params):
        spec = models.model_fn(features, labels, mode, params)
        return spec._replace(training_hooks=[Counter("spec")])

    est = tfe.Estimator(model_fn, config=tfe.RunConfig(model_dir=str(tmp_path)), params={"lr": 0.1})
    est.train(models.input_fn(), steps=4, hooks=[Counter("train")])
    assert calls == {"train": 4, "spec": 4}


def test_keras_optimizer_and_keras_metric_style_model_fn(tmp_path):
    """The TF2 migration guide's model_fn: Keras layers/optimizer/metrics inside model_fn."""

    def model_fn(features, labels, mode):
        model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        logits = model(features)
        if mode == tfe.ModeKeys.PREDICT:
            return tfe.EstimatorSpec(mode, predictions={"logits": logits})
        loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)
        optimizer = tf.keras.optimizers.legacy.Adagrad(learning_rate=0.5)
        optimizer.iterations = v1.train.get_or_create_global_step()
        train_op = None
        if mode == tfe.ModeKeys.TRAIN:
            train_op = optimizer.get_updates(loss, model.trainable_variables)[0]
        accuracy = tf.keras.metrics.Accuracy()
        accuracy.update_state(labels, tf.argmax(logits, 1))
        return tfe.EstimatorSpec(
            mode, loss=loss, train_op=train_op, eval_metric_ops={"accuracy": accuracy}
        )

    est = tfe.Estimator(model_fn, config=tfe.RunConfig(model_dir=str(tmp_path), tf_random_seed=3))
    before = est.evaluate(models.input_fn(repeat=False))
    est.train(models.input_fn(), max_steps=30)
    after = est.evaluate(models.input_fn(repeat=False))
    assert after["global_step"] == 30
    assert after["loss"] < before["loss"] and after["accuracy"] > 0.8


def test_warm_start_from_settings_with_renamed_variables(tmp_path):
    old = models.estimator(tmp_path / "old")
    old.train(models.input_fn(), max_steps=20)

    def renamed(features, labels, mode, params):
        with v1.variable_scope("new"):
            return models.model_fn(features, labels, mode, params)

    settings = tfe.WarmStartSettings(
        str(tmp_path / "old"),
        vars_to_warm_start="new/logits/.*",
        var_name_to_prev_var_name={
            "new/logits/kernel": "logits/kernel",
            "new/logits/bias": "logits/bias",
        },
    )
    new = tfe.Estimator(
        renamed,
        config=tfe.RunConfig(model_dir=str(tmp_path / "new")),
        params={"lr": 0.0},
        warm_start_from=settings,
    )
    new.train(models.input_fn(), steps=1)
    np.testing.assert_array_equal(
        new.get_variable_value("new/logits/kernel"), old.get_variable_value("logits/kernel")
    )


def test_train_and_evaluate_with_exporters(tmp_path):
    est = models.estimator(tmp_path, save_checkpoints_steps=10)

    def receiver():
        x = v1.placeholder(tf.float32, [None, 4], name="x")
        return tfe.export.TensorServingInputReceiver(x, {"x": x})

    exporters = [
        tfe.LatestExporter("latest", receiver, exports_to_keep=1),
        tfe.FinalExporter("final", receiver),
    ]
    metrics, exports = tfe.train_and_evaluate(
        est,
        tfe.TrainSpec(models.input_fn(), max_steps=30),
        tfe.EvalSpec(
            models.input_fn(repeat=False), steps=None, throttle_secs=0, exporters=exporters
        ),
    )
    assert metrics["global_step"] == 30
    assert len(exports) == 2
    assert len(list((tmp_path / "export" / "latest").iterdir())) == 1
    assert len(list((tmp_path / "export" / "final").iterdir())) == 1
    evals = tfe.read_eval_metrics(str(tmp_path / "eval"))
    assert sorted(evals) == [10, 20, 30]


def test_early_stopping_hook_stops_training(tmp_path):
    est = models.estimator(tmp_path, save_checkpoints_steps=5)
    est.train(models.input_fn(), max_steps=5)
    est.evaluate(models.input_fn(repeat=False))  # eval at step 5 with some loss
    hook = tfe.stop_if_lower_hook(
        est, "loss", threshold=1e9, run_every_secs=None, run_every_steps=1
    )
    est.train(models.input_fn(), max_steps=1000, hooks=[hook])
    assert est.get_variable_value("global_step") < 10


def _counting_stop_hook(est, stop_after):
    steps = []

    def should_stop():
        steps.append(None)
        return len(steps) >= stop_after

    hook = tfe.experimental.make_early_stopping_hook(
        est, should_stop, run_every_secs=None, run_every_steps=10
    )
    return hook, steps


def test_early_stopping_hook_checks_at_the_steps_after_each_run(tmp_path):
    # Checked after runs 1, 11 and 21, every time: the step is read once the train op ran
    # (a read beside it raced the increment, and two runs reading the same step skipped a
    # check, so training stopped at 20, 21 or 22).
    est = models.estimator(tmp_path)
    hook, steps = _counting_stop_hook(est, 3)
    est.train(models.input_fn(), max_steps=200, hooks=[hook])
    assert len(steps) == 3
    assert est.get_variable_value("global_step") == 21


def test_early_stopping_hook_in_a_graph_tfport_did_not_build(tmp_path):
    est = models.estimator(tmp_path)
    hook, steps = _counting_stop_hook(est, 2)
    with tf.Graph().as_default():
        global_step = v1.train.get_or_create_global_step()
        train_op = v1.assign_add(global_step, 1)
        runs = 0
        with v1.train.MonitoredSession(hooks=[hook]) as session:
            while not session.should_stop():
                session.run(train_op)
                runs += 1
    assert len(steps) == 2
    assert runs == 11  # checked after runs 1 and 11


def test_export_regression_and_classification_outputs(tmp_path):
    def model_fn(features, labels, mode):
        logits = v1.layers.dense(features["x"], 2, name="logits")
        probs = tf.nn.softmax(logits)
        outputs = {
            "serving_default": tfe.export.ClassificationOutput(scores=probs),
            "regress": tfe.export.RegressionOutput(value=logits[:, 0]),
            "predict": tfe.export.PredictOutput({"probs": probs}),
        }
        if mode == tfe.ModeKeys.PREDICT:
            return tfe.EstimatorSpec(mode, predictions={"probs": probs}, export_outputs=outputs)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = v1.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=v1.train.get_global_step()
        )
        return tfe.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tfe.Estimator(model_fn, config=tfe.RunConfig(model_dir=str(tmp_path / "m")))
    est.train(
        lambda: tf.data.Dataset.from_tensor_slices(({"x": models.X}, models.Y)).repeat().batch(32),
        max_steps=3,
    )
    spec = {"x": tf.io.FixedLenFeature([4], tf.float32)}
    path = est.export_saved_model(
        str(tmp_path / "export"), tfe.export.build_parsing_serving_input_receiver_fn(spec)
    )
    loaded = tf.saved_model.load(path.decode())
    assert set(loaded.signatures) == {"serving_default", "regress", "predict"}
    example = tf.train.Example(
        features=tf.train.Features(
            feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=models.X[0]))}
        )
    )
    out = loaded.signatures["predict"](examples=tf.constant([example.SerializeToString()]))
    kernel = est.get_variable_value("logits/kernel")
    logits = models.X[:1] @ kernel + est.get_variable_value("logits/bias")
    want = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    np.testing.assert_allclose(out["probs"].numpy(), want, atol=1e-5)


def test_run_config_replace_and_tf_config(monkeypatch):
    monkeypatch.setenv(
        "TF_CONFIG",
        '{"cluster": {"chief": ["h:1"], "worker": ["h:2", "h:3"]},'
        ' "task": {"type": "worker", "index": 1}}',
    )
    config = tfe.RunConfig(save_checkpoints_steps=10)
    assert (config.task_type, config.task_id, config.is_chief) == ("worker", 1, False)
    assert config.num_worker_replicas == 3 and config.global_id_in_cluster == 2
    assert config.master == "grpc://h:3"
    # a tf.train.ClusterSpec as legacy's (libraries call .num_tasks, .job_tasks, .as_dict)
    assert isinstance(config.cluster_spec, tf.train.ClusterSpec)
    assert config.cluster_spec.num_tasks("worker") == 2
    assert config.cluster_spec.job_tasks("chief") == ["h:1"]
    replaced = config.replace(save_checkpoints_secs=5)
    assert replaced.save_checkpoints_secs == 5 and replaced.save_checkpoints_steps is None
    assert config.save_checkpoints_steps == 10
    assert tfe.RunConfig().save_checkpoints_secs == 600
    monkeypatch.delenv("TF_CONFIG")
    empty = tfe.RunConfig().cluster_spec
    assert isinstance(empty, tf.train.ClusterSpec) and not empty and empty.as_dict() == {}
    with pytest.raises(ValueError, match="cannot replace"):
        config.replace(nonsense=1)


def test_install_routes_tf_estimator():
    import tfport

    tfport.install()
    assert tf.estimator.Estimator is tfe.Estimator
    assert tf.compat.v1.estimator.RunConfig is tfe.RunConfig
    assert tf.compat.v1.estimator.tpu.TPUEstimator is not None
    assert callable(tf.compat.v1.layers.dense)


@pytest.mark.parametrize("name", ["Adam", "SGD", "RMSprop", "Adagrad"])
def test_current_keras_optimizers_get_updates_train_in_a_graph(name):
    """`get_updates` of tf_keras 2.21's optimizers (the TF2 guide's call) changes the weights."""
    import tfport

    handle = tfport.install()
    try:
        graph = tf.Graph()
        with graph.as_default():
            step = v1.train.get_or_create_global_step()
            model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            loss = tf.reduce_mean(model(tf.ones((4, 3))) ** 2)
            optimizer = getattr(tf.keras.optimizers, name)(0.01)
            optimizer.iterations = step
            train_op = optimizer.get_updates(loss, model.trainable_variables)[0]
            with v1.Session() as session:
                session.run(v1.global_variables_initializer())
                first = session.run(loss)
                for _ in range(3):
                    session.run(train_op)
                assert session.run(step) == 3
                assert session.run(loss) < first
    finally:
        if handle is not None:
            tfport.uninstall()
