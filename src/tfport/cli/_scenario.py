"""The main job: the seed scenario on built-in data.

A compiled Keras model (SGD with momentum, sparse categorical cross-entropy,
accuracy) becomes an Estimator with `model_to_estimator`, trains on `mirrored:2`
(two logical CPU devices, or two GPUs where present), evaluates, exports a
SavedModel and checks it. Says what it does from its first second; keeps its
outputs only in a `model_dir` the user names (and then offers the TensorBoard
command when TensorBoard is installed).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from typing import Any

import numpy as np

N_CLASSES = 3


def make_data(seed: int = 1234) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Synthetic 4-feature, 3-class data (512 rows; 384 train, 128 test)."""
    rng = np.random.RandomState(seed)
    x = rng.normal(size=(512, 4)).astype("float32")
    w = rng.normal(size=(4, N_CLASSES)).astype("float32")
    y = np.argmax(x @ w + 0.1 * rng.normal(size=(512, N_CLASSES)), 1).astype("int64")
    return {"train": (x[:384], y[:384]), "test": (x[384:], y[384:])}


def _input_fn(data: tuple[np.ndarray, np.ndarray], key: str, train: bool, batch: int = 32) -> Any:
    import tensorflow as tf

    def input_fn() -> Any:
        ds = tf.data.Dataset.from_tensor_slices(({key: data[0]}, data[1]))
        return ds.repeat().batch(batch, drop_remainder=True) if train else ds.batch(batch)

    return input_fn


def _keras_model() -> Any:
    import tensorflow as tf

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
    return model


def run(model_dir: str | None, strategy: str, steps: int) -> dict[str, int | float]:
    """Runs the demo; returns the final metrics. See the module docstring.

    Without `model_dir` the outputs go to a temporary folder removed at the end;
    with it they are kept there (and the TensorBoard command is offered when the
    `tensorboard` extra is installed).

    Example:
        >>> run(None, "mirrored:2", 200)["accuracy"] > 0.8  # doctest: +SKIP
        True
    """
    _say("starting: importing TensorFlow and setting up the devices")
    if model_dir is not None:
        metrics = _run(model_dir, strategy, steps)
        _say(f"outputs kept in {model_dir} (checkpoints, summaries, export)")
        _say(_tensorboard_hint(model_dir))
        return metrics
    folder = tempfile.mkdtemp(prefix="tfport-demo-")
    try:
        metrics = _run(folder, strategy, steps)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    _say(f"removed the temporary {folder} (pass --model-dir DIR to keep the outputs)")
    return metrics


def _run(model_dir: str, strategy: str, steps: int) -> dict[str, int | float]:
    from tfport.distribute import resolve

    distribute = resolve(strategy)  # before TF's runtime starts (logical devices)
    import tensorflow as tf

    import tfport.estimator as tfe
    from tfport._install import install
    from tfport.keras import model_to_estimator

    install()
    data = make_data()
    config = tfe.RunConfig(
        model_dir=model_dir,
        tf_random_seed=7,
        save_checkpoints_steps=100,
        train_distribute=distribute,
        eval_distribute=distribute,
    )
    est = model_to_estimator(keras_model=_keras_model(), config=config)
    _say(
        f"training a Keras model as an Estimator on {strategy} "
        f"({distribute.num_replicas_in_sync if distribute else 1} replicas), {steps} steps"
    )
    est.train(_input_fn(data["train"], "hidden_input", True), max_steps=steps)
    _say("evaluating on the 128 test rows")
    metrics = est.evaluate(_input_fn(data["test"], "hidden_input", False))
    values = {k: _number(v) for k, v in metrics.items()}
    _say("eval: " + ", ".join(f"{k}={_shown(v)}" for k, v in sorted(values.items())))

    def receiver() -> Any:
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="hidden_input")
        return tfe.export.ServingInputReceiver({"hidden_input": x}, {"hidden_input": x})

    export = os.fsdecode(est.export_saved_model(os.path.join(model_dir, "export"), receiver))
    served = tf.saved_model.load(export).signatures["serving_default"]
    x_test = tf.constant(data["test"][0])
    probs = next(iter(served(hidden_input=x_test).values())).numpy()
    accuracy = float(np.mean(probs.argmax(1) == data["test"][1]))
    _say(f"exported {export}; serving_default accuracy on the test rows: {accuracy:.4f}")
    return values


def _number(value: Any) -> int | float:
    """A metric as a JSON number: integers (global_step) stay integers.

    Example:
        >>> _number(np.int64(200)), _number(np.float32(0.5))
        (200, 0.5)
    """
    return int(value) if np.issubdtype(np.asarray(value).dtype, np.integer) else float(value)


def _shown(value: int | float) -> str:
    """A metric for the eval line: integers whole, fractions to 4 decimals.

    Example:
        >>> _shown(200), _shown(0.93751)
        ('200', '0.9375')
    """
    return str(value) if isinstance(value, int) else f"{value:.4f}"


def _tensorboard_hint(model_dir: str) -> str:
    """The TensorBoard command when `tensorboard` is installed, else how to get it.

    Example:
        >>> _tensorboard_hint("m").startswith(("TensorBoard:", "to view the summaries"))
        True
    """
    if importlib.util.find_spec("tensorboard") is not None:
        return f"TensorBoard: tensorboard --logdir {model_dir}"
    return "to view the summaries: pip install tensorboard"


def _say(text: str) -> None:
    print(f"[tfport demo] {text}", file=sys.stderr, flush=True)
