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

import types
from typing import TYPE_CHECKING

from tfport._common.atomic import refuse_existing
from tfport._common.errors import TfportInputError, message

if TYPE_CHECKING:  # a tfport Estimator (custom model_fn, TPUEstimator, model_to_estimator)
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
        training: also trace TRAIN mode and write what `fit` needs (the loss, dropout,
            batch-norm updates, regularizers, the optimizer with its checkpoint state):
            `keras.saving.load_model(OUT/model.keras).fit(...)` continues the training.

    Returns:
        The report (also written to OUT/report.json).

    Raises:
        TfportInputError: the first op with no Keras form (with its model_fn line), a
            model_dir without training graph or checkpoint; nothing is written.

    Example:
        >>> export_model_fn(est, "out", factory="train.py:make")["outputs"]  # doctest: +SKIP
        ['probabilities']
    """
    from tfport._common.tfenv import import_tf

    import_tf()
    from tfport.keras._modelfn._emit import plan_model
    from tfport.keras._modelfn._trace import trace
    from tfport.keras._modelfn._write import write_folder

    refuse_existing(out, overwrite)
    path = _checkpoint(estimator, checkpoint)
    traced = trace(estimator, estimator.model_dir, input_shapes or {})
    if not training:
        return write_folder(plan_model(traced), traced, path, out, factory, overwrite)
    from tfport.keras._modelfn._training import match_training, plan_optimizer_of
    from tfport.keras._modelfn._training_source import prepare_training
    from tfport.keras._modelfn._training_trace import trace_training

    matched = match_training(traced, trace_training(estimator, traced, estimator.model_dir))
    plan = plan_model(traced, matched.dropouts)
    prepared = prepare_training(traced, plan, matched, plan_optimizer_of(matched.train))
    return write_folder(plan, traced, path, out, factory, overwrite, prepared)


def import_model_py(folder: str) -> types.ModuleType:
    """Imports an export folder's `model.py` (see `_write.import_model_py`).

    Example:
        >>> import_model_py("out").compile_model  # doctest: +SKIP
    """
    from tfport.keras._modelfn._write import import_model_py as impl

    return impl(folder)


__all__ = ["export_model_fn", "import_model_py"]
