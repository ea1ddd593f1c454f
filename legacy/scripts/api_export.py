"""Legacy public API around a model_fn: call_logit_fn, the parse-example specs, the
early-stopping hook builders, make_stop_at_checkpoint_step_hook, and
experimental_export_all_saved_models with build_raw_supervised_input_receiver_fn
(TRAIN and EVAL, whose EVAL signature is an EvalOutput) and a serving receiver (PREDICT).

Usage::

    python api_export.py CASE MODEL_DIR OUT_JSON

``api_logit_fn_export``: a custom model_fn whose logits come from
``tf.estimator.experimental.call_logit_fn`` (a logit_fn taking features, mode, params
and config) over ``BinaryClassHead(weight_column="w")``, fed by tf.Examples parsed with
``classifier_parse_example_spec``; trained 40 steps (batch 16, checkpoints 0/20/40) with
``make_early_stopping_hook`` (a predicate that counts its calls and never stops),
``stop_if_lower_hook`` / ``stop_if_no_increase_hook`` (which never fire) and
``make_stop_at_checkpoint_step_hook``. It records both parse specs, the predicate's
calls, then exports all three modes, loads each tag and runs its signatures (the EVAL
loss and predictions; the TRAIN signature's names only: running it trains).
"""

import json
import sys
import tempfile

import numpy as np

CASES = ("api_logit_fn_export",)
STEPS, BATCH = 40, 16


def _data():
    rng = np.random.RandomState(23)
    x = rng.normal(size=(96, 3)).astype("float32")
    w = rng.uniform(0.5, 1.5, size=(96,)).astype("float32")
    y = (x[:, 0] + 0.5 * x[:, 2] > 0).astype("int64")
    return x, w, y


def _spec_dict(spec):
    return {
        k: [type(v).__name__, list(v.shape), v.dtype.name, repr(v.default_value)]
        for k, v in sorted(spec.items())
    }


def _examples(tf, x, w, y):
    rows = []
    for xi, wi, yi in zip(x, w, y):
        feature = {
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=xi.tolist())),
            "w": tf.train.Feature(float_list=tf.train.FloatList(value=[float(wi)])),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[int(yi)])),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        rows.append(example.SerializeToString())
    return rows


def _outputs(tf, fn, **inputs):
    out = fn(**{k: tf.constant(v) for k, v in inputs.items()})
    return {
        k: (
            [[b.decode() for b in r] for r in v.numpy()]
            if v.dtype == tf.string
            else np.asarray(v.numpy()).astype("float64").tolist()
        )
        for k, v in out.items()
    }


def logit_fn_export(model_dir, out_json):
    import tensorflow as tf

    x, w, y = _data()
    columns = [tf.feature_column.numeric_column("x", shape=[3])]
    spec = tf.estimator.classifier_parse_example_spec(columns, "label", weight_column="w")
    reg_spec = tf.estimator.regressor_parse_example_spec(
        columns, "target", label_dimension=2, weight_column="w"
    )
    serialized = _examples(tf, x, w, y)
    head = tf.estimator.BinaryClassHead(weight_column="w")

    def logit_fn(features, mode, params, config):
        del config
        net = tf.compat.v1.feature_column.input_layer(features, columns)
        if mode == tf.estimator.ModeKeys.TRAIN:
            net = net * params["scale"]
        return tf.compat.v1.layers.dense(net, 1, name="logits")

    def model_fn(features, labels, mode, params, config):
        logits = tf.estimator.experimental.call_logit_fn(logit_fn, features, mode, params, config)
        opt = tf.keras.optimizers.legacy.SGD(0.1)
        opt.iterations = tf.compat.v1.train.get_or_create_global_step()
        return head.create_estimator_spec(
            features,
            mode,
            logits,
            labels,
            optimizer=opt,
            trainable_variables=tf.compat.v1.trainable_variables(),
        )

    def input_fn(batch, repeat):
        def fn():
            ds = tf.data.Dataset.from_tensor_slices(serialized)
            ds = ds.repeat() if repeat else ds
            ds = ds.batch(batch, drop_remainder=repeat)
            parsed = ds.map(lambda s: tf.io.parse_example(s, spec))
            return parsed.map(lambda f: ({"x": f["x"], "w": f["w"]}, f.pop("label")))

        return fn

    config = tf.estimator.RunConfig(model_dir=model_dir, save_checkpoints_steps=20)
    est = tf.estimator.Estimator(model_fn, config=config, params={"scale": 1.0})
    calls = []
    exp = tf.estimator.experimental
    hooks = [
        exp.make_early_stopping_hook(
            est, lambda: calls.append(1) is not None, run_every_secs=None, run_every_steps=10
        ),
        exp.stop_if_lower_hook(est, "loss", -1.0, run_every_secs=None, run_every_steps=10),
        exp.stop_if_no_increase_hook(est, "auc", 1000, run_every_secs=None, run_every_steps=10),
        exp.make_stop_at_checkpoint_step_hook(est, STEPS, wait_after_file_check_secs=0.01),
    ]
    est.train(input_fn(BATCH, True), hooks=hooks, max_steps=STEPS)
    eval_fn = input_fn(48, False)
    metrics = est.evaluate(eval_fn)
    preds = [
        {
            k: np.asarray(v).astype("float64").tolist()
            for k, v in p.items()
            if np.asarray(v).dtype.kind in "fi"
        }
        for p in est.predict(eval_fn)
    ][:24]

    def serving_fn():
        x_in = tf.compat.v1.placeholder(tf.float32, [None, 3], name="x")
        w_in = tf.compat.v1.placeholder(tf.float32, [None, 1], name="w")
        return tf.estimator.export.ServingInputReceiver(
            {"x": x_in, "w": w_in}, {"x": x_in, "w": w_in}
        )

    supervised = exp.build_raw_supervised_input_receiver_fn(
        {"x": tf.zeros([1, 3]), "w": tf.zeros([1, 1])}, tf.zeros([1, 1], tf.int64)
    )
    modes = tf.estimator.ModeKeys
    rows = {"x": x[:8], "w": w[:8].reshape(-1, 1)}
    served = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = est.experimental_export_all_saved_models(
            tmp, {modes.TRAIN: supervised, modes.EVAL: supervised, modes.PREDICT: serving_fn}
        )
        path = path.decode() if isinstance(path, bytes) else path
        for tag in ("serve", "train", "eval"):
            loaded = tf.saved_model.load(path, tags=[tag])
            for name in sorted(loaded.signatures):
                fn = loaded.signatures[name]
                outputs = sorted(fn.structured_outputs)
                key = f"{tag}:{name}"
                if tag == "train":
                    served[key] = outputs
                    continue
                inputs = dict(rows)
                if tag == "eval":
                    inputs["label"] = y[:8].reshape(-1, 1)
                got = _outputs(tf, fn, **inputs)
                if tag == "eval":  # metric values depend on their update's order in the run
                    got = {k: v for k, v in got.items() if not k.startswith("metrics/")}
                served[key] = {"outputs": outputs, "values": got}
    out = {
        "eval_metrics": {k: float(v) for k, v in metrics.items()},
        "predictions": preds,
        "variables": sorted(n for n, _ in tf.train.list_variables(est.latest_checkpoint())),
        "steps": STEPS,
        "batch_size": BATCH,
        "parse_specs": {"classifier": _spec_dict(spec), "regressor": _spec_dict(reg_spec)},
        "predicate_calls": len(calls),
        "served": served,
    }
    with open(out_json, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def main(case, model_dir, out_json):
    """Runs CASE on MODEL_DIR and writes OUT_JSON."""
    {"api_logit_fn_export": logit_fn_export}[case](model_dir, out_json)


if __name__ == "__main__":
    main(*sys.argv[1:4])
