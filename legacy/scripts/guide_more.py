"""More scripts written the way the TF tutorials and the TF2 migration guides wrote them.

Usage::

    python guide_more.py CASE MODEL_DIR OUT_JSON

Every case trains to step 40 (checkpoints at 0, 20 and 40), evaluates and predicts, and
writes OUT_JSON with ``eval_metrics``, ``predictions`` (a list of probability rows),
``variables`` (the step-40 checkpoint's names), ``steps`` and ``batch_size``, plus what
the case itself adds. Data: iris-like rows (4 float features, 3 classes) or a small
census-like table, drawn from seeded numpy generators, never shuffled.

- ``guide_premade_dnn`` / ``guide_premade_linear``: the "Premade Estimators" tutorial
  (iris, one ``numeric_column`` per feature, ``DNNClassifier(hidden_units=[30, 10])`` or
  ``LinearClassifier``, the tutorial's prediction print-out).
- ``guide_keras_iris``: the "Estimator from a Keras model" tutorial
  (``tf.keras.estimator.model_to_estimator`` of a compiled Sequential; the input is
  keyed ``dense_input``). The tutorial's Dropout layer is left out: its random masks
  depend on the graph's op order and could not be compared from a checkpoint.
- ``guide_evaluator``: the "Migrate evaluation" guide's TF1 side:
  ``tf.estimator.train_and_evaluate`` with a ``TrainSpec``/``EvalSpec`` and a
  ``LatestExporter``; also records the serving outputs of the latest export.
- ``guide_early_stopping``: the "Migrate early stopping" guide's TF1 side:
  ``tf.estimator.experimental.stop_if_no_decrease_hook`` on the eval loss, evaluations
  written by ``tf.estimator.experimental.InMemoryEvaluatorHook`` every 20 steps; the
  validation rows are labelled against the training rule, so their loss rises and the
  hook (checking every 10 steps from step 1) stops training (``max_steps`` 200) at step
  41, after the evaluation of step 40 (checkpoints 0, 20, 40 and the final 41).
- ``guide_canned_fc``: the "Migrate canned estimators / feature columns" guides' TF1
  side: a ``tf.compat.v1.estimator.DNNClassifier`` (Adagrad, mean loss) on normalized
  numeric, bucketized, ``indicator_column`` and ``embedding_column`` inputs of a small
  census-like table.
- ``guide_model_fn_v1``: the "Custom Estimators" tutorial's model_fn
  (``tf.compat.v1.feature_column.input_layer``, ``tf.compat.v1.layers``, Adagrad,
  ``tf.compat.v1.metrics.accuracy`` with its summary).
- ``guide_model_fn_tf2``: the TF2 migration guide's model_fn with TF 2 symbols (Keras
  layers with a regularizer and BatchNormalization, ``optimizer.get_updates`` with
  ``iterations = global_step``, Keras metric objects as ``eval_metric_ops``). The guide's
  ``tf.keras.optimizers.Adam`` has no ``get_updates`` on TF 2.11+, so this is
  ``tf.keras.optimizers.legacy.Adam``, as users of those versions had to write it.
"""

import glob
import json
import os
import sys

import numpy as np
import tensorflow as tf

CASES = (
    "guide_premade_dnn",
    "guide_premade_linear",
    "guide_keras_iris",
    "guide_evaluator",
    "guide_early_stopping",
    "guide_canned_fc",
    "guide_model_fn_v1",
    "guide_model_fn_tf2",
)

STEPS = 40
BATCH = 16

CSV_COLUMN_NAMES = ["SepalLength", "SepalWidth", "PetalLength", "PetalWidth", "Species"]
SPECIES = ["Setosa", "Versicolor", "Virginica"]


def load_iris(seed, n):
    """Iris-like rows: three species around the real species' means."""
    rng = np.random.RandomState(seed)
    means = np.array([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]])
    species = rng.randint(0, 3, n)
    x = means[species] + 0.35 * rng.normal(size=(n, 4))
    features = {name: x[:, i].astype("float32") for i, name in enumerate(CSV_COLUMN_NAMES[:4])}
    return features, species.astype("int64")


train_x, train_y = load_iris(2018, 120)
test_x, test_y = load_iris(2019, 30)
predict_x = {
    "SepalLength": [5.1, 5.9, 6.9],
    "SepalWidth": [3.3, 3.0, 3.1],
    "PetalLength": [1.7, 4.2, 5.4],
    "PetalWidth": [0.5, 1.5, 2.1],
}
expected = ["Setosa", "Versicolor", "Virginica"]


def input_fn(features, labels, training=True, batch_size=BATCH):
    """The tutorial's input function (without its shuffle)."""
    dataset = tf.data.Dataset.from_tensor_slices((dict(features), labels))
    if training:
        dataset = dataset.repeat()
    return dataset.batch(batch_size)


def predict_input_fn(features, batch_size=BATCH):
    return tf.data.Dataset.from_tensor_slices(dict(features)).batch(batch_size)


def iris_columns():
    return [tf.feature_column.numeric_column(key=key) for key in train_x.keys()]


def config(model_dir, **kwargs):
    return tf.estimator.RunConfig(
        model_dir=model_dir, save_checkpoints_steps=20, tf_random_seed=42, **kwargs
    )


def _result(estimator, metrics, rows, key="probabilities", **extra):
    ckpt = tf.train.latest_checkpoint(estimator.model_dir)
    out = {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": [np.asarray(row[key]).tolist() for row in rows],
        "variables": sorted(name for name, _ in tf.train.list_variables(ckpt)),
        "steps": STEPS,
        "batch_size": BATCH,
    }
    out.update(extra)
    return out


def _premade(classifier):
    classifier.train(input_fn=lambda: input_fn(train_x, train_y), max_steps=STEPS)
    eval_result = classifier.evaluate(input_fn=lambda: input_fn(test_x, test_y, training=False))
    print("\nTest set accuracy: {accuracy:0.3f}\n".format(**eval_result))
    rows = list(classifier.predict(input_fn=lambda: predict_input_fn(test_x)))
    predictions = list(classifier.predict(input_fn=lambda: predict_input_fn(predict_x)))
    for pred_dict, expec in zip(predictions, expected):
        class_id = pred_dict["class_ids"][0]
        probability = pred_dict["probabilities"][class_id]
        print(f'Prediction is "{SPECIES[class_id]}" ({100 * probability:.1f}%), expected "{expec}"')
    return _result(classifier, eval_result, rows + predictions)


def guide_premade_dnn(model_dir):
    classifier = tf.estimator.DNNClassifier(
        feature_columns=iris_columns(),
        hidden_units=[30, 10],
        n_classes=3,
        config=config(model_dir),
    )
    return _premade(classifier)


def guide_premade_linear(model_dir):
    classifier = tf.estimator.LinearClassifier(
        feature_columns=iris_columns(), n_classes=3, config=config(model_dir)
    )
    return _premade(classifier)


def guide_keras_iris(model_dir):
    model = tf.keras.models.Sequential(
        [tf.keras.layers.Dense(16, activation="relu", input_shape=(4,)), tf.keras.layers.Dense(3)]
    )
    model.compile(
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), optimizer="adam"
    )
    x = np.stack([train_x[k] for k in CSV_COLUMN_NAMES[:4]], axis=1)

    def keras_input_fn(repeat=True):
        dataset = tf.data.Dataset.from_tensor_slices((x, train_y))
        dataset = dataset.map(lambda features, labels: ({"dense_input": features}, labels))
        dataset = dataset.batch(BATCH)
        return dataset.repeat() if repeat else dataset

    keras_estimator = tf.keras.estimator.model_to_estimator(
        keras_model=model, model_dir=model_dir, config=config(model_dir)
    )
    keras_estimator.train(input_fn=keras_input_fn, steps=STEPS)
    eval_result = keras_estimator.evaluate(input_fn=keras_input_fn, steps=5)
    print(f"Eval result: {eval_result}")
    rows = list(keras_estimator.predict(input_fn=lambda: keras_input_fn(repeat=False)))
    name = model.output_names[0]
    return _result(keras_estimator, eval_result, rows[:32], key=name)


def serving_input_receiver_fn():
    inputs = {key: tf.compat.v1.placeholder(tf.float32, [None], name=key) for key in train_x}
    return tf.estimator.export.ServingInputReceiver(inputs, inputs)


def _serve(export_dir):
    """The classification outputs of an export's serving signature on the test rows."""
    loaded = tf.saved_model.load(export_dir)
    fn = loaded.signatures["predict"]
    outputs = fn(**{k: tf.constant(v) for k, v in test_x.items()})
    return outputs["probabilities"].numpy().tolist()


def guide_evaluator(model_dir):
    classifier = tf.compat.v1.estimator.DNNClassifier(
        feature_columns=iris_columns(),
        hidden_units=[16, 8],
        optimizer=tf.compat.v1.train.AdamOptimizer(0.01),
        n_classes=3,
        config=config(model_dir),
    )
    train_spec = tf.compat.v1.estimator.TrainSpec(
        input_fn=lambda: input_fn(train_x, train_y), max_steps=STEPS
    )
    exporter = tf.compat.v1.estimator.LatestExporter("latest", serving_input_receiver_fn)
    eval_spec = tf.compat.v1.estimator.EvalSpec(
        name="eval_spec",
        input_fn=lambda: input_fn(test_x, test_y, training=False),
        steps=None,
        exporters=[exporter],
    )
    metrics, export_results = tf.compat.v1.estimator.train_and_evaluate(
        estimator=classifier, train_spec=train_spec, eval_spec=eval_spec
    )
    latest = export_results[-1]
    latest = latest.decode() if isinstance(latest, bytes) else latest
    exports = sorted(glob.glob(os.path.join(model_dir, "export", "latest", "*")))
    rows = list(classifier.predict(input_fn=lambda: predict_input_fn(test_x)))
    return _result(
        classifier,
        metrics,
        rows,
        export_dir=os.path.relpath(latest, model_dir).split(os.sep)[:2],
        exports=len(exports),
        served=_serve(latest),
    )


def guide_early_stopping(model_dir):
    estimator = tf.estimator.DNNClassifier(
        feature_columns=iris_columns(),
        hidden_units=[16],
        n_classes=3,
        optimizer=lambda: tf.keras.optimizers.legacy.Adam(0.05),
        config=config(model_dir),
    )
    # A validation set labelled against the training rule: its loss rises as training
    # fits, which is what early stopping is for.
    val_y = (test_y + 1) % 3
    evaluator = tf.estimator.experimental.InMemoryEvaluatorHook(
        estimator, lambda: input_fn(test_x, val_y, training=False), every_n_iter=20
    )
    early_stopping = tf.estimator.experimental.stop_if_no_decrease_hook(
        estimator,
        metric_name="loss",
        max_steps_without_decrease=40,
        run_every_secs=None,
        run_every_steps=10,
    )
    estimator.train(
        lambda: input_fn(train_x, train_y), hooks=[evaluator, early_stopping], max_steps=200
    )
    global_step = estimator.get_variable_value("global_step")
    eval_history = {}
    for path in glob.glob(os.path.join(estimator.eval_dir(), "events.out.tfevents*")):
        for event in tf.compat.v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag == "loss":
                    eval_history[str(event.step)] = float(value.simple_value)
    metrics = estimator.evaluate(lambda: input_fn(test_x, val_y, training=False))
    rows = list(estimator.predict(input_fn=lambda: predict_input_fn(test_x)))
    return _result(
        estimator,
        metrics,
        rows,
        global_step=int(global_step),
        eval_history=eval_history,
    )


def load_census(seed, n):
    rng = np.random.RandomState(seed)
    age = rng.uniform(17, 90, n).round().astype("float32")
    hours = rng.uniform(10, 60, n).round().astype("float32")
    workclass = np.array(["Private", "Self-emp", "Federal-gov", "Local-gov"])[rng.randint(0, 4, n)]
    occupation = np.array(["Tech", "Sales", "Craft", "Exec", "Admin", "Farming"])[
        rng.randint(0, 6, n)
    ]
    label = ((age > 38) & (hours > 35) | (occupation == "Exec")).astype("int64")
    return {"age": age, "hours": hours, "workclass": workclass, "occupation": occupation}, label


def guide_canned_fc(model_dir):
    features, label = load_census(7, 160)
    fc = tf.feature_column
    age = fc.numeric_column("age")
    workclass = fc.categorical_column_with_vocabulary_list(
        "workclass", ["Private", "Self-emp", "Federal-gov", "Local-gov"]
    )
    occupation = fc.categorical_column_with_hash_bucket("occupation", hash_bucket_size=20)
    feature_columns = [
        fc.numeric_column("age", normalizer_fn=lambda x: (x - 50.0) / 20.0),
        fc.numeric_column("hours", normalizer_fn=lambda x: (x - 35.0) / 15.0),
        fc.bucketized_column(age, boundaries=[25, 35, 45, 55, 65]),
        fc.indicator_column(workclass),
        fc.embedding_column(occupation, dimension=4),
    ]
    estimator = tf.compat.v1.estimator.DNNClassifier(
        hidden_units=[16, 8],
        feature_columns=feature_columns,
        optimizer=tf.compat.v1.train.AdagradOptimizer(0.1),
        loss_reduction=tf.compat.v1.losses.Reduction.SUM_OVER_BATCH_SIZE,
        config=config(model_dir),
    )
    estimator.train(lambda: input_fn(features, label), max_steps=STEPS)
    metrics = estimator.evaluate(lambda: input_fn(features, label, training=False, batch_size=64))
    rows = list(estimator.predict(lambda: predict_input_fn(features, batch_size=64)))[:32]
    return _result(estimator, metrics, rows)


def my_model_fn(features, labels, mode, params):
    """The Custom Estimators tutorial's model_fn."""
    net = tf.compat.v1.feature_column.input_layer(features, params["feature_columns"])
    for units in params["hidden_units"]:
        net = tf.compat.v1.layers.dense(net, units=units, activation=tf.nn.relu)
    logits = tf.compat.v1.layers.dense(net, params["n_classes"], activation=None)
    predicted_classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        predictions = {
            "class_ids": predicted_classes[:, tf.newaxis],
            "probabilities": tf.nn.softmax(logits),
            "logits": logits,
        }
        return tf.estimator.EstimatorSpec(mode, predictions=predictions)
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
    accuracy = tf.compat.v1.metrics.accuracy(
        labels=labels, predictions=predicted_classes, name="acc_op"
    )
    metrics = {"accuracy": accuracy}
    tf.compat.v1.summary.scalar("accuracy", accuracy[1])
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
    optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate=0.1)
    train_op = optimizer.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def guide_model_fn_v1(model_dir):
    classifier = tf.estimator.Estimator(
        model_fn=my_model_fn,
        params={"feature_columns": iris_columns(), "hidden_units": [10, 10], "n_classes": 3},
        config=config(model_dir),
    )
    return _premade(classifier)


loss_obj = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)


def tf2_model_fn(features, labels, mode):
    """The TF2 migration guide's model_fn with TF 2.x symbols."""
    model = tf.keras.Sequential(
        [
            tf.keras.layers.Dense(8, kernel_regularizer="l2", input_shape=(4,)),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Dense(3),
        ]
    )
    x = tf.stack([features[k] for k in CSV_COLUMN_NAMES[:4]], axis=1)
    training = mode == tf.estimator.ModeKeys.TRAIN
    predictions = model(x, training=training)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode=mode, predictions={"probabilities": tf.nn.softmax(predictions)}
        )
    reg_losses = model.get_losses_for(None) + model.get_losses_for(x)
    total_loss = loss_obj(labels, predictions) + tf.math.add_n(reg_losses)
    accuracy_obj = tf.keras.metrics.Accuracy(name="acc_obj")
    accuracy_obj.update_state(y_true=labels, y_pred=tf.math.argmax(predictions, axis=1))
    train_op = None
    if training:
        optimizer = tf.keras.optimizers.legacy.Adam(0.01)
        optimizer.iterations = tf.compat.v1.train.get_or_create_global_step()
        update_ops = model.get_updates_for(None) + model.get_updates_for(x)
        minimize_op = optimizer.get_updates(total_loss, model.trainable_variables)[0]
        train_op = tf.group(minimize_op, *update_ops)
    return tf.estimator.EstimatorSpec(
        mode=mode,
        predictions=predictions,
        loss=total_loss,
        train_op=train_op,
        eval_metric_ops={"Accuracy": accuracy_obj},
    )


def guide_model_fn_tf2(model_dir):
    estimator = tf.estimator.Estimator(model_fn=tf2_model_fn, config=config(model_dir))
    estimator.train(lambda: input_fn(train_x, train_y), max_steps=STEPS)
    metrics = estimator.evaluate(lambda: input_fn(test_x, test_y, training=False))
    rows = list(estimator.predict(lambda: predict_input_fn(test_x)))
    return _result(estimator, metrics, rows)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes its numbers to OUT_JSON."""
    model_dir = os.path.abspath(model_dir)
    result = globals()[case](model_dir)
    with open(out_json, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        sys.exit(f"usage: guide_more.py {{{','.join(CASES)}}} MODEL_DIR OUT_JSON")
    main(*sys.argv[1:])
