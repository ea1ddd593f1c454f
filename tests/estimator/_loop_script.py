"""A legacy-style script for the steps-per-loop tests (run by `tfport run`).

    python _loop_script.py KIND,MODEL_DIR,OUT_JSON[,INIT_CHECKPOINT] ...

runs each job in turn (one process, so several jobs share one TensorFlow start-up).

KIND: `custom` (Estimator, iterations_per_loop=10, save_checkpoints_steps=20),
`tpu` (TPUEstimator, the same loop), `every10` (iterations_per_loop=20,
save_checkpoints_steps=10, max_steps=20), `bert_tpu` / `bert_plain` (TPUEstimator with
the default iterations_per_loop=1000, fine-tuning from INIT_CHECKPOINT with
`init_from_checkpoint` in a scaffold_fn (use_tpu=True) or in the model_fn).
OUT_JSON gets the user hook's before_run count, the checkpoint steps and variables.
"""

import json
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
rng = np.random.RandomState(3)
X = rng.normal(size=(256, 4)).astype("float32")
Y = (X @ rng.normal(size=(4, 1)) > 0).astype("int64")[:, 0]


def input_fn(params=None):
    batch = (params or {}).get("batch_size", 32)
    ds = tf.data.Dataset.from_tensor_slices(({"x": X}, Y))
    return ds.repeat().batch(batch, drop_remainder=True)


def network(features):
    hidden = v1.layers.dense(features["x"], 8, activation=tf.nn.relu, name="hidden")
    return v1.layers.dense(hidden, 2, name="logits")


def run(KIND, MODEL_DIR, OUT, INIT=None):  # noqa: N803 - the script's job fields
    def model_fn(features, labels, mode, params):
        logits = network(features)
        loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        opt = v1.train.AdamOptimizer(0.01)
        if params.get("use_tpu"):
            opt = v1.tpu.CrossShardOptimizer(opt)
        train_op = opt.minimize(loss, global_step=v1.train.get_global_step())
        scaffold_fn = None
        if INIT:
            assignment = {"hidden/": "hidden/"}
            if params.get("use_tpu"):

                def scaffold_fn():
                    v1.train.init_from_checkpoint(INIT, assignment)
                    return v1.train.Scaffold()

            else:
                v1.train.init_from_checkpoint(INIT, assignment)
        if KIND == "custom" or KIND == "every10":
            return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(
            mode, loss=loss, train_op=train_op, scaffold_fn=scaffold_fn
        )

    class CountingHook(v1.train.SessionRunHook):
        def __init__(self):
            self.before_run_calls = 0

        def before_run(self, run_context):
            self.before_run_calls += 1

    hook = CountingHook()
    if KIND == "custom":
        config = tf.estimator.RunConfig(
            model_dir=MODEL_DIR, iterations_per_loop=10, save_checkpoints_steps=20
        )
        est = tf.estimator.Estimator(model_fn, config=config, params={})
        est.train(input_fn, hooks=[hook], max_steps=40)
    elif KIND == "every10":
        config = tf.estimator.RunConfig(
            model_dir=MODEL_DIR, iterations_per_loop=20, save_checkpoints_steps=10
        )
        est = tf.estimator.Estimator(model_fn, config=config, params={})
        est.train(input_fn, hooks=[hook], max_steps=20)
    else:
        tpu = tf.compat.v1.estimator.tpu
        loop = 10 if KIND == "tpu" else 1000
        config = tpu.RunConfig(
            model_dir=MODEL_DIR,
            save_checkpoints_steps=20,
            tpu_config=tpu.TPUConfig(iterations_per_loop=loop),
        )
        est = tpu.TPUEstimator(
            model_fn, config=config, use_tpu=KIND == "bert_tpu", train_batch_size=32
        )
        est.train(input_fn, hooks=[hook], max_steps=40)
    state = v1.train.get_checkpoint_state(MODEL_DIR)
    steps = sorted(int(p.rsplit("-", 1)[1]) for p in state.all_model_checkpoint_paths)
    reader = tf.train.load_checkpoint(MODEL_DIR)
    variables = {
        name: reader.get_tensor(name).tolist()
        for name in reader.get_variable_to_shape_map()
        if "Adam" not in name and "power" not in name
    }
    with open(OUT, "w") as f:
        json.dump({"before_run": hook.before_run_calls, "steps": steps, "variables": variables}, f)


for job in sys.argv[1:]:
    run(*job.split(","))
    print("done", job)
