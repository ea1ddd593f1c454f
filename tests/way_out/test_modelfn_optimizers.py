"""`plan_optimizer`: a model_fn's train op as a Keras 3 optimizer doing the same update.

Each case traces the model_fn in TRAIN mode, restores a checkpoint (the legacy goldens'
where there is one), computes the loss's gradients on a fixed batch and runs the train op
once; the Keras optimizer built from the plan's code (executed as model.py will: a module
namespace with keras, ops, np), on Keras variables holding the checkpoint's values, with
its state from `restore_state`, applies the same gradients. Every variable and slot must
agree within 1e-5.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tfport.checkpoint import CheckpointReader
from tfport.keras._modelfn._optimizer_plan import OptimizerPlan, restore_state
from tfport.keras._modelfn._optimizers import plan_optimizer
from tfport.keras._modelfn._source import formatted
from tfport.verify import load_estimator

HERE = pathlib.Path(__file__).resolve().parent
BATCH = 8


def _inputs(case: str) -> tuple[dict, np.ndarray]:
    """The fixed batch of a case: {feature: (dtype, array)}, labels."""
    import modelfn_factories as mf
    import optimizer_factories as of

    programs = mf.script("tpu_programs")
    if case == "tpu_cnn_host_call":
        images, labels = programs.make_images(1, BATCH)
        return {"": images}, labels
    if case == "tpu_pretrain_lamb":
        features, labels = programs.make_tokens(1, BATCH)
        return features, labels
    if case == "custom_v1_adam":
        data = mf.script("estimator_cases").DATA
        return {"": data["train_x"][:BATCH]}, data["train_y"][:BATCH]
    x, y = of.features()
    return {"": x}, y


FUSED = {  # case -> the Keras 3 optimizer it maps to
    "v1_rmsprop_centered": "keras.optimizers.RMSprop(",
    "v1_adagrad": "keras.optimizers.Adagrad(",
    "v1_sgd_inverse_time": "keras.optimizers.SGD(learning_rate=LearningRate()",
    "v1_nesterov": "V1Momentum(learning_rate=keras.optimizers.schedules.PiecewiseConstantDecay(",
    "keras_sgd_nesterov": "keras.optimizers.SGD(",
    "keras_adam": "keras.optimizers.Adam(",
}


def _factory(case: str) -> str:
    golden = ("tpu_cnn_host_call", "custom_v1_adam")
    return (
        f"{HERE / ('modelfn_factories.py' if case in golden else 'optimizer_factories.py')}:{case}"
    )


def _session_step(case: str, model_dir: str, checkpoint: str | None, out: pathlib.Path):
    """(plan, checkpoint, before, gradients, after): the state before and after one run of
    the train op, by variable name."""
    import tensorflow as tf

    features, labels = _inputs(case)
    estimator = load_estimator(_factory(case), model_dir)
    graph = tf.Graph()
    with graph.as_default():
        step = tf.compat.v1.train.get_or_create_global_step()
        feeds = {k: tf.compat.v1.placeholder(v.dtype, v.shape) for k, v in features.items()}
        label = tf.compat.v1.placeholder(labels.dtype, labels.shape)
        spec = estimator.model_fn(feeds.get("", feeds), label, "train", estimator.config)
        trainable = tf.compat.v1.trainable_variables()
        plan = plan_optimizer(graph, spec.train_op, spec.loss, trainable, step)
        grads = tf.gradients(spec.loss, trainable)
        saver = tf.compat.v1.train.Saver()
        feed = {feeds[k]: v for k, v in features.items()}
        feed[label] = labels
        # one inter-op thread, as the golden programs ran: LAMB's train op increments the
        # step beside (not after) the learning rate's read of it; one thread runs the read
        # first, as Keras reads `iterations` before incrementing it
        config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=1)
        with tf.compat.v1.Session(config=config) as sess:
            if checkpoint:
                saver.restore(sess, checkpoint)
            else:  # a few steps first, so that the slots are not zeros
                sess.run(tf.compat.v1.global_variables_initializer())
                for _ in range(3):
                    sess.run(spec.train_op, feed)
            checkpoint = saver.save(sess, str(out / "model.ckpt"), write_meta_graph=False)
            state = {v.op.name: v for v in tf.compat.v1.global_variables()}
            before = sess.run(state)
            gradients = sess.run(grads, feed)
            sess.run(spec.train_op, feed)
            after = sess.run(state)
    names = [v.op.name for v in trainable]
    return plan, checkpoint, before, dict(zip(names, gradients)), after


def _module(plan: OptimizerPlan) -> str:
    """The optimizer's part of model.py, formatted as the writer formats model.py."""
    text = '"""The optimizer."""\n\nimport keras\n'
    code = "\n".join(plan.source)
    if "np." in code:
        text += "import numpy as np\n"
    text += ("from keras import ops\n" if "ops." in code else "") + code
    text += f"\n\n\ndef build_optimizer():\n    return {plan.expression}\n"
    return formatted(text)


def _keras_step(plan: OptimizerPlan, checkpoint, before, gradients, tmp: pathlib.Path):
    """The Keras optimizer's variables and slots after one `apply_gradients`."""
    import keras

    path = tmp / "optimizer_module.py"
    path.write_text(_module(plan))
    namespace: dict = {"__name__": "optimizer_module"}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    optimizer = namespace["build_optimizer"]()
    variables = {n: keras.Variable(before[n], name=n.replace("/", "_")) for n in gradients}
    optimizer.build(list(variables.values()))
    with CheckpointReader(checkpoint) as reader:
        restore_state(optimizer, variables, plan, reader)
    optimizer.apply_gradients([(gradients[n], v) for n, v in variables.items()])
    found = {n: np.asarray(v) for n, v in variables.items()}
    for name, keys in plan.slots.items():
        index = optimizer._get_variable_index(variables[name])
        for attribute, key in keys.items():
            found[key] = np.asarray(getattr(optimizer, attribute)[index])
    return found, int(optimizer.iterations.numpy()), path


_JAX = """
import importlib.util, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from run_exported import _Absent
sys.meta_path.insert(0, _Absent())  # no tensorflow, tf_keras nor tfport
import keras
spec = importlib.util.spec_from_file_location("optimizer_module", sys.argv[2])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
data = dict(np.load(sys.argv[3]))
count = sum(k.startswith("v") for k in data)
variables = [keras.Variable(data[f"v{i}"]) for i in range(count)]
optimizer = module.build_optimizer()
optimizer.build(variables)
for key, value in data.items():
    if key.startswith("s"):
        i, attribute = key[1:].split(":")
        getattr(optimizer, attribute)[int(i)].assign(value)
optimizer.iterations.assign(int(data["iterations"]))
optimizer.apply_gradients([(data[f"g{i}"], v) for i, v in enumerate(variables)])
out = {f"v{i}": np.asarray(v) for i, v in enumerate(variables)}
for key in data:
    if key.startswith("s"):
        i, attribute = key[1:].split(":")
        out[key] = np.asarray(getattr(optimizer, attribute)[int(i)])
np.savez(sys.argv[4], backend=keras.backend.backend(), **out)
"""


def _jax_step(plan: OptimizerPlan, module: pathlib.Path, checkpoint, before, gradients) -> dict:
    """The step of `_keras_step` on the JAX backend, with TensorFlow unimportable: the
    optimizer's state set as `restore_state` sets it, from the checkpoint's values."""
    names = list(gradients)
    data = {f"v{i}": before[n] for i, n in enumerate(names)}
    data |= {f"g{i}": gradients[n] for i, n in enumerate(names)}
    keys = {}
    with CheckpointReader(checkpoint) as reader:
        for i, name in enumerate(names):
            for attribute, key in plan.slots.get(name, {}).items():
                data[f"s{i}:{attribute}"], keys[f"s{i}:{attribute}"] = reader.read(key), key
            for attribute, value in plan.values.get(name, {}).items():
                data[f"s{i}:{attribute}"] = np.asarray(value, np.int32)
        data["iterations"] = np.asarray(reader.read(plan.iterations))
    inputs, result = module.with_name("jax_in.npz"), module.with_name("jax_out.npz")
    np.savez(inputs, **data)
    env = {**os.environ, "KERAS_BACKEND": "jax"}
    args = [sys.executable, "-c", _JAX, str(HERE), str(module), str(inputs), str(result)]
    proc = subprocess.run(args, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = dict(np.load(result))
    assert str(out.pop("backend")) == "jax"
    found = {names[int(k[1:])]: v for k, v in out.items() if k.startswith("v")}
    found |= {keys[k]: v for k, v in out.items() if k in keys}
    return found


def _check(case: str, tmp: pathlib.Path, model_dir: str, checkpoint: str | None) -> tuple:
    plan, ckpt, before, gradients, after = _session_step(case, model_dir, checkpoint, tmp)
    found, iterations, module = _keras_step(plan, ckpt, before, gradients, tmp)
    slots = {k for keys in plan.slots.values() for k in keys.values()}
    assert set(gradients) <= set(found) and slots <= set(found)
    worst = max(float(np.max(np.abs(found[k] - after[k]))) for k in found)
    assert worst < 1e-5, (case, worst)
    print(f"{case}: {plan.expression} max |keras - session| {worst:.3g}")
    changed = max(float(np.max(np.abs(after[k] - before[k]))) for k in gradients)
    assert changed > 1e-4  # the step did something to compare
    if plan.iterations:
        assert iterations == int(after[plan.iterations])
    lint = [sys.executable, "-m", "ruff"]
    for args in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        proc = subprocess.run([*lint, *args, str(module)], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stdout + proc.stderr
    return plan, (ckpt, before, gradients, after, module)


@pytest.fixture(scope="module")
def dropout_off():
    """The pretraining program's dropout at 0 (its FLAGS), so one step is deterministic."""
    sys.path.insert(0, str(HERE))
    import modelfn_factories as mf

    flags = mf.script("tpu_programs").FLAGS
    if not flags.is_parsed():
        flags([sys.argv[0]])  # not pytest's arguments
    old = flags.dropout
    flags.dropout = 0.0
    yield
    flags.dropout = old


def test_momentum_exponential_decay(goldens, tmp_path, dropout_off):
    """The TPU CNN: v1 Momentum (its own slot form) with an exponential decay."""
    model_dir = str(goldens / "tpu_cnn_host_call" / "model_dir")
    plan, _ = _check("tpu_cnn_host_call", tmp_path, model_dir, model_dir + "/model.ckpt-20")
    assert plan.expression.startswith("V1Momentum(")
    assert "ExponentialDecay(" in plan.expression
    assert plan.slots["conv1/kernel"] == {"_accumulations": "conv1/kernel/Momentum"}


@pytest.fixture(scope="module")
def lamb(goldens, tmp_path_factory, dropout_off):
    """The pretraining program's LAMB step, from the golden's step-20 checkpoint."""
    model_dir = str(goldens / "tpu_pretrain_lamb" / "model_dir")
    tmp = tmp_path_factory.mktemp("lamb")
    return _check("tpu_pretrain_lamb", tmp, model_dir, model_dir + "/model.ckpt-20")


def test_lamb_warmup_clipping(lamb):
    """LAMB over clipped `tf.gradients`, warm-up then polynomial decay: a written optimizer
    with one update for weights and one without weight decay for norms and biases."""
    plan, _ = lamb
    assert plan.expression.startswith("LAMBOptimizer(learning_rate=LearningRate()")
    assert "global_clipnorm=1.0" in plan.expression
    groups = {name: v["_group"] for name, v in plan.values.items()}
    decayed = groups["bert/encoder/layer_0/query/kernel"]
    assert groups["bert/embeddings/LayerNorm/gamma"] != decayed
    assert groups["cls/predictions/output_bias"] == decayed  # LAMB decays biases too
    assert "unordered" in plan.report[-1]["to"]  # its step increment beside the lr's read


@pytest.fixture(scope="module")
def adam_weight_decay(tmp_path_factory, dropout_off):
    """BERT's AdamWeightDecay step, from a checkpoint 3 steps in."""
    tmp = tmp_path_factory.mktemp("adamw")
    return _check("adam_weight_decay", tmp, str(tmp), None)


def test_adam_weight_decay(adam_weight_decay):
    """BERT's AdamWeightDecay: decoupled decay skipped for the exclude list's names."""
    plan, _ = adam_weight_decay
    groups = {name: v["_group"] for name, v in plan.values.items()}
    assert groups["hidden/kernel"] == groups["logits/kernel"] != groups["hidden/bias"]
    assert groups["LayerNorm/gamma"] == groups["hidden/bias"]
    assert "unordered" not in plan.report[-1]["to"]  # its increment runs after the update


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)
def test_written_optimizer_on_jax_without_tensorflow(adam_weight_decay):
    """The written AdamWeightDecay optimizer (groups, schedule, clipping) on the JAX
    backend, TensorFlow unimportable."""
    plan, (ckpt, before, gradients, after, module) = adam_weight_decay
    found = _jax_step(plan, module, ckpt, before, gradients)
    assert len(found) == 3 * len(gradients)
    worst = max(float(np.max(np.abs(found[k] - after[k]))) for k in found)
    assert worst < 1e-5, worst
    print(f"adam_weight_decay on JAX: max |keras - session| {worst:.3g}")


class _Reader(dict):
    """A checkpoint's values in a dict, as `restore_state` reads a CheckpointReader."""

    prefix = "edited"

    def read(self, key: str) -> np.ndarray:
        return np.asarray(self[key])


class _Counter:
    def __init__(self) -> None:
        self.iterations = _Value()


class _Value:
    def assign(self, value: int) -> None:
        self.value = value


def test_v1_adam(goldens, tmp_path, dropout_off):
    """v1 Adam: Keras's Adam, iterations the global step, the beta powers checked (a step
    that does not count Adam's updates is refused)."""
    from tfport._common.errors import TfportInputError

    model_dir = str(goldens / "custom_v1_adam" / "model_dir")
    plan, (ckpt, *_) = _check("custom_v1_adam", tmp_path, model_dir, model_dir + "/model.ckpt-20")
    assert plan.expression.startswith("keras.optimizers.Adam(")
    assert plan.beta_powers == pytest.approx({"beta1_power": 0.9, "beta2_power": 0.999})
    with CheckpointReader(ckpt) as reader:
        values = _Reader({k: reader.read(k) for k in [*plan.beta_powers, "global_step"]})
    state = dataclasses.replace(plan, slots={})
    restore_state(_Counter(), {}, state, values)
    values["global_step"] = np.asarray(25, np.int64)
    with pytest.raises(TfportInputError, match="beta power"):
        restore_state(_Counter(), {}, state, values)


def test_fused_optimizers(tmp_path, dropout_off):
    """TF1 and tf_keras optimizers' fused updates as Keras 3's optimizers (an inverse time
    decay as a written schedule, piecewise constant as Keras's; tf_keras Adam's iterations
    its own counter)."""
    for case, keras in FUSED.items():
        plan, _ = _check(case, tmp_path / case, str(tmp_path), None)
        assert plan.expression.startswith(keras), plan.expression
        if case == "keras_adam":
            assert plan.iterations == "Adam/iter" and not plan.beta_powers


def test_refused_update(tmp_path):
    """An update op with no keras.ops form is refused in one line naming it and its line;
    so is a global-norm clip over a gather's sparse gradient (its norm is not Keras's)."""
    from tfport._common.errors import TfportInputError

    with pytest.raises(TfportInputError, match=r"\(Round\) built at \S*optimizer_factories.py:\d+"):
        _session_step("sign_descent", str(tmp_path), None, tmp_path)
    with pytest.raises(TfportInputError, match=r"clipped by global norm, one sparse \('table'"):
        _session_step("sparse_clipped", str(tmp_path), None, tmp_path)
