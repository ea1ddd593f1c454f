"""Legacy-style scripts for the one-model_fn-on-N-replicas tests (run by `tfport run`).

    python replicas.py KIND,MODEL_DIR,OUT_JSON ...

runs each job in turn (one process: several jobs share one TensorFlow start-up). Each
job trains from MODEL_DIR (a step-0 checkpoint there is resumed), evaluates, and writes
OUT_JSON with the checkpoint's variables (slots excluded) and the evaluation metrics.
Written for TF 1.x-era `tf.estimator` (also runs on TF 2.15 + tensorflow-estimator).

KIND:
  linear_ftrl    LinearClassifier, crossed + bucketized + vocabulary columns, Ftrl
  linear_part    LinearRegressor, the same columns, Adagrad, 2-way partitioned variables
  dnn_embedding  DNNClassifier on an embedding column (Adagrad) and Adam
  keras_bn       model_to_estimator: the TF2 migration guide's Conv2D + BatchNormalization
  bn_offset      model_fn, BatchNormalization on features whose mean is far above their
                 spread (the variance must not come from E[x^2] - E[x]^2)
  keras_loss     model_fn with tf.keras.losses.SparseCategoricalCrossentropy() (default)
  partial        LinearRegressor (Keras SGD) on 103 examples batched by 10: the last
                 global batch (3) splits 2 + 1 across 2 replicas
  partial_v1     model_fn, v1 loss and GradientDescent, the same 103 / 10 batches
  partial_keras  model_fn, tf.keras.losses (default reduction), the same batches
  partial_m2e    model_to_estimator (L2-regularized, SGD) on the same batches
  partial_k3     the same with a Keras 3 model (tfport only)
  bert_cross     BERT's optimizer pattern (tf.gradients + apply_gradients) in CrossShard
  bert_plain     the same optimizer, unwrapped (tfport all-reduces tf.gradients' output)
  bert_computed  the same optimizer on compute_gradients' output (refused: replicas drift)
  adam           the v1 AdamOptimizer control
  tae_export     DNNClassifier (embedding column) through train_and_evaluate with a
                 LatestExporter; OUT_JSON also holds the exported model's predictions
  tpu            TPUEstimator(use_tpu=False), CrossShardOptimizer, iterations_per_loop=4
  linear_ftrl_mw linear_ftrl batched with drop_remainder=True (several workers need full
                 global batches)

The partial kinds also record each training step's reported loss (the `loss` summary).
Under TF_CONFIG a worker other than worker 0 writes OUT_JSON.<type><index>.
"""

import json
import os
import sys

import numpy as np
import tensorflow as tf

v1 = tf.compat.v1
fc = tf.feature_column
STEPS = 12

rng = np.random.RandomState(7)
N = 240
AGE = rng.uniform(18, 70, size=N).astype("float32")
WORDS = np.array(["red", "green", "blue", "cyan", "black", "white"])
COLOR = WORDS[rng.randint(0, 6, size=N)]
CITY = np.array([f"c{i}" for i in rng.randint(0, 40, size=N)])
DENSE = rng.normal(size=(N, 3)).astype("float32")
LABEL = ((AGE > 40) ^ (COLOR == "red") ^ (DENSE[:, 0] > 0)).astype("int64")
TARGET = (0.05 * AGE + (COLOR == "blue") + DENSE[:, 1]).astype("float32")


def tabular_input(label, batch=16, epochs=None, n=N, drop=False):
    def input_fn():
        feats = {"age": AGE[:n], "color": COLOR[:n], "city": CITY[:n], "dense": DENSE[:n]}
        ds = tf.data.Dataset.from_tensor_slices((feats, label[:n]))
        ds = ds.repeat(epochs) if epochs != 1 else ds
        return ds.batch(batch, drop_remainder=drop)

    return input_fn


def linear_columns():
    age = fc.numeric_column("age")
    buckets = fc.bucketized_column(age, boundaries=[25, 35, 45, 55])
    color = fc.categorical_column_with_vocabulary_list("color", list(WORDS))
    city = fc.categorical_column_with_hash_bucket("city", 20)
    crossed = fc.crossed_column([buckets, color], hash_bucket_size=30)
    return [buckets, color, city, crossed, fc.numeric_column("dense", shape=(3,))]


def dnn_columns():
    color = fc.categorical_column_with_vocabulary_list("color", list(WORDS))
    city = fc.categorical_column_with_hash_bucket("city", 20)
    return [
        fc.embedding_column(city, 4),
        fc.indicator_column(color),
        fc.numeric_column("age", normalizer_fn=lambda x: (x - 40.0) / 15.0),
        fc.numeric_column("dense", shape=(3,)),
    ]


IMAGES = rng.uniform(size=(64, 28, 28, 1)).astype("float32")
DIGITS = rng.randint(0, 10, size=64).astype("int64")


def image_input():
    return tf.data.Dataset.from_tensor_slices((IMAGES, DIGITS)).repeat().batch(8)


def guide_model():
    """The TF2 migration guide's model (Dropout left out: dropout masks are random)."""
    tf.keras.utils.set_random_seed(3)  # the same initial weights in every run
    model = tf.keras.models.Sequential(
        [
            tf.keras.layers.Conv2D(
                8,
                3,
                activation="relu",
                kernel_regularizer=tf.keras.regularizers.l2(0.02),
                input_shape=(28, 28, 1),
            ),
            tf.keras.layers.MaxPooling2D(),
            tf.keras.layers.Flatten(),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.BatchNormalization(),
            tf.keras.layers.Dense(10),
        ]
    )
    model.compile(
        # SGD, not the guide's Adam: the bias of a ReLU unit active on the whole batch
        # before BatchNormalization has a zero gradient in exact arithmetic, and Adam
        # turns its float noise into steps of up to the learning rate (on one device
        # too: float32 against float64 differ by 1e-3 there after 12 steps).
        optimizer=tf.keras.optimizers.SGD(0.02),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


class BertAdam(v1.train.Optimizer):
    """BERT's AdamWeightDecayOptimizer pattern: its own apply_gradients."""

    def __init__(self, learning_rate, name="BertAdam"):
        super().__init__(False, name)
        self.learning_rate = learning_rate

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        assignments = []
        for grad, param in grads_and_vars:
            if grad is None or param is None:
                continue
            pname = param.name.split(":")[0]
            m = v1.get_variable(
                pname + "/adam_m",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=v1.zeros_initializer(),
            )
            v = v1.get_variable(
                pname + "/adam_v",
                shape=param.shape.as_list(),
                dtype=tf.float32,
                trainable=False,
                initializer=v1.zeros_initializer(),
            )
            next_m = 0.9 * m + 0.1 * grad
            next_v = 0.999 * v + 0.001 * tf.square(grad)
            update = next_m / (tf.sqrt(next_v) + 1e-6) + 0.01 * param
            assignments.extend(
                [
                    param.assign(param - self.learning_rate * update),
                    m.assign(next_m),
                    v.assign(next_v),
                ]
            )
        return tf.group(*assignments, name=name)


def dense_input(n=64, batch=16, epochs=None):
    x = np.random.RandomState(5).normal(size=(n, 4)).astype("float32")
    y = (x @ np.array([[1.0], [-2.0], [0.5], [1.5]], "float32") > 0).astype("int64")[:, 0]

    def input_fn():
        return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat(epochs).batch(batch)

    return input_fn


def offset_input():
    x = 10.0 + 0.1 * np.random.RandomState(9).normal(size=(64, 4)).astype("float32")
    y = (x[:, 0] + x[:, 1] > 20.0).astype("int64")
    return tf.data.Dataset.from_tensor_slices(({"x": x}, y)).repeat().batch(16)


def small_keras_model():
    tf.keras.utils.set_random_seed(5)
    inputs = tf.keras.Input(shape=(4,), name="x")
    hidden = tf.keras.layers.Dense(
        8, activation="relu", kernel_regularizer=tf.keras.regularizers.l2(0.01)
    )(inputs)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(hidden))
    model.compile(
        optimizer=tf.keras.optimizers.SGD(0.2),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def small_keras3_model():
    """The same model in Keras 3 (`import keras`; not on TF 1.x-era stacks)."""
    import keras

    keras.utils.set_random_seed(5)
    inputs = keras.Input(shape=(4,), name="x")
    hidden = keras.layers.Dense(
        8, activation="relu", kernel_regularizer=keras.regularizers.l2(0.01)
    )(inputs)
    model = keras.Model(inputs, keras.layers.Dense(2)(hidden))
    model.compile(
        optimizer=keras.optimizers.SGD(0.2),
        loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=["accuracy"],
    )
    return model


def tpu_model_fn(features, labels, mode, params):
    hidden = v1.layers.dense(features["x"], 8, activation=tf.nn.relu, name="hidden")
    logits = v1.layers.dense(hidden, 2, name="logits")
    loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:

        def metric_fn(labels, logits):
            return {"acc": v1.metrics.accuracy(labels, tf.argmax(logits, 1))}

        return v1.estimator.tpu.TPUEstimatorSpec(
            mode, loss=loss, eval_metrics=(metric_fn, [labels, logits])
        )
    opt = v1.tpu.CrossShardOptimizer(v1.train.AdamOptimizer(0.05))
    train_op = opt.minimize(loss, global_step=v1.train.get_global_step())
    return v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)


def tpu_input(take=None):
    def input_fn(params):
        ds = dense_input(batch=params["batch_size"])()
        return ds.take(take) if take else ds

    return input_fn


def custom_model_fn(kind):
    def model_fn(features, labels, mode):
        if kind == "bn_offset":
            training = mode == tf.estimator.ModeKeys.TRAIN
            normal = v1.layers.batch_normalization(
                features["x"], momentum=0.5, training=training, name="bn"
            )
            logits = v1.layers.dense(normal, 2, name="logits")
            loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        elif kind in ("keras_loss", "partial_keras"):
            hidden = tf.keras.layers.Dense(8, activation="relu", name="hidden")(features["x"])
            logits = tf.keras.layers.Dense(2, name="logits")(hidden)
            loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits)
        else:
            hidden = v1.layers.dense(features["x"], 8, activation=tf.nn.relu, name="hidden")
            logits = v1.layers.dense(hidden, 2, name="logits")
            loss = v1.losses.sparse_softmax_cross_entropy(labels, logits)
        if mode == tf.estimator.ModeKeys.EVAL:
            acc = v1.metrics.accuracy(labels, tf.argmax(logits, 1))
            return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={"acc": acc})
        step = v1.train.get_global_step()
        if kind in ("bert_cross", "bert_plain"):
            opt = BertAdam(0.05)
            if kind == "bert_cross":
                opt = v1.tpu.CrossShardOptimizer(opt)
            tvars = v1.trainable_variables()
            grads = tf.gradients(loss, tvars)
            grads, _ = tf.clip_by_global_norm(grads, clip_norm=100.0)
            train_op = opt.apply_gradients(zip(grads, tvars), global_step=step)
            train_op = tf.group(train_op, step.assign_add(1))
        elif kind == "bert_computed":  # its own apply_gradients on compute_gradients' output
            opt = BertAdam(0.05)
            train_op = opt.apply_gradients(opt.compute_gradients(loss), global_step=step)
            train_op = tf.group(train_op, step.assign_add(1))
        elif kind.startswith("partial") or kind == "bn_offset":
            opt = v1.train.GradientDescentOptimizer(0.2)
            updates = v1.get_collection(v1.GraphKeys.UPDATE_OPS)  # BatchNormalization's
            with tf.control_dependencies(updates):
                train_op = opt.minimize(loss, global_step=step)
        else:
            train_op = v1.train.AdamOptimizer(0.05).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

    return model_fn


def make(kind, model_dir):
    summaries = 1 if kind.startswith("partial") else 100  # each step's reported loss
    config = tf.estimator.RunConfig(
        model_dir=model_dir, tf_random_seed=11, save_summary_steps=summaries
    )
    if kind.startswith("linear_ftrl"):
        drop = kind == "linear_ftrl_mw"
        est = tf.estimator.LinearClassifier(linear_columns(), config=config)
        return est, tabular_input(LABEL, drop=drop), tabular_input(LABEL, epochs=1, drop=drop)
    if kind == "linear_part":
        est = tf.compat.v1.estimator.LinearRegressor(
            linear_columns(),
            config=config,
            optimizer="Adagrad",
            partitioner=v1.fixed_size_partitioner(2),
        )
        return est, tabular_input(TARGET), tabular_input(TARGET, epochs=1)
    if kind == "dnn_embedding":
        est = tf.estimator.DNNClassifier([8, 4], dnn_columns(), config=config, optimizer="Adagrad")
        return est, tabular_input(LABEL), tabular_input(LABEL, epochs=1)
    if kind == "dnn_adam":
        est = tf.estimator.DNNRegressor([8], dnn_columns(), config=config, optimizer="Adam")
        return est, tabular_input(TARGET), tabular_input(TARGET, epochs=1)
    if kind == "partial":
        age = fc.numeric_column("age", normalizer_fn=lambda x: (x - 44.0) / 15.0)
        est = tf.estimator.LinearRegressor(
            [age, fc.numeric_column("dense", shape=(3,))],
            config=config,
            optimizer=tf.keras.optimizers.legacy.SGD(0.05),
        )
        inp = tabular_input(TARGET, batch=10, epochs=1, n=103)
        return est, inp, inp
    if kind == "keras_bn":
        est = tf.keras.estimator.model_to_estimator(keras_model=guide_model(), config=config)
        return est, image_input, lambda: image_input().take(4)
    if kind in ("partial_m2e", "partial_k3"):
        model = small_keras_model() if kind == "partial_m2e" else small_keras3_model()
        est = tf.keras.estimator.model_to_estimator(keras_model=model, config=config)
        inp = dense_input(n=103, batch=10, epochs=1)
        return est, inp, inp
    if kind == "tpu":
        config = v1.estimator.tpu.RunConfig(
            model_dir=model_dir,
            tf_random_seed=11,
            tpu_config=v1.estimator.tpu.TPUConfig(iterations_per_loop=4),
        )
        est = v1.estimator.tpu.TPUEstimator(
            tpu_model_fn, config=config, use_tpu=False, train_batch_size=16, eval_batch_size=16
        )
        return est, tpu_input(), tpu_input(take=4)
    est = tf.estimator.Estimator(custom_model_fn(kind), config=config)
    if kind == "bn_offset":
        return est, offset_input, lambda: offset_input().take(4)
    if kind.startswith("partial"):
        inp = dense_input(n=103, batch=10, epochs=1)
        return est, inp, inp
    inp = dense_input()
    return est, inp, lambda: inp().take(4)


def serving_examples():
    examples = []
    for i in range(16):
        feature = {
            "age": tf.train.Feature(float_list=tf.train.FloatList(value=[AGE[i]])),
            "color": tf.train.Feature(bytes_list=tf.train.BytesList(value=[COLOR[i].encode()])),
            "city": tf.train.Feature(bytes_list=tf.train.BytesList(value=[CITY[i].encode()])),
            "dense": tf.train.Feature(float_list=tf.train.FloatList(value=DENSE[i])),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        examples.append(example.SerializeToString())
    return examples


def train_and_evaluate(model_dir):
    """DNNClassifier through train_and_evaluate; the exported model's probabilities."""
    columns = dnn_columns()
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=11)
    est = tf.estimator.DNNClassifier([8, 4], columns, config=config, optimizer="Adagrad")
    spec = fc.make_parse_example_spec(columns)
    receiver = tf.estimator.export.build_parsing_serving_input_receiver_fn(spec)
    exporter = tf.estimator.LatestExporter("latest", receiver)
    train_spec = tf.estimator.TrainSpec(tabular_input(LABEL), max_steps=STEPS)
    eval_spec = tf.estimator.EvalSpec(
        tabular_input(LABEL, epochs=1), steps=None, exporters=[exporter], throttle_secs=0
    )
    metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    export_dir = exports[0]
    export_dir = export_dir.decode() if isinstance(export_dir, bytes) else export_dir
    predict = tf.saved_model.load(export_dir).signatures["predict"]
    probabilities = predict(examples=tf.constant(serving_examples()))["probabilities"]
    return metrics, np.asarray(probabilities).tolist()


def train_losses(model_dir):
    """{step: the training loss logged at that step} (the `loss` summaries)."""
    losses = {}
    for path in tf.io.gfile.glob(f"{model_dir}/events.out.tfevents.*"):
        for event in v1.train.summary_iterator(path):
            for value in event.summary.value:
                if value.tag in ("loss", "loss_1"):  # loss_1: a Keras graph named one "loss"
                    losses[str(event.step)] = float(value.simple_value)
    return losses


def run(kind, model_dir, out):
    result = {}
    if kind == "tae_export":
        metrics, result["exported"] = train_and_evaluate(model_dir)
    else:
        est, train_input, eval_input = make(kind, model_dir)
        steps = None if kind.startswith("partial") else STEPS
        est.train(train_input, steps=steps)
        metrics = est.evaluate(eval_input)
    if kind.startswith("partial"):
        result["train_losses"] = train_losses(model_dir)
    reader = tf.train.load_checkpoint(model_dir)
    skip = ("Ftrl", "Adagrad", "Adam", "adam_", "power", "global_step", "optimizer")
    variables = {
        name: np.asarray(reader.get_tensor(name)).tolist()
        for name in reader.get_variable_to_shape_map()
        if not any(s in name for s in skip) and reader.get_variable_to_dtype_map()[name].is_floating
    }
    result["metrics"] = {k: float(v) for k, v in metrics.items()}
    result["variables"] = variables
    task = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    if task.get("index", 0):  # a second worker process: its own file
        out = f"{out}.{task.get('type')}{task['index']}"
    with open(out, "w") as f:
        json.dump(result, f)


for job in sys.argv[1:]:
    run(*job.split(","))
    print("done", job, flush=True)
