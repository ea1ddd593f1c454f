"""Code below the public API, as libraries wrote it against tensorflow-estimator 2.15.

Usage::

    python private_cases.py CASE MODEL_DIR OUT_JSON

Each case trains 40 steps of batch 16 (checkpoints 0/20/40), evaluates on 48 rows and
predicts 24 rows.

- ``private_head_subclass``: a CTR-library head subclassing ``canned.head._Head``
  (``create_loss`` returning ``LossSpec``, ``create_estimator_spec``, ``_eval_metric_ops``
  keyed with ``_summary_key``, export outputs from ``_classification_output``), trained
  with ``canned.optimizers.get_optimizer_instance("SGD", learning_rate=0.3)``.
- ``private_head_factory``: ``_binary_logistic_head_with_sigmoid_cross_entropy_loss(
  thresholds=[0.3])`` over a hidden layer, optimizer ``get_optimizer_instance(AdamOptimizer)``
  (an instance).
- ``private_multiclass_head``: ``_multi_class_head_with_softmax_cross_entropy_loss(3,
  weight_column="w")`` through ``train_op_fn``, the optimizer from
  ``get_optimizer_instance(callable)``.
- ``private_subclass``: an ``Estimator`` subclass whose own methods build graphs with
  ``_create_and_assert_global_step``, ``_get_features_and_labels_from_input_fn``,
  ``_get_features_from_input_fn``, ``_call_model_fn``, ``_extract_keys``,
  ``_extract_batch_length`` and a session on ``_session_config`` (``raw``); it is evaluated
  by a second Estimator whose model_fn calls the first one's ``model_fn`` wrapper
  ``(features, labels, mode, config)``.
- ``private_list_input``: input_fns returning Python lists (``(features, labels)`` for
  train/eval, ``(features, None)`` for predict; constant batches, so evaluate takes
  ``steps=1`` and predict is cut at 24 rows).
"""

import itertools
import json
import sys

import numpy as np

CASES = (
    "private_head_subclass",
    "private_head_factory",
    "private_multiclass_head",
    "private_subclass",
    "private_list_input",
)
STEPS, BATCH = 40, 16


def _data():
    rng = np.random.RandomState(27)
    x = rng.normal(size=(96, 3)).astype("float32")
    w = rng.uniform(0.5, 1.5, size=(96, 1)).astype("float32")
    binary = (x[:, 0] + 0.5 * x[:, 1] > 0).astype("int64").reshape(-1, 1)
    cls = ((x[:, 0] > 0).astype("int64") + (x[:, 2] > 0.3)).reshape(-1, 1)
    reg = (x[:, 0] - 0.5 * x[:, 1] + 0.25).astype("float32").reshape(-1, 1)
    return {"x": x, "w": w, "binary": binary, "cls": cls, "reg": reg}


def _config(tf, model_dir):
    return tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)


def _dataset_fns(tf, features, labels):
    def train():
        ds = tf.data.Dataset.from_tensor_slices((features, labels))
        return ds.repeat().batch(BATCH, drop_remainder=True)

    def evaluate():
        return tf.data.Dataset.from_tensor_slices((features, labels)).take(48).batch(16)

    def predict():
        feats = {k: v[:24] for k, v in features.items()}
        return tf.data.Dataset.from_tensor_slices(feats).batch(8)

    return train, evaluate, predict


def _rows(predictions):
    rows = []
    for p in predictions:
        rows.append(
            {
                str(k): np.asarray(v).astype("float64").tolist()
                for k, v in p.items()
                if np.asarray(v).dtype.kind in "fi"
            }
        )
    return rows[:24]


def _finish(tf, metrics, rows, model_dir, out_json, extra=None):
    ckpt = tf.train.latest_checkpoint(model_dir)
    out = {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": rows,
        "variables": sorted(n for n, _ in tf.train.list_variables(ckpt)),
        "steps": STEPS,
        "batch_size": BATCH,
    }
    out.update(extra or {})
    with open(out_json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def _ctr_head_class(tf):
    from tensorflow.python.estimator.canned import metric_keys, prediction_keys
    from tensorflow.python.estimator.canned.head import (
        _DEFAULT_SERVING_KEY,
        _PREDICT_SERVING_KEY,
        LossSpec,
        _classification_output,
        _Head,
        _summary_key,
    )
    from tensorflow.python.estimator.export import export_output

    class CTRHead(_Head):
        def __init__(self, name=None):
            self._name = name

        @property
        def name(self):
            return self._name

        @property
        def logits_dimension(self):
            return 1

        def create_loss(self, features, mode, logits, labels):
            labels = tf.cast(labels, tf.float32)
            unreduced = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
            return LossSpec(tf.reduce_mean(unreduced), unreduced, 1.0, labels)

        def _eval_metric_ops(self, labels, logits, predictions, unweighted_loss, weights=None):
            keys = metric_keys.MetricKeys
            with tf.compat.v1.name_scope(None, "metrics"):
                return {
                    _summary_key(self._name, keys.LOSS_MEAN): tf.compat.v1.metrics.mean(
                        unweighted_loss
                    ),
                    _summary_key(self._name, keys.AUC): tf.compat.v1.metrics.auc(
                        labels, predictions
                    ),
                    _summary_key(self._name, keys.PREDICTION_MEAN): tf.compat.v1.metrics.mean(
                        predictions
                    ),
                    _summary_key(self._name, "logits/mean"): tf.compat.v1.metrics.mean(logits),
                }

        def create_estimator_spec(
            self,
            features,
            mode,
            logits,
            labels=None,
            optimizer=None,
            train_op_fn=None,
            regularization_losses=None,
        ):
            keys = prediction_keys.PredictionKeys
            with tf.compat.v1.name_scope("head"):
                probs = tf.sigmoid(logits)
                predictions = {keys.LOGITS: logits, keys.LOGISTIC: probs}
                if mode == tf.estimator.ModeKeys.PREDICT:
                    scores = tf.concat([1.0 - probs, probs], 1)
                    return tf.estimator.EstimatorSpec(
                        mode,
                        predictions=predictions,
                        export_outputs={
                            _DEFAULT_SERVING_KEY: _classification_output(scores, 2),
                            _PREDICT_SERVING_KEY: export_output.PredictOutput(predictions),
                        },
                    )
                spec = self.create_loss(features, mode, logits, labels)
                if mode == tf.estimator.ModeKeys.EVAL:
                    metrics = self._eval_metric_ops(
                        spec.processed_labels, logits, probs, spec.unreduced_loss
                    )
                    return tf.estimator.EstimatorSpec(
                        mode, predictions=predictions, loss=spec.training_loss,
                        eval_metric_ops=metrics,
                    )  # fmt: skip
                step = tf.compat.v1.train.get_global_step()
                train_op = optimizer.minimize(spec.training_loss, global_step=step)
                tf.compat.v1.summary.scalar(
                    _summary_key(self._name, "ctr_loss"), spec.training_loss
                )
                return tf.estimator.EstimatorSpec(
                    mode, predictions=predictions, loss=spec.training_loss, train_op=train_op
                )

    return CTRHead


def _head_model_fn(tf, head, optimizer_fn, hidden=0, how="optimizer"):
    def model_fn(features, labels, mode):
        net = features["x"]
        if hidden:
            net = tf.compat.v1.layers.dense(net, hidden, tf.nn.relu, name="hidden")
        logits = tf.compat.v1.layers.dense(net, head.logits_dimension, name="logits")
        kwargs = {}
        if mode == tf.estimator.ModeKeys.TRAIN:
            optimizer = optimizer_fn()
            if how == "train_op_fn":
                step = tf.compat.v1.train.get_global_step()
                kwargs["train_op_fn"] = lambda loss: optimizer.minimize(loss, global_step=step)
            else:
                kwargs["optimizer"] = optimizer
        return head.create_estimator_spec(features, mode, logits, labels, **kwargs)

    return model_fn


def _run_head_case(tf, model_fn, features, labels, model_dir, out_json):
    est = tf.estimator.Estimator(model_fn, config=_config(tf, model_dir))
    train, evaluate, predict = _dataset_fns(tf, features, labels)
    est.train(train, max_steps=STEPS)
    metrics = est.evaluate(evaluate)
    _finish(tf, metrics, _rows(est.predict(predict)), model_dir, out_json)


def head_subclass(model_dir, out_json):
    import tensorflow as tf
    from tensorflow.python.estimator.canned.optimizers import get_optimizer_instance

    d = _data()
    head = _ctr_head_class(tf)(name="ctr")
    fn = _head_model_fn(tf, head, lambda: get_optimizer_instance("SGD", learning_rate=0.3))
    _run_head_case(tf, fn, {"x": d["x"]}, d["binary"], model_dir, out_json)


def head_factory(model_dir, out_json):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned import head as head_lib
    from tensorflow_estimator.python.estimator.canned import optimizers

    d = _data()
    head = head_lib._binary_logistic_head_with_sigmoid_cross_entropy_loss(thresholds=[0.3])

    def optimizer():
        return optimizers.get_optimizer_instance(tf.compat.v1.train.AdamOptimizer(0.01))

    fn = _head_model_fn(tf, head, optimizer, hidden=4)
    _run_head_case(tf, fn, {"x": d["x"]}, d["binary"], model_dir, out_json)


def multiclass_head(model_dir, out_json):
    import tensorflow as tf
    from tensorflow.python.estimator.canned import head as head_lib
    from tensorflow.python.estimator.canned import optimizers

    d = _data()
    head = head_lib._multi_class_head_with_softmax_cross_entropy_loss(3, weight_column="w")

    def optimizer():
        return optimizers.get_optimizer_instance(
            lambda: tf.compat.v1.train.GradientDescentOptimizer(0.1)
        )

    fn = _head_model_fn(tf, head, optimizer, how="train_op_fn")
    _run_head_case(tf, fn, {"x": d["x"], "w": d["w"]}, d["cls"], model_dir, out_json)


def _raw_estimator_class(tf):
    class RawEstimator(tf.estimator.Estimator):
        """A library's Estimator with its own graph-building methods on the internals."""

        def __init__(self, model_dir, config):
            def model_fn(features, labels, mode, params, config):
                net = tf.compat.v1.layers.dense(features["x"], params["units"], tf.nn.tanh)
                pred = tf.compat.v1.layers.dense(net, 1, name="out")
                predictions = {"pred": pred, "net": net}
                if mode == tf.estimator.ModeKeys.PREDICT:
                    return tf.estimator.EstimatorSpec(mode, predictions=predictions)
                loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
                step = tf.compat.v1.train.get_global_step()
                train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, step)
                metrics = {"mae": tf.compat.v1.metrics.mean_absolute_error(labels, pred)}
                return tf.estimator.EstimatorSpec(
                    mode, predictions=predictions, loss=loss, train_op=train_op,
                    eval_metric_ops=metrics,
                )  # fmt: skip

            super().__init__(model_fn, model_dir=model_dir, config=config, params={"units": 4})

        def raw_loss(self, input_fn):
            """The loss of the latest checkpoint on input_fn's first batch."""
            with tf.Graph().as_default() as g, g.device(self._device_fn):
                self._create_and_assert_global_step(g)
                features, labels, hooks = self._get_features_and_labels_from_input_fn(
                    input_fn, tf.estimator.ModeKeys.EVAL
                )
                spec = self._call_model_fn(
                    features, labels, tf.estimator.ModeKeys.EVAL, self.config
                )
                return self._run(spec.loss, spec, hooks)

        def raw_predict(self, input_fn, predict_keys=None):
            """Predictions of input_fn's first batch, and the batch length."""
            with tf.Graph().as_default() as g, g.device(self._device_fn):
                tf.compat.v1.set_random_seed(self._config.tf_random_seed)
                self._create_and_assert_global_step(g)
                features, hooks = self._get_features_from_input_fn(
                    input_fn, tf.estimator.ModeKeys.PREDICT
                )
                spec = self._call_model_fn(
                    features, None, tf.estimator.ModeKeys.PREDICT, self.config
                )
                predictions = self._extract_keys(spec.predictions, predict_keys)
                values = self._run(predictions, spec, hooks)
            return values, self._extract_batch_length(values)

        def _run(self, fetches, spec, hooks):
            creator = tf.compat.v1.train.ChiefSessionCreator(
                checkpoint_filename_with_path=self.latest_checkpoint(),
                scaffold=spec.scaffold,
                config=self._session_config,
            )
            with tf.compat.v1.train.MonitoredSession(session_creator=creator, hooks=hooks) as s:
                return s.run(fetches)

    return RawEstimator


def subclass(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    est = _raw_estimator_class(tf)(model_dir, _config(tf, model_dir))
    train, evaluate, predict = _dataset_fns(tf, {"x": d["x"]}, d["reg"])
    est.train(train, max_steps=STEPS)
    raw_loss = est.raw_loss(evaluate)
    raw, length = est.raw_predict(predict, predict_keys=["pred"])
    wrapped_fn = est.model_fn

    def model_fn(features, labels, mode, config):
        return wrapped_fn(features, labels, mode, config)

    wrapper = tf.estimator.Estimator(model_fn, model_dir=model_dir, config=est.config)
    metrics = wrapper.evaluate(evaluate)
    extra = {
        "raw_loss": float(raw_loss),
        "raw_predict": np.asarray(raw["pred"]).astype("float64").tolist(),
        "raw_keys": sorted(raw),
        "raw_batch_length": int(length),
        "model_fn_args": sorted(__import__("inspect").signature(wrapped_fn).parameters),
    }
    _finish(tf, metrics, _rows(wrapper.predict(predict)), model_dir, out_json, extra)


def list_input(model_dir, out_json):
    import tensorflow as tf

    d = _data()
    x, y = d["x"][:BATCH].tolist(), d["reg"][:BATCH].tolist()

    def model_fn(features, labels, mode):
        x = tf.convert_to_tensor(features["x"], tf.float32)  # the lists, as given
        net = tf.compat.v1.layers.dense(x, 4, tf.nn.relu, name="hidden")
        pred = tf.compat.v1.layers.dense(net, 1, name="pred")
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={"pred": pred})
        loss = tf.compat.v1.losses.mean_squared_error(labels, pred)
        step = tf.compat.v1.train.get_global_step()
        train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    est = tf.estimator.Estimator(model_fn, config=_config(tf, model_dir))
    est.train(lambda: ({"x": x}, y), max_steps=STEPS)
    metrics = est.evaluate(lambda: ({"x": x}, y), steps=1)
    rows = _rows(itertools.islice(est.predict(lambda: ({"x": x}, None)), 24))
    _finish(tf, metrics, rows, model_dir, out_json)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes OUT_JSON."""
    {
        "private_head_subclass": head_subclass,
        "private_head_factory": head_factory,
        "private_multiclass_head": multiclass_head,
        "private_subclass": subclass,
        "private_list_input": list_input,
    }[case](model_dir, out_json)


if __name__ == "__main__":
    main(*sys.argv[1:4])
