"""One training step from the same weights: a canned estimator and its Keras 3 export.

Following the TF guide "Validating correctness & numerical equivalence": both sides start
from the weights of the estimator's checkpoint with fresh optimizer state and take one
step on the same batch.

- Estimator: made again in a temporary model_dir, warm-started from the checkpoint's
  trainable variables (optimizer slots start fresh, as Keras's do), trained one step; the
  step's loss is fetched by a hook, the weights read from the new checkpoint.
- Keras: the exported model with the estimator's optimizer and head loss as Keras 3 ones
  (`_optimizers`), one `GradientTape` step on the `logits` output (what `fit` does).

Example:
    >>> result = one_step(est, make, keras.models.load_model("m.keras"), features)  # doctest: +SKIP
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport._common.tfenv import import_tf
from tfport._common.types import CannedHeadConfig, KerasModel, Labels, TFModule

if TYPE_CHECKING:
    from tfport.estimator import Estimator

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook


def _labels(head: CannedHeadConfig, rows: int, seed: int) -> np.ndarray:
    rng = np.random.RandomState(seed + 1)
    if head.kind == "regression":
        return rng.normal(size=(rows, head.label_dimension)).astype(np.float32)
    ids = rng.randint(0, head.n_classes, (rows, 1))
    if head.vocabulary:
        return np.array([str(v) for v in head.vocabulary], dtype=object)[ids]
    return ids.astype(np.int64)


def _estimator_step(make: Callable, ckpt: str, features: dict, labels: np.ndarray) -> tuple:
    """(loss, {variable: value after the step}) of one step of `make(model_dir)` from `ckpt`."""
    from tfport.checkpoint import CheckpointReader
    from tfport.estimator import WarmStartSettings

    hook = LossHook()
    work = tempfile.mkdtemp(prefix="tfport-train-step-")
    try:
        estimator = make(work)
        estimator._warm_start_settings = WarmStartSettings(ckpt, vars_to_warm_start=".*")  # noqa: SLF001

        def input_fn():
            data = tf.data.Dataset.from_tensor_slices((features, labels))
            return data.batch(len(labels))

        estimator.train(input_fn, steps=1, hooks=[hook])
        with CheckpointReader(tf.train.latest_checkpoint(work)) as reader:
            values = {name: np.asarray(reader.read(name)) for name in reader.names()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return hook.value, values


class LossHook(_SessionRunHook):
    """Records the value of the `loss` summary's tensor in the run (`value`): the loss of
    an Estimator's training step.

    Example:
        >>> hook = LossHook()  # doctest: +SKIP
        >>> estimator.train(input_fn, steps=1, hooks=[hook]); hook.value  # doctest: +SKIP
        0.693
    """

    value: float

    def begin(self) -> None:
        v1 = tf.compat.v1
        summaries = v1.get_collection(v1.GraphKeys.SUMMARIES)
        self.loss = next(s.op.inputs[1] for s in summaries if s.op.name == "loss")

    def before_run(self, run_context: object) -> Any:
        return tf.compat.v1.train.SessionRunArgs(self.loss)

    def after_run(self, run_context: object, run_values: Any) -> None:
        self.value = float(run_values.results)


def _summed(tf: TFModule, grad: object) -> Any:
    """An embedding gradient with its repeated ids summed, as TensorFlow's optimizers do
    (Keras 3's scatter the slices as they come: Adagrad/Adam would square each repeat)."""
    if not isinstance(grad, tf.IndexedSlices):
        return grad
    ids, where = tf.unique(grad.indices)
    values = tf.math.unsorted_segment_sum(grad.values, where, tf.shape(ids)[0])
    return tf.IndexedSlices(values, ids, grad.dense_shape)


def _keras_step(model: Any, optimizer: Any, loss_fn: Any, features: dict, labels: Labels) -> tuple:
    """(loss, {`layer/i`: value after the step}, {`layer/i`: max abs update})."""
    tf = import_tf()
    names = {t.name for t in model.inputs}
    inputs = {k: tf.constant(v) for k, v in features.items() if k in names}
    variables = model.trainable_variables
    before = {
        f"{layer.name}/{i}": w.numpy()
        for layer in model.layers
        for i, w in enumerate(layer.weights)
    }
    with tf.GradientTape() as tape:
        out = model(inputs, training=True)
        loss = loss_fn(tf.constant(labels), out["logits"])
    grads = [_summed(tf, g) for g in tape.gradient(loss, variables)]
    optimizer.apply_gradients([(g, v) for g, v in zip(grads, variables) if g is not None])
    after = {}
    for layer in model.layers:
        for i, w in enumerate(layer.weights):
            after[f"{layer.name}/{i}"] = np.asarray(w.numpy())
    moved = {k: float(np.max(np.abs(after[k] - before[k]), initial=0.0)) for k in after}
    return float(loss), after, moved


def one_step(
    estimator: Estimator,
    make: Callable[[str], Estimator],
    model: KerasModel,
    features: dict,
    labels: np.ndarray | None = None,
    seed: int = 0,
) -> dict:
    """One training step of `estimator` and of `model` (its Keras 3 export) from the
    estimator's latest checkpoint.

    Args:
        estimator: a canned estimator (DNN*, Linear*, Baseline*).
        make: `make(model_dir)` -> the same estimator in another model_dir.
        model: the `keras.Model` exported from it (loaded from its `.keras` file).
        features: the batch's features (numpy arrays).
        labels: the batch's labels (default: random ones the head takes).
        seed: seed of generated labels.

    Returns:
        `optimizer`, `optimizer_config`, `loss_name`, `rows`, `loss` (estimator, keras) and
        `weights`: (variable, Keras `layer/i`, estimator value, Keras value, max abs update).

    Raises:
        TfportInputError: what has no exact Keras 3 equivalent (named), a model that is not
            this estimator's export.
    """
    from tfport.keras._export._model import build_with_names, canned_spec
    from tfport.keras._export._optimizers import estimator_optimizer, keras_loss, keras_optimizer

    family, kw = canned_spec(estimator)
    for key in ("dropout", "batch_norm"):
        if kw.get(key):
            raise TfportInputError(
                message(
                    f"--train-step: a DNN with {key} does not train identically in Keras 3",
                    "Compare a model without dropout / batch_norm",
                    **{key: kw[key]},
                )
            )
    tf = import_tf()
    ckpt = tf.train.latest_checkpoint(estimator.model_dir)
    _, names = build_with_names(estimator, ckpt, None)
    sparse = any(type(layer).__name__ == "Embedding" for layer in model.layers)
    optimizer = keras_optimizer(estimator_optimizer(family, kw), sparse)
    loss_fn, to_labels = keras_loss(kw["head"])
    if labels is None:
        labels = _labels(kw["head"], len(next(iter(features.values()))), seed)
    loss_e, after_e = _estimator_step(make, ckpt, features, labels)
    loss_k, after_k, moved = _keras_step(model, optimizer, loss_fn, features, to_labels(labels))
    missing = sorted(k for k in names if k not in after_k)
    if missing:
        raise TfportInputError(
            message(
                "The .keras model is not this estimator's export (layers missing)",
                "Export it with `tfport keras export` from this estimator",
                missing=missing[:5],
            )
        )
    weights = [
        (var, key, after_e[var].reshape(after_k[key].shape), after_k[key], moved[key])
        for key, var in sorted(names.items(), key=lambda kv: kv[1])
    ]
    config = optimizer.get_config()
    return {
        "optimizer": type(optimizer).__name__,
        "optimizer_config": {k: v for k, v in config.items() if isinstance(v, (int, float))},
        "loss_name": type(loss_fn).__name__,
        "rows": int(len(labels)),
        "loss": (loss_e, loss_k),
        "weights": weights,
    }
