"""`verify --train-step`: one training step from the same weights, Estimator vs `.keras`.

The step itself is `tfport.keras.one_training_step`; here the artifacts, inputs and labels
are resolved and the losses and every updated weight compared.

Example:
    >>> report = train_step(estimator_art, keras_art, None, atol=1e-6, rtol=0,
    ...                     compare=compare_output)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from tfport._common.errors import TfportInputError, message
from tfport.verify._inputs import Batch, generate
from tfport.verify._reports import VerifyReport


def train_step(
    a: Any,
    b: Any,
    batch: Batch | None,
    *,
    atol: float,
    rtol: float,
    compare: Callable[[ArrayLike, ArrayLike, float, float], dict[str, object]],
    label_key: str = "label",
    rows: int = 8,
    seed: int = 0,
) -> VerifyReport:
    """Compares one training step of an Estimator artifact and a Keras artifact.

    Args:
        a: the opened first artifact (`_artifacts.Estimator` or `_artifacts.Keras`).
        b: the other one.
        batch: the inputs (features, and labels under `label_key`), or None to generate.
        atol: absolute tolerance.
        rtol: relative tolerance.
        compare: `compare(a, b, atol, rtol)` -> a report row (`compare_output`).
        label_key: the labels' key in the inputs (generated from the head if absent).
        rows: rows of generated inputs.
        seed: seed of generated inputs and labels.

    Returns:
        The report: `outputs` rows for the loss and each weight (max abs diff, pass),
        `equal`.
    """
    from tfport.keras import one_training_step
    from tfport.verify._factory import load_estimator

    kinds = {a.kind: a, b.kind: b}
    if set(kinds) == {"estimator", "keras_folder"}:
        from tfport.verify._train_folder import train_step_folder

        return train_step_folder(
            kinds["estimator"],
            kinds["keras_folder"],
            batch,
            atol=atol,
            rtol=rtol,
            compare=compare,
            label_key=label_key,
            rows=rows,
            seed=seed,
        )
    if set(kinds) != {"estimator", "keras"}:
        raise TfportInputError(
            message(
                "--train-step needs an Estimator and a .keras model or export folder",
                "Pass SCRIPT_OR_MODULE:FACTORY@MODEL_DIR and OUT.keras or OUT/",
                kinds=[a.kind, b.kind],
            )
        )
    est, keras_art = kinds["estimator"], kinds["keras"]
    if batch is None:
        batch = generate(keras_art.spec(), rows, seed)
    features = {k: v for k, v in batch.items() if not k.startswith("__") and k != label_key}
    labels = np.asarray(batch[label_key]) if label_key in batch else None
    factory = est.text.rsplit("@", 1)[0]
    step = one_training_step(
        est.estimator,
        lambda model_dir: load_estimator(factory, model_dir),
        keras_art.model,
        features,
        labels,
        seed=seed,
    )
    loss_e, loss_k = step["loss"]
    out = [{"name": "loss", "estimator": loss_e, "keras": loss_k}]
    out[0].update(compare(np.float64(loss_e), np.float64(loss_k), atol, rtol))
    for var, key, want, got, moved in step["weights"]:
        row = {"name": var, "keras": key, "max_update": moved}
        out.append({**row, **compare(want, got, atol, rtol)})
    return {
        "kind": "train_step",
        "a": {"kind": a.kind, "path": a.text},
        "b": {"kind": b.kind, "path": b.text},
        "rows": step["rows"],
        "optimizer": step["optimizer"],
        "optimizer_config": step["optimizer_config"],
        "loss": step["loss_name"],
        "atol": atol,
        "rtol": rtol,
        "outputs": out,
        "equal": all(r["pass"] for r in out),
    }
