"""The canned estimators' internals that libraries build custom Estimators on (TF 2.15).

Usage::

    python private_canned.py CASE MODEL_DIR OUT_JSON

Each case trains 40 steps of batch 16 (checkpoints 0/20/40), evaluates on 48 rows and
predicts 24 rows. Features: `x` (3 floats), `c` (an id in [0, 4)), `w` (a weight).

- ``private_dnn_model_fn``: a custom Estimator whose model_fn returns
  ``canned.dnn.dnn_model_fn_v2(..., head=BinaryClassHead(weight_column="w"),
  hidden_units=[8, 4], batch_norm=True)`` over ``x`` and ``indicator_column(c)``.
- ``private_linear_logit_fn``: a regression model_fn on
  ``canned.linear.linear_logit_fn_builder_v2`` (no variable scope) with its own loss
  (``head.base_head.check_dense_labels_match_logits_and_reshape`` and
  ``get_weights_and_check_match_logits``), train op from
  ``head.base_head.create_estimator_spec_train_op`` (Keras Ftrl).
- ``private_linear_model``: a wide & deep model_fn: ``canned.linear.LinearModel`` (its
  ``bias`` property read) plus ``canned.dnn.dnn_logit_fn_builder_v2`` in a ``dnn`` variable
  scope, through ``MultiClassHead(3)``'s own ``create_estimator_spec`` (Keras Adagrad).
"""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import private_cases  # noqa: E402  (its data pipeline, rows and output writer)

CASES = ("private_dnn_model_fn", "private_linear_logit_fn", "private_linear_model")
STEPS = private_cases.STEPS  # 40 steps of batch 16


def _data():
    rng = np.random.RandomState(271)
    x = rng.normal(size=(96, 3)).astype("float32")
    c = rng.randint(0, 4, size=(96, 1)).astype("int64")
    w = rng.uniform(0.5, 1.5, size=(96, 1)).astype("float32")
    binary = (x[:, 0] + 0.5 * x[:, 1] + 0.3 * (c[:, 0] == 2) > 0).astype("int64").reshape(-1, 1)
    cls = ((x[:, 0] > 0).astype("int64") + (c[:, 0] > 1)).reshape(-1, 1)
    reg = (x[:, 0] - 0.5 * x[:, 1] + 0.2 * c[:, 0] + 0.25).astype("float32").reshape(-1, 1)
    features = {"x": x, "c": c, "w": w}
    return features, {"binary": binary, "cls": cls, "reg": reg}


def _columns(tf):
    x = tf.feature_column.numeric_column("x", shape=(3,))
    c = tf.feature_column.categorical_column_with_identity("c", 4)
    return x, c


def _run(tf, model_fn, label_key, model_dir, out_json):
    features, labels = _data()
    train, evaluate, predict = private_cases._dataset_fns(tf, features, labels[label_key])
    est = tf.estimator.Estimator(model_fn, config=private_cases._config(tf, model_dir))
    est.train(train, max_steps=STEPS)
    metrics = est.evaluate(evaluate)
    rows = private_cases._rows(est.predict(predict))
    private_cases._finish(tf, metrics, rows, model_dir, out_json)


def dnn_model_fn_case(model_dir, out_json):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned import dnn

    x, c = _columns(tf)
    head = tf.estimator.BinaryClassHead(weight_column="w")

    def model_fn(features, labels, mode, config):
        return dnn.dnn_model_fn_v2(
            features,
            labels,
            mode,
            head=head,
            hidden_units=[8, 4],
            feature_columns=[x, tf.feature_column.indicator_column(c)],
            optimizer="Adagrad",
            config=config,
            batch_norm=True,
        )

    _run(tf, model_fn, "binary", model_dir, out_json)


def linear_logit_fn_case(model_dir, out_json):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned import linear
    from tensorflow_estimator.python.estimator.head import base_head

    x, c = _columns(tf)
    logit_fn = linear.linear_logit_fn_builder_v2(units=1, feature_columns=[x, c])

    def model_fn(features, labels, mode):
        logits = logit_fn(features)
        predictions = {"predictions": logits}
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions=predictions)
        labels = base_head.check_dense_labels_match_logits_and_reshape(labels, logits, 1)
        weights = base_head.get_weights_and_check_match_logits(features, "w", logits)
        loss = tf.reduce_mean(weights * tf.square(labels - logits))
        if mode == tf.estimator.ModeKeys.EVAL:
            mse = tf.compat.v1.metrics.mean_squared_error(labels, logits, weights)
            return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"mse": mse})
        opt = tf.keras.optimizers.legacy.Ftrl(learning_rate=0.2)
        opt.iterations = tf.compat.v1.train.get_or_create_global_step()
        train_op = base_head.create_estimator_spec_train_op(
            "my_head",
            optimizer=opt,
            trainable_variables=tf.compat.v1.trainable_variables(),
            regularized_training_loss=loss,
        )
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    _run(tf, model_fn, "reg", model_dir, out_json)


def linear_model_case(model_dir, out_json):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned import dnn, linear

    x, c = _columns(tf)
    head = tf.estimator.MultiClassHead(3)

    def model_fn(features, labels, mode):
        wide = linear.LinearModel(feature_columns=[x, c], units=3, name="wide")
        wide_logits = wide(features)
        tf.compat.v1.summary.histogram("wide_bias", wide.bias)
        deep_fn = dnn.dnn_logit_fn_builder_v2(
            3, [6], [x, tf.feature_column.indicator_column(c)], tf.nn.relu, None, False
        )
        with tf.compat.v1.variable_scope("deep"):
            deep_logits = deep_fn(features, mode)
        opt = None
        if mode == tf.estimator.ModeKeys.TRAIN:
            opt = tf.keras.optimizers.legacy.Adagrad(learning_rate=0.1)
            opt.iterations = tf.compat.v1.train.get_or_create_global_step()
        return head.create_estimator_spec(
            features=features,
            mode=mode,
            logits=wide_logits + deep_logits,
            labels=labels,
            optimizer=opt,
            trainable_variables=tf.compat.v1.trainable_variables(),
        )

    _run(tf, model_fn, "cls", model_dir, out_json)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes OUT_JSON."""
    {
        "private_dnn_model_fn": dnn_model_fn_case,
        "private_linear_logit_fn": linear_logit_fn_case,
        "private_linear_model": linear_model_case,
    }[case](model_dir, out_json)


if __name__ == "__main__":
    main(*sys.argv[1:4])
