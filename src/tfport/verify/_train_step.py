"""`verify --train-step`: one training step from the same weights, Estimator vs Keras 3.

Following the TF guide "Validating correctness & numerical equivalence": both sides start
from the weights of the estimator's checkpoint with fresh optimizer state, take one step
on the same batch, and the losses and every updated weight are compared.

- Estimator: built again by its factory in a temporary model_dir, warm-started from the
  checkpoint's trainable variables (optimizer slots start fresh, as Keras's do), trained
  one step; the step's loss is fetched by a hook, the weights read from the new checkpoint.
- Keras: the `.keras` model, with the estimator's optimizer and head loss as Keras 3 ones
  (`_optimizers`), one `GradientTape` step on the `logits` output (what `fit` does).

Example:
    >>> report = train_step("est.py:make@model_dir", "model.keras")  # doctest: +SKIP
"""

from __future__ import annotations

import shutil
import tempfile
from typing import Any

import numpy as np

from tfport._common.errors import TfportInputError, message
from tfport.verify._compare import compare_output
from tfport.verify._inputs import Batch, generate


def _labels(head: Any, rows: int, seed: int) -> np.ndarray:
    rng = np.random.RandomState(seed + 1)
    if head.kind == "regression":
        return rng.normal(size=(rows, head.label_dimension)).astype(np.float32)
    ids = rng.randint(0, head.n_classes, (rows, 1))
    if head.vocabulary:
        return np.array([str(v) for v in head.vocabulary], dtype=object)[ids]
    return ids.astype(np.int64)


def _split(batch: Batch, label_key: str, head: Any, seed: int) -> tuple[dict, np.ndarray]:
    features = {k: v for k, v in batch.items() if not k.startswith("__") and k != label_key}
    if label_key in batch:
        return features, np.asarray(batch[label_key])
    rows = len(next(iter(features.values())))
    return features, _labels(head, rows, seed)


def _estimator_step(factory: str, ckpt: str, features: dict, labels: np.ndarray) -> tuple:
    """(loss, {variable: value after the step}) of one estimator step from `ckpt`."""
    from tfport._common.tfenv import import_tf
    from tfport.checkpoint import CheckpointReader
    from tfport.estimator._engine.warm_start import WarmStartSettings
    from tfport.verify._factory import load_estimator

    tf = import_tf()
    v1 = tf.compat.v1
    seen: dict = {}

    class LossHook(v1.train.SessionRunHook):
        def begin(self) -> None:
            summaries = v1.get_collection(v1.GraphKeys.SUMMARIES)
            self.loss = next(s.op.inputs[1] for s in summaries if s.op.name == "loss")

        def before_run(self, run_context: Any) -> Any:
            return v1.train.SessionRunArgs(self.loss)

        def after_run(self, run_context: Any, run_values: Any) -> None:
            seen["loss"] = float(run_values.results)

    work = tempfile.mkdtemp(prefix="tfport-train-step-")
    try:
        estimator = load_estimator(factory, work)
        estimator._warm_start_settings = WarmStartSettings(ckpt, vars_to_warm_start=".*")  # noqa: SLF001

        def input_fn():
            data = tf.data.Dataset.from_tensor_slices((features, labels))
            return data.batch(len(labels))

        estimator.train(input_fn, steps=1, hooks=[LossHook()])
        with CheckpointReader(tf.train.latest_checkpoint(work)) as reader:
            values = {name: np.asarray(reader.read(name)) for name in reader.names()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return seen["loss"], values


def _summed(tf: Any, grad: Any) -> Any:
    """An embedding gradient with its repeated ids summed, as TensorFlow's optimizers do
    (Keras 3's scatter the slices as they come: Adagrad/Adam would square each repeat)."""
    if not isinstance(grad, tf.IndexedSlices):
        return grad
    ids, where = tf.unique(grad.indices)
    values = tf.math.unsorted_segment_sum(grad.values, where, tf.shape(ids)[0])
    return tf.IndexedSlices(values, ids, grad.dense_shape)


def _keras_step(model: Any, optimizer: Any, loss_fn: Any, features: dict, labels: Any) -> tuple:
    """(loss, {`layer/i`: value after the step}, {`layer/i`: max abs update})."""
    from tfport._common.tfenv import import_tf

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


def train_step(
    a: Any,
    b: Any,
    batch: Batch | None,
    *,
    atol: float,
    rtol: float,
    label_key: str = "label",
    rows: int = 8,
    seed: int = 0,
) -> dict:
    """Compares one training step of an Estimator artifact and a Keras artifact.

    Args:
        a: the opened first artifact (`_artifacts.Estimator` or `_artifacts.Keras`).
        b: the other one.
        batch: the inputs (features, and labels under `label_key`), or None to generate.
        atol: absolute tolerance.
        rtol: relative tolerance.
        label_key: the labels' key in the inputs (generated from the head if absent).
        rows: rows of generated inputs.
        seed: seed of generated inputs and labels.

    Returns:
        The report: `loss` and `weights` rows (max abs diff, pass), `equal`.
    """
    from tfport.keras._export._model import build_with_names, canned_spec
    from tfport.verify._optimizers import estimator_optimizer, keras_loss, keras_optimizer

    kinds = {a.kind: a, b.kind: b}
    if set(kinds) != {"estimator", "keras"}:
        raise TfportInputError(
            message(
                "--train-step needs an Estimator and a .keras model (the two that train)",
                "Pass SCRIPT_OR_MODULE:FACTORY@MODEL_DIR and OUT.keras",
                kinds=[a.kind, b.kind],
            )
        )
    est, keras_art = kinds["estimator"], kinds["keras"]
    estimator, model = est.estimator, keras_art.model
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
    from tfport._common.tfenv import import_tf

    tf = import_tf()
    ckpt = tf.train.latest_checkpoint(estimator.model_dir)
    _, names = build_with_names(estimator, ckpt, None)
    sparse = any(type(layer).__name__ == "Embedding" for layer in model.layers)
    optimizer = keras_optimizer(estimator_optimizer(family, kw), sparse)
    loss_fn, to_labels = keras_loss(kw["head"])
    if batch is None:
        batch = generate(keras_art.spec(), rows, seed)
    features, labels = _split(batch, label_key, kw["head"], seed)

    loss_e, after_e = _estimator_step(est.text.rsplit("@", 1)[0], ckpt, features, labels)
    loss_k, after_k, moved = _keras_step(model, optimizer, loss_fn, features, to_labels(labels))
    rows_out = [
        {"name": "loss", **compare_output(np.float64(loss_e), np.float64(loss_k), atol, rtol)}
    ]
    rows_out[0].update(estimator=loss_e, keras=loss_k)
    missing = sorted(k for k in names if k not in after_k)
    if missing:
        raise TfportInputError(
            message(
                "The .keras model is not this estimator's export (layers missing)",
                "Export it with `tfport keras export` from this estimator",
                missing=missing[:5],
            )
        )
    for key, var in sorted(names.items(), key=lambda kv: kv[1]):
        want = after_e[var].reshape(after_k[key].shape)
        rows_out.append(
            {
                "name": var,
                "keras": key,
                "max_update": moved[key],
                **compare_output(want, after_k[key], atol, rtol),
            }
        )
    return {
        "kind": "train_step",
        "a": {"kind": a.kind, "path": a.text},
        "b": {"kind": b.kind, "path": b.text},
        "rows": int(len(labels)),
        "optimizer": type(optimizer).__name__,
        "optimizer_config": {
            k: v for k, v in optimizer.get_config().items() if isinstance(v, (int, float, bool))
        },
        "loss": type(loss_fn).__name__,
        "atol": atol,
        "rtol": rtol,
        "outputs": rows_out,
        "equal": all(r["pass"] for r in rows_out),
    }
