"""`verify --train-step FACTORY@MODEL_DIR OUT/`: the Estimator's next step against one
`fit` step of a `tfport keras export --training` folder.

- Estimator: its checkpoint (the one the export read, from report.json) copied into a
  temporary model_dir, the factory's Estimator made there and trained one step on the
  batch (all rows); its loss is the step's `loss` summary, its variables and optimizer
  slots are read from the checkpoint it writes.
- Keras: `OUT/model.keras` (compiled, with the optimizer state) takes one
  `fit(features, labels, batch_size=rows, shuffle=False)` step.

The loss, every weight the Keras model holds (moving statistics included), every
optimizer slot and the step counter are compared.

Example:
    >>> report = train_step_folder(est, folder, batch, atol=1e-5, rtol=0,
    ...                            compare=compare_output)  # doctest: +SKIP
"""

from __future__ import annotations

import glob
import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tfport._common.errors import TfportInputError, message
from tfport.verify._inputs import Batch, generate
from tfport.verify._reports import VerifyReport


def _report(folder: Any) -> dict[str, Any]:
    """The export's report (read once, by the opened `ExportFolder`), written for training."""
    if "training" not in folder.report:
        raise TfportInputError(
            message(
                "The export folder was not written for training",
                "Export with `tfport keras export ... --training`",
                folder=folder.text,
            )
        )
    return folder.report


def _checkpoint(report: dict[str, Any], model_dir: str) -> str:
    """The checkpoint the export read, found in MODEL_DIR by its name (the export may
    have been written from another directory), else where the report says."""
    name = os.path.basename(report["checkpoint"])
    here = os.path.join(model_dir, name)
    if os.path.isfile(here + ".index"):
        return here
    if os.path.isfile(report["checkpoint"] + ".index"):
        return str(report["checkpoint"])
    raise TfportInputError(
        message(
            "MODEL_DIR lacks the checkpoint the export was made from",
            "Pass the Estimator's model_dir the export read",
            checkpoint=name,
            model_dir=model_dir,
        )
    )


def _copy_checkpoint(prefix: str, work: str) -> None:
    """Copies the checkpoint's files into `work` and names it the latest there."""
    for path in glob.glob(prefix + ".*"):
        shutil.copy(path, work)
    name = os.path.basename(prefix)
    with open(os.path.join(work, "checkpoint"), "w") as f:
        f.write(f'model_checkpoint_path: "{name}"\nall_model_checkpoint_paths: "{name}"\n')


def estimator_step(
    factory: str, prefix: str, features: object, labels: np.ndarray
) -> tuple[float, dict[str, np.ndarray]]:
    """(loss, {checkpoint key: value after the step}) of one Estimator step from `prefix`.

    Example:
        >>> loss, values = estimator_step("t.py:make", "md/model.ckpt-40", x, y)  # doctest: +SKIP
    """
    from tfport._common.tfenv import import_tf
    from tfport.checkpoint import CheckpointReader
    from tfport.keras import loss_recorder
    from tfport.verify._factory import load_estimator

    tf = import_tf()
    hook = loss_recorder()
    rows = len(labels)
    work = tempfile.mkdtemp(prefix="tfport-train-step-")
    try:
        _copy_checkpoint(prefix, work)
        estimator = load_estimator(factory, work)

        def input_fn(params: object = None) -> object:
            return tf.data.Dataset.from_tensor_slices((features, labels)).batch(rows)

        estimator.train(input_fn, steps=1, hooks=[hook])
        with CheckpointReader(tf.train.latest_checkpoint(work)) as reader:
            values = {name: np.asarray(reader.read(name)) for name in reader.names()}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return hook.value, values


def keras_step(
    model: Any, section: dict[str, Any], features: object, labels: np.ndarray
) -> tuple[float, dict[str, np.ndarray], dict[str, float]]:
    """(loss, {checkpoint key: value after}, {checkpoint key: max abs update}) of one
    `fit` step of the loaded export on all rows."""
    optimizer = model.optimizer
    weights = {
        key: model.get_layer(layer).weights[i] for layer, i, key in section["weights"].values()
    }
    state = dict(weights)
    by_name = {
        name: model.get_layer(layer).weights[i]
        for name, (layer, i, _) in section["weights"].items()
    }
    for name, slots in section["slots"].items():
        index = optimizer._get_variable_index(by_name[name])
        for attribute, key in slots.items():
            state[key] = getattr(optimizer, attribute)[index]
    iterations = section["optimizer"].get("iterations")
    if iterations:
        state[iterations] = optimizer.iterations
    before = {k: np.array(v.numpy() if hasattr(v, "numpy") else v) for k, v in state.items()}
    history = model.fit(
        features, labels, batch_size=len(labels), epochs=1, shuffle=False, verbose=0
    )
    after = {k: np.array(v.numpy() if hasattr(v, "numpy") else v) for k, v in state.items()}
    moved = {
        k: float(np.max(np.abs(after[k].astype(np.float64) - before[k]), initial=0.0))
        for k in after
    }
    return float(history.history["loss"][0]), after, moved


def _batch(
    folder: Any, report: dict[str, Any], batch: Batch | None, label_key: str, rows: int, seed: int
) -> tuple[dict[str, np.ndarray], np.ndarray]:
    section = report["training"]
    if batch is None:
        batch = generate(folder.spec(), rows, seed)
    features = {k: np.asarray(v) for k, v in batch.items() if not k.startswith("__")}
    labels = features.pop(label_key, None)
    dtype, shape = section["labels"]
    if labels is None:
        rng = np.random.RandomState(seed + 1)
        dims = (len(next(iter(features.values()))), *(1 if d is None else d for d in shape))
        labels = (
            rng.normal(size=dims) if dtype.startswith("float") else rng.randint(0, 2, dims)
        ).astype(dtype)
    labels = np.asarray(labels).astype(dtype)
    names = [t.name for t in folder.model.inputs]
    missing = sorted(set(names) - set(features))
    if len(names) == 1 and len(features) == 1:
        features = {names[0]: next(iter(features.values()))}
    elif missing:
        raise TfportInputError(
            message(
                "The inputs lack features the model reads",
                "Pass --inputs with them",
                missing=missing,
            )
        )
    return {k: features[k] for k in names}, labels


def train_step_folder(
    est: Any,
    folder: Any,
    batch: Batch | None,
    *,
    atol: float,
    rtol: float,
    compare: Callable[[ArrayLike, ArrayLike, float, float], dict[str, object]],
    label_key: str = "label",
    rows: int = 8,
    seed: int = 0,
) -> VerifyReport:
    """Compares the Estimator's next step with one `fit` step of the export folder.

    Args:
        est: the opened Estimator artifact (`FACTORY@MODEL_DIR`).
        folder: the opened export folder (`ExportFolder`).
        batch: features and labels (under `label_key`), or None to generate them.
        atol: absolute tolerance.
        rtol: relative tolerance.
        compare: `compare(a, b, atol, rtol)` -> a report row.
        label_key: the labels' key in the inputs.
        rows: rows of generated inputs.
        seed: seed of generated inputs and labels.

    Returns:
        The report: rows for the loss, each weight, slot and the step counter.
    """
    report = _report(folder)
    section = report["training"]
    if section["dropouts"]:
        raise TfportInputError(
            message(
                "--train-step: the model has dropout, so a step is random (TensorFlow's and "
                "Keras's masks differ); no step-for-step comparison exists",
                "Compare the predictions (tfport verify without --train-step)",
                dropouts=section["dropouts"],
            )
        )
    features, labels = _batch(folder, report, batch, label_key, rows, seed)
    given = features["features"] if section["features_tensor"] else features
    factory, model_dir = est.text.rsplit("@", 1)
    loss_e, after_e = estimator_step(factory, _checkpoint(report, model_dir), given, labels)
    loss_k, after_k, moved = keras_step(folder.model, section, given, labels)
    out = [{"name": "loss", "estimator": loss_e, "keras": loss_k}]
    out[0].update(compare(np.float64(loss_e), np.float64(loss_k), atol, rtol))
    for key in sorted(after_k):
        if key not in after_e:
            out.append({"name": key, "pass": False, "reason": "not in the Estimator's checkpoint"})
            continue
        row = {"name": key, "max_update": moved[key]}
        out.append({**row, **compare(after_e[key], after_k[key], atol, rtol)})
    return {
        "kind": "train_step",
        "a": {"kind": est.kind, "path": est.text},
        "b": {"kind": folder.kind, "path": folder.text},
        "rows": int(len(labels)),
        "optimizer": section["optimizer"]["class"],
        "optimizer_config": {},
        "loss": section["loss"]["function"],
        "atol": atol,
        "rtol": rtol,
        "outputs": out,
        "equal": all(r["pass"] for r in out),
    }
