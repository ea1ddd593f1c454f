"""Families only private modules reach: the time-series estimators, SavedModelEstimator.

Usage::

    python families_private.py CASE MODEL_DIR OUT_JSON

Each case trains 40 steps on MODEL_DIR (resuming from any checkpoint there; checkpoints
every 20 steps), evaluates, predicts, exports under ``MODEL_DIR/../export/`` and writes
``eval_metrics``, ``predictions``, ``variables`` (the step-40 checkpoint's names),
``export_dir`` and ``served`` (what the export returned) to OUT_JSON. The modules are
imported the legacy way, from ``tensorflow_estimator.python.estimator.canned``.

- ``private_ts_ar`` (both time-series cases call
  ``tf.compat.v1.disable_resource_variables()``, without which TF 2.15 cannot evaluate
  them): ``timeseries.estimators.TimeSeriesRegressor`` over an
  ``ar_model.ARModel`` (2 features, periodicities 10 and 7, input window 4, output
  window 2, an ``LSTMPredictionModel`` of 8 units, Adam 0.01), trained on fixed
  6-step windows (batch 8) of a 100-step series; evaluated on the whole series (its
  ``start_tuple`` continues the series); predicts 6 steps after it; exported with
  ``build_raw_serving_input_receiver_fn`` and served with
  ``saved_model_utils.cold_start_filter`` / ``filter_continuation`` /
  ``predict_continuation`` in a session.
- ``private_ts_lstm``: ``timeseries.estimators.LSTMAutoRegressor`` (1 feature,
  periodicity 10, input window 5, output window 3, 8 units, squared loss); evaluated on
  the whole series, predicts 4 steps after the series' last input window, exported with
  ``build_one_shot_parsing_serving_input_receiver_fn(filtering_length=20,
  prediction_length=4)`` and served on two ``tf.Example``s.
- ``private_saved_model``: a ``DNNRegressor`` trained 40 steps, exported with
  ``experimental_export_all_saved_models`` (raw supervised TRAIN and EVAL receivers, a
  parsing PREDICT receiver: the regression ``serving_default`` reads tf.Examples), then a
  ``saved_model_estimator.SavedModelEstimator`` over that export predicts and
  evaluates (from the export's variables), trains 10 more steps in its own folder and
  evaluates again.
"""

import functools
import json
import os
import shutil
import sys
import tempfile

import numpy as np

CASES = ("private_ts_ar", "private_ts_lstm", "private_saved_model")
STEPS = 40
LENGTH = 100


def _series(num_features, seed):
    rng = np.random.RandomState(seed)
    t = np.arange(LENGTH)
    columns = [np.sin(2 * np.pi * t / 10.0 + k) + 0.05 * t * (k + 1) for k in range(num_features)]
    values = np.stack(columns, axis=1) + rng.normal(scale=0.1, size=(LENGTH, num_features))
    return t.astype("int64"), values.astype("float32")


def _windows(times, values, window):
    starts = np.arange(0, LENGTH - window + 1, 3)
    return {
        "times": np.stack([times[s : s + window] for s in starts]),
        "values": np.stack([values[s : s + window] for s in starts]),
    }


def _ts_run(tf, est, times, values, window, batch):
    # The heads' identity metrics assign with validate_shape=False, which TF 2.15's
    # default resource variables refuse (evaluate fails): legacy users turned them off.
    tf.compat.v1.disable_resource_variables()
    windows = _windows(times, values, window)

    def train_input_fn():
        return tf.data.Dataset.from_tensor_slices(windows).repeat().batch(batch)

    def eval_input_fn():
        return tf.data.Dataset.from_tensors({"times": times[None], "values": values[None]})

    est.train(train_input_fn, max_steps=STEPS)
    metrics = est.evaluate(eval_input_fn, steps=1)
    return windows, metrics


def private_ts_ar(model_dir):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned.timeseries import (
        ar_model,
        estimators,
        saved_model_utils,
    )

    times, values = _series(2, seed=3)
    model = ar_model.ARModel(
        periodicities=[10, 7],
        input_window_size=4,
        output_window_size=2,
        num_features=2,
        prediction_model_factory=functools.partial(ar_model.LSTMPredictionModel, num_units=8),
    )
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)
    est = estimators.TimeSeriesRegressor(
        model, optimizer=tf.compat.v1.train.AdamOptimizer(0.01), config=config
    )
    _, metrics = _ts_run(tf, est, times, values, window=6, batch=8)
    future = np.arange(LENGTH, LENGTH + 6, dtype="int64")[None]

    def predict_input_fn():
        features = {"times": future, "start_tuple": metrics["start_tuple"]}
        return tf.data.Dataset.from_tensors(features)

    predictions = list(est.predict(predict_input_fn))
    export_base = os.path.join(os.path.dirname(model_dir), "export")
    path = est.export_saved_model(export_base, est.build_raw_serving_input_receiver_fn())
    served = _serve_ar(tf, saved_model_utils, path, times, values)
    return {
        "eval_metrics": metrics,
        "predictions": [{k: v for k, v in p.items()} for p in predictions],
        "served": served,
        "export_dir": os.path.basename(path.decode() if isinstance(path, bytes) else path),
    }


def _serve_ar(tf, saved_model_utils, path, times, values):
    if not hasattr(saved_model_utils, "numpy"):
        # TF 2.15's module deletes its own `numpy` import (remove_undocumented), so its
        # cold_start_filter / filter_continuation raise NameError: legacy users put it back.
        saved_model_utils.numpy = np
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        signatures = tf.compat.v1.saved_model.loader.load(session, ["serve"], path)
        first = {"times": times[:60], "values": values[:60]}
        state = saved_model_utils.cold_start_filter(signatures, session, first)
        rest = {"times": times[60:], "values": values[60:]}
        state = saved_model_utils.filter_continuation(state, signatures, session, rest)
        by_steps = saved_model_utils.predict_continuation(state, signatures, session, steps=5)
        by_times = saved_model_utils.predict_continuation(
            state, signatures, session, times=[[LENGTH + 1, LENGTH + 3, LENGTH + 4]]
        )
    return {"state": state, "by_steps": by_steps, "by_times": by_times}


def private_ts_lstm(model_dir):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned.timeseries import ar_model, estimators

    times, values = _series(1, seed=5)
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)
    est = estimators.LSTMAutoRegressor(
        periodicities=10,
        input_window_size=5,
        output_window_size=3,
        num_units=8,
        loss=ar_model.ARModel.SQUARED_LOSS,
        config=config,
    )
    _, metrics = _ts_run(tf, est, times, values, window=8, batch=8)
    future = np.arange(LENGTH, LENGTH + 4, dtype="int64")[None]
    # its evaluation returns no start_tuple: the state is the series' last input window
    state = (times[None, -5:], values[None, -5:], np.zeros([1, 5, 0], "float32"))

    def predict_input_fn():
        features = {"times": future, "values": values[None, -5:], "start_tuple": state}
        return tf.data.Dataset.from_tensors(features)

    predictions = list(est.predict(predict_input_fn))
    export_base = os.path.join(os.path.dirname(model_dir), "export")
    receiver = est.build_one_shot_parsing_serving_input_receiver_fn(
        filtering_length=20, prediction_length=4
    )
    path = est.export_saved_model(export_base, receiver)
    served = _serve_lstm(tf, path, times, values)
    return {
        "eval_metrics": metrics,
        "predictions": [{k: v for k, v in p.items()} for p in predictions],
        "served": served,
        "export_dir": os.path.basename(path.decode() if isinstance(path, bytes) else path),
    }


def _serve_lstm(tf, path, times, values):
    rows = []
    for start in (10, 50):
        feature = {
            "times": tf.train.Feature(
                int64_list=tf.train.Int64List(value=times[start : start + 24].tolist())
            ),
            "values": tf.train.Feature(
                float_list=tf.train.FloatList(value=values[start : start + 20, 0].tolist())
            ),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        rows.append(example.SerializeToString())
    with tf.Graph().as_default(), tf.compat.v1.Session() as session:
        meta = tf.compat.v1.saved_model.loader.load(session, ["serve"], path)
        signature = meta.signature_def["serving_default"]
        fetches = {k: v.name for k, v in signature.outputs.items()}
        return session.run(fetches, {signature.inputs["examples"].name: rows})


def _tabular():
    rng = np.random.RandomState(17)
    x = rng.normal(size=(64, 3)).astype("float32")
    y = (x @ np.array([1.0, -2.0, 0.5], "float32") + 0.3).astype("float32")[:, None]
    return x, y


def private_saved_model(model_dir):
    import tensorflow as tf
    from tensorflow_estimator.python.estimator.canned import saved_model_estimator

    x, y = _tabular()
    columns = [tf.feature_column.numeric_column("x", shape=[3])]
    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)
    est = tf.estimator.DNNRegressor([8, 4], columns, config=config)

    def input_fn(train):
        ds = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return ds.repeat().batch(16) if train else ds.batch(32)

    est.train(lambda: input_fn(True), max_steps=STEPS)
    supervised = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
        {"x": tf.zeros([1, 3])}, tf.zeros([1, 1])
    )
    receivers = {
        tf.estimator.ModeKeys.TRAIN: supervised,
        tf.estimator.ModeKeys.EVAL: supervised,
        tf.estimator.ModeKeys.PREDICT: tf.estimator.export.build_parsing_serving_input_receiver_fn(
            {"x": tf.io.FixedLenFeature([3], tf.float32)}
        ),
    }
    export_base = os.path.join(os.path.dirname(model_dir), "export")
    path = est.experimental_export_all_saved_models(export_base, receivers)
    path = path.decode() if isinstance(path, bytes) else path
    sme_dir = tempfile.mkdtemp()  # its checkpoint state file holds absolute paths
    sme = saved_model_estimator.SavedModelEstimator(path, model_dir=sme_dir)
    # serving_default (a RegressionOutput) reads serialized tf.Examples under "inputs"
    examples = [
        tf.train.Example(
            features=tf.train.Features(
                feature={"x": tf.train.Feature(float_list=tf.train.FloatList(value=row))}
            )
        ).SerializeToString()
        for row in x.tolist()
    ]

    def predict_input_fn():
        return tf.data.Dataset.from_tensor_slices({"inputs": examples}).batch(32)

    predictions = [p["outputs"].tolist() for p in sme.predict(predict_input_fn)]
    metrics = sme.evaluate(lambda: input_fn(False))
    sme.train(lambda: input_fn(True), steps=10)
    after = sme.evaluate(lambda: input_fn(False))
    result = {
        "eval_metrics": est.evaluate(lambda: input_fn(False)),
        "predictions": predictions,
        "saved_model_eval": metrics,
        "saved_model_eval_after_train": after,
        "saved_model_vars_after_train": {
            name: sme.get_variable_value(name).tolist()
            for name in sme.get_variable_names()
            if not name.startswith("global_step")
        },
        "export_dir": os.path.basename(path),
    }
    shutil.rmtree(sme_dir)
    return result


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return _plain(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, bytes):
        return value.decode()
    return value


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes its numbers to OUT_JSON."""
    import tensorflow as tf

    model_dir = os.path.abspath(model_dir)
    result = globals()[case](model_dir)
    ckpt = tf.train.latest_checkpoint(model_dir)
    result["variables"] = sorted(name for name, _ in tf.train.list_variables(ckpt))
    result["steps"] = STEPS
    with open(out_json, "w") as f:
        json.dump(_plain(result), f, indent=1, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        sys.exit(f"usage: families_private.py {{{','.join(CASES)}}} MODEL_DIR OUT_JSON")
    main(*sys.argv[1:])
