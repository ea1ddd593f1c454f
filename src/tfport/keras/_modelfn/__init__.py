"""Any Estimator's model_fn -> Keras 3 code the user owns (`tfport keras export` to a folder).

The model_fn is traced in PREDICT mode (`_trace`), its graph mapped to Keras layers and
`keras.ops` calls (`_emit`, `_ops`), and written as `model.py`, `model.weights.h5`,
`model.keras` and `report.json` (`_source`, `_write`).

Example:
    >>> report = export_model_fn(estimator, "out", factory="train.py:make")  # doctest: +SKIP
    >>> sorted(report["outputs"])  # doctest: +SKIP
    ['classes', 'probabilities']
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tfport._common.atomic import refuse_existing
from tfport._common.errors import TfportInputError, message

if TYPE_CHECKING:  # a tfport Estimator (custom model_fn, TPUEstimator, model_to_estimator)
    from types import ModuleType

    from tfport.estimator import Estimator


def _checkpoint(estimator: Estimator, checkpoint: str | None) -> str:
    from tfport._common.tfenv import import_tf

    if checkpoint:
        return checkpoint
    found = import_tf().train.latest_checkpoint(estimator.model_dir)
    if not found:
        raise TfportInputError(
            message(
                "The model_dir holds no checkpoint",
                "Train the Estimator first, or pass --checkpoint",
                model_dir=estimator.model_dir,
            )
        )
    return found


def export_model_fn(
    estimator: Estimator,
    out: str,
    *,
    factory: str = "",
    checkpoint: str | None = None,
    input_shapes: dict | None = None,
    overwrite: bool = False,
    check_on: Sequence[str] = ("tensorflow",),
    training: bool = False,
) -> dict:
    """Writes OUT (a folder) with the Keras 3 model of the estimator's model_fn.

    Args:
        estimator: the Estimator (its `model_dir` holds graph.pbtxt and checkpoints).
        out: the folder to create (refused if it exists unless `overwrite`).
        factory: `SCRIPT:FACTORY` named in model.py's docstring.
        checkpoint: checkpoint prefix (default: the latest in model_dir).
        input_shapes: per-example shapes overriding the training graph's, by feature key.
        overwrite: replace an existing OUT.
        check_on: backends the written model is checked on against the model_fn before
            OUT appears (`tensorflow` always; `jax` runs it in a child process without
            TensorFlow); model.py's docstring and report.json say what was checked.
        training: also trace TRAIN mode and write what `fit` needs (the loss, dropout,
            batch-norm updates, regularizers, the optimizer with its checkpoint state):
            `keras.saving.load_model(OUT/model.keras).fit(...)` continues the training.

    Returns:
        The report (also written to OUT/report.json).

    Raises:
        TfportInputError: the first op with no Keras form (with its model_fn line), a
            model_dir without training graph or checkpoint, a written model that does not
            reproduce the model_fn on a backend checked; nothing is written.

    Example:
        >>> export_model_fn(est, "out", factory="train.py:make")["outputs"]  # doctest: +SKIP
        ['probabilities']
    """
    from tfport._common.tfenv import import_tf

    import_tf()
    from tfport.keras._modelfn._check import known_backends
    from tfport.keras._modelfn._emit import plan_model
    from tfport.keras._modelfn._parsing import lift_parsing
    from tfport.keras._modelfn._trace import trace
    from tfport.keras._modelfn._write import write_folder

    refuse_existing(out, overwrite)
    check_on = known_backends(check_on)
    path = _checkpoint(estimator, checkpoint)
    traced = trace(estimator, estimator.model_dir, input_shapes or {})
    parsed = lift_parsing(traced)  # tf.io parsing -> preprocess.py
    if not training:
        plan = plan_model(traced)
        return write_folder(plan, traced, path, out, factory, overwrite, check_on, parsed)
    if parsed is not None:
        raise TfportInputError(
            message(
                "--training: the model_fn parses tf.Examples (tf.io.parse_example); its "
                "training export is not supported",
                "Export without --training (the model predicts; preprocess.py parses), or "
                "parse in the input_fn",
                parsing=parsed.lines,
            )
        )
    from tfport.keras._modelfn._training import match_training, plan_optimizer_of
    from tfport.keras._modelfn._training_source import prepare_training
    from tfport.keras._modelfn._training_trace import trace_training

    matched = match_training(traced, trace_training(estimator, traced, estimator.model_dir))
    plan = plan_model(traced, matched.dropouts, tie=True)
    prepared = prepare_training(traced, plan, matched, plan_optimizer_of(matched.train))
    return write_folder(plan, traced, path, out, factory, overwrite, check_on, training=prepared)


CODE_FILES = ("model.py", "preprocess.py")  # what an export folder holds that is code


def export_code(folder: str) -> dict[str, bytes]:
    """The bytes of an export folder's code files there, by name.

    Example:
        >>> sorted(export_code("out"))  # doctest: +SKIP
        ['model.py', 'preprocess.py']
    """
    import os

    files = {}
    for name in CODE_FILES:
        path = os.path.join(folder, name)
        if os.path.lexists(path):
            with open(path, "rb") as f:
                files[name] = f.read()
    return files


def sealed_code(folder: str) -> dict[str, bytes] | None:
    """The code files of an export folder (`model.py`, `preprocess.py` if any) by name,
    when this user's `tfport keras export` sealed exactly these bytes; else None.

    Example:
        >>> sorted(sealed_code("out"))  # doctest: +SKIP
        ['model.py']
    """
    import json
    import os

    from tfport.keras._modelfn._seal import is_sealed

    files = export_code(folder)
    try:
        with open(os.path.join(folder, "report.json")) as f:
            seal = json.load(f).get("seal")
    except (OSError, ValueError, AttributeError):
        return None
    return files if "model.py" in files and is_sealed(files, seal) else None


def import_model_py(folder: str, source: bytes | None = None, name: str = "model.py") -> ModuleType:
    """Imports `folder/NAME` (or runs `source` as it) as a fresh module.

    Example:
        >>> import_model_py("out").build_model()  # doctest: +SKIP
    """
    from tfport.keras._modelfn._write import import_model_py as impl

    return impl(folder, source, name)


__all__ = ["export_model_fn", "export_code", "sealed_code", "import_model_py", "CODE_FILES"]
