"""Estimator training cases written the way TF 2.x-era (2019-2023) users wrote them.

Usage::

    python estimator_cases.py CASE MODEL_DIR OUT_JSON

Each case builds an Estimator on ``MODEL_DIR``, trains it to step 40 (batch 32, the same
fixed rows in the same order every time), evaluates it, predicts the test rows and, for
the cases in ``EXPORTS``, exports a SavedModel under ``MODEL_DIR/../export/``. OUT_JSON
receives ``eval_metrics``, ``predictions``, ``variables`` (the checkpoint's names),
``export_dir`` (the export's folder name or null), ``steps`` and ``batch_size``.

When MODEL_DIR already holds a checkpoint the Estimator resumes from it; that is how a
run is compared with the goldens (start from the legacy step-0 checkpoint, train to 40).

The script only uses what ``tf.estimator`` users had, so it runs unmodified on the legacy
stack (TensorFlow 2.15 + tensorflow-estimator 2.15) and under ``tfport run``.

Data: ``numpy.random.RandomState(1234)`` draws 512 rows of 4 float features ``x``, a
random linear 3-class labelling and a categorical ``color``; rows 0-383 train, 384-511
are the test rows.
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

# The cases this script answers for (legacy/generate.py reads these three names).
CASES = (
    "custom_v1_adam",
    "keras_model_to_estimator",
    "canned_dnn",
    "canned_linear",
    "canned_combined",
    "canned_dnn_v2",
    "canned_linear_regressor_v2",
    "tpu_estimator_on_cpu",
)
# Cases whose step-40 checkpoint also goes through the legacy checkpoint_converter.py.
CONVERTER = {"canned_dnn": "dnn", "canned_linear": "linear", "canned_combined": "combined"}
# Cases that export a SavedModel.
EXPORTS = ("custom_v1_adam", "canned_dnn", "canned_linear", "canned_dnn_v2")

STEPS = 40
BATCH = 32
N_CLASSES = 3
COLORS = ["red", "green", "blue"]


def _make_data():
    rng = np.random.RandomState(1234)
    x = rng.normal(size=(512, 4)).astype("float32")
    true_w = rng.normal(size=(4, N_CLASSES)).astype("float32")
    noise = 0.1 * rng.normal(size=(512, N_CLASSES))
    y = np.argmax(x.dot(true_w) + noise, axis=1).astype("int64")
    color = np.array(COLORS)[rng.randint(0, 3, 512)]
    return {
        "train_x": x[:384],
        "train_y": y[:384],
        "train_color": color[:384],
        "test_x": x[384:],
        "test_y": y[384:],
        "test_color": color[384:],
    }


DATA = _make_data()


def _features(split, dict_features, color):
    if not dict_features:
        return DATA[split + "_x"]
    features = {"x": DATA[split + "_x"]}
    if color:
        features["color"] = DATA[split + "_color"]
    return features


def _batch_size(params):
    # TPUEstimator hands each input_fn its per-call batch in params["batch_size"].
    if params and "batch_size" in params:
        return params["batch_size"]
    return BATCH


def train_input_fn(dict_features=False, color=False):
    """Endless training batches, in file order."""

    def input_fn(params=None):
        features = _features("train", dict_features, color)
        dataset = tf.data.Dataset.from_tensor_slices((features, DATA["train_y"]))
        return dataset.repeat().batch(_batch_size(params), drop_remainder=True)

    return input_fn


def eval_input_fn(dict_features=False, color=False, labels=True):
    """The 128 test rows once (with labels for evaluate, without for predict)."""

    def input_fn(params=None):
        features = _features("test", dict_features, color)
        if labels:
            dataset = tf.data.Dataset.from_tensor_slices((features, DATA["test_y"]))
        else:
            dataset = tf.data.Dataset.from_tensor_slices(features)
        return dataset.batch(_batch_size(params), drop_remainder=True)

    return input_fn


def _plain(value):
    """Numpy values and bytes -> JSON-friendly Python values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    if isinstance(value, bytes):
        return value.decode("utf-8")
    return value


def _variable_names(estimator):
    return sorted(name for name, _ in tf.train.list_variables(estimator.model_dir))


def _train_eval_predict(
    case, estimator, key, dict_features=False, color=False, receiver_fn=None, eval_steps=None
):
    estimator.train(train_input_fn(dict_features, color), max_steps=STEPS)
    metrics = estimator.evaluate(eval_input_fn(dict_features, color), steps=eval_steps)
    outputs = estimator.predict(eval_input_fn(dict_features, color, labels=False))
    predictions = [row[key] for row in outputs]
    export_dir = None
    if case in EXPORTS:
        base = os.path.join(os.path.dirname(estimator.model_dir), "export")
        path = estimator.export_saved_model(base, receiver_fn)
        if isinstance(path, bytes):
            path = path.decode("utf-8")
        export_dir = os.path.basename(path)
    return {
        "steps": STEPS,
        "batch_size": BATCH,
        "eval_metrics": metrics,
        "predictions": predictions,
        "export_dir": export_dir,
        "variables": _variable_names(estimator),
    }


def _run_config(model_dir, **kwargs):
    return tf.estimator.RunConfig(
        model_dir=model_dir, tf_random_seed=7, save_checkpoints_steps=20, **kwargs
    )


# --- custom model_fn: tf.compat.v1 layers, losses, metrics and AdamOptimizer ---


def custom_model_fn(features, labels, mode, params):
    """A two-layer classifier in the TF1 style."""
    net = tf.compat.v1.layers.dense(
        features, params["hidden"], activation=tf.nn.relu, name="hidden"
    )
    logits = tf.compat.v1.layers.dense(net, N_CLASSES, name="logits")
    probabilities = tf.nn.softmax(logits)
    predicted = tf.argmax(logits, axis=1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        export_outputs = {
            "serving_default": tf.estimator.export.PredictOutput({"probabilities": probabilities})
        }
        return tf.estimator.EstimatorSpec(
            mode,
            predictions={"probabilities": probabilities, "classes": predicted},
            export_outputs=export_outputs,
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    eval_metric_ops = {
        "accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted)
    }
    train_op = None
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=params["learning_rate"])
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(
        mode, loss=loss, train_op=train_op, eval_metric_ops=eval_metric_ops
    )


def serving_input_receiver_fn():
    """Raw float rows, fed to the model_fn as the features tensor itself."""
    x = tf.compat.v1.placeholder(tf.float32, shape=[None, 4], name="x")
    return tf.estimator.export.TensorServingInputReceiver(x, {"x": x})


def custom_v1_adam(model_dir):
    estimator = tf.estimator.Estimator(
        model_fn=custom_model_fn,
        config=_run_config(model_dir, keep_checkpoint_max=3),
        params={"hidden": 16, "learning_rate": 0.01},
    )
    return _train_eval_predict(
        "custom_v1_adam", estimator, "probabilities", receiver_fn=serving_input_receiver_fn
    )


# --- a compiled Keras model turned into an Estimator ---


def keras_model_to_estimator(model_dir):
    tf.keras.utils.set_random_seed(7)
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(16, activation="relu", input_shape=(4,), name="hidden"),
            tf.keras.layers.Dense(N_CLASSES, activation="softmax", name="probs"),
        ]
    )
    model.compile(
        optimizer=tf.keras.optimizers.legacy.SGD(learning_rate=0.05, momentum=0.9),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
    )
    estimator = tf.keras.estimator.model_to_estimator(
        keras_model=model, config=_run_config(model_dir)
    )

    def keras_input_fn(split, labels=True, repeat=False):
        def input_fn():
            features = {"hidden_input": DATA[split + "_x"]}
            if labels:
                dataset = tf.data.Dataset.from_tensor_slices((features, DATA[split + "_y"]))
            else:
                dataset = tf.data.Dataset.from_tensor_slices(features)
            if repeat:
                return dataset.repeat().batch(BATCH, drop_remainder=True)
            return dataset.batch(BATCH)

        return input_fn

    estimator.train(keras_input_fn("train", repeat=True), max_steps=STEPS)
    metrics = estimator.evaluate(keras_input_fn("test"))
    predictions = [row["probs"] for row in estimator.predict(keras_input_fn("test", False))]
    return {
        "steps": STEPS,
        "batch_size": BATCH,
        "eval_metrics": metrics,
        "predictions": predictions,
        "input_name": "hidden_input",
        "output_name": "probs",
        "variables": _variable_names(estimator),
    }


# --- canned estimators, v1 (tf.compat.v1.estimator) and v2 (tf.estimator) ---


def _numeric_column():
    return tf.feature_column.numeric_column("x", shape=(4,))


def _color_column():
    return tf.feature_column.categorical_column_with_vocabulary_list("color", COLORS)


def _parsing_receiver_fn(columns):
    spec = tf.feature_column.make_parse_example_spec(columns)
    return tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)


def canned_dnn(model_dir):
    columns = [_numeric_column()]
    estimator = tf.compat.v1.estimator.DNNClassifier(
        hidden_units=[16, 8],
        feature_columns=columns,
        n_classes=N_CLASSES,
        config=_run_config(model_dir),
    )
    return _train_eval_predict(
        "canned_dnn",
        estimator,
        "probabilities",
        dict_features=True,
        receiver_fn=_parsing_receiver_fn(columns),
    )


def canned_linear(model_dir):
    columns = [_numeric_column(), _color_column()]
    estimator = tf.compat.v1.estimator.LinearClassifier(
        feature_columns=columns, n_classes=N_CLASSES, config=_run_config(model_dir)
    )
    return _train_eval_predict(
        "canned_linear",
        estimator,
        "probabilities",
        dict_features=True,
        color=True,
        receiver_fn=_parsing_receiver_fn(columns),
    )


def canned_combined(model_dir):
    estimator = tf.compat.v1.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[_color_column()],
        dnn_feature_columns=[_numeric_column()],
        dnn_hidden_units=[16, 8],
        n_classes=N_CLASSES,
        config=_run_config(model_dir),
    )
    return _train_eval_predict(
        "canned_combined", estimator, "probabilities", dict_features=True, color=True
    )


def canned_dnn_v2(model_dir):
    embedded = tf.feature_column.embedding_column(_color_column(), dimension=2)
    columns = [_numeric_column(), embedded]
    estimator = tf.estimator.DNNClassifier(
        hidden_units=[16, 8],
        feature_columns=columns,
        n_classes=N_CLASSES,
        optimizer="Adam",
        config=_run_config(model_dir),
    )
    return _train_eval_predict(
        "canned_dnn_v2",
        estimator,
        "probabilities",
        dict_features=True,
        color=True,
        receiver_fn=_parsing_receiver_fn(columns),
    )


def canned_linear_regressor_v2(model_dir):
    estimator = tf.estimator.LinearRegressor(
        feature_columns=[_numeric_column(), _color_column()], config=_run_config(model_dir)
    )
    return _train_eval_predict(
        "canned_linear_regressor_v2", estimator, "predictions", dict_features=True, color=True
    )


# --- TPUEstimator with use_tpu=False: one model_fn meant for TPU, run on CPU ---


def tpu_model_fn(features, labels, mode, params):
    """A TPU-style model_fn: TPUEstimatorSpec, eval_metrics as (metric_fn, tensors)."""
    net = tf.compat.v1.layers.dense(features, 16, activation=tf.nn.relu, name="hidden")
    logits = tf.compat.v1.layers.dense(net, N_CLASSES, name="logits")
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode, predictions={"probabilities": tf.nn.softmax(logits)}
        )
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)

    def metric_fn(labels, logits):
        predicted = tf.argmax(logits, axis=1)
        return {"accuracy": tf.compat.v1.metrics.accuracy(labels=labels, predictions=predicted)}

    train_op = None
    if mode == tf.estimator.ModeKeys.TRAIN:
        optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate=0.1)
        if params["use_tpu"]:
            # The legacy stack has no CPU kernel for the CrossReplicaSum op this wrapper
            # adds, so TPU code kept the wrapper for TPU runs only.
            optimizer = tf.compat.v1.tpu.CrossShardOptimizer(optimizer)
        train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
        mode, loss=loss, train_op=train_op, eval_metrics=(metric_fn, [labels, logits])
    )


def tpu_estimator_on_cpu(model_dir):
    config = tf.compat.v1.estimator.tpu.RunConfig(
        model_dir=model_dir,
        tf_random_seed=7,
        save_checkpoints_steps=20,
        tpu_config=tf.compat.v1.estimator.tpu.TPUConfig(iterations_per_loop=10),
    )
    estimator = tf.compat.v1.estimator.tpu.TPUEstimator(
        model_fn=tpu_model_fn,
        config=config,
        use_tpu=False,
        train_batch_size=BATCH,
        eval_batch_size=BATCH,
        predict_batch_size=BATCH,
    )
    return _train_eval_predict("tpu_estimator_on_cpu", estimator, "probabilities", eval_steps=4)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes its numbers to OUT_JSON."""
    if case not in CASES:
        raise ValueError(f"unknown case {case!r}; this script has: {', '.join(CASES)}")
    model_dir = os.path.abspath(model_dir)
    os.makedirs(os.path.dirname(model_dir), exist_ok=True)
    result = globals()[case](model_dir)
    with open(out_json, "w") as f:
        json.dump(_plain(result), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        sys.exit(f"usage: estimator_cases.py {{{','.join(CASES)}}} MODEL_DIR OUT_JSON")
    main(*sys.argv[1:])
