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
    from tfport.keras._modelfn._trace import trace
    from tfport.keras._modelfn._write import write_folder

    refuse_existing(out, overwrite)
    check_on = known_backends(check_on)
    path = _checkpoint(estimator, checkpoint)
    traced = trace(estimator, estimator.model_dir, input_shapes or {})
    plan = plan_model(traced)
    return write_folder(plan, traced, path, out, factory, overwrite, check_on)


def sealed_model_py(folder: str) -> bytes | None:
    """The bytes of `folder/model.py` when this user's export sealed them, else None.

    Example:
        >>> sealed_model_py("out") is not None  # doctest: +SKIP
        True
    """
    import json
    import os

    from tfport.keras._modelfn._seal import is_sealed

    with open(os.path.join(folder, "model.py"), "rb") as f:
        source = f.read()
    try:
        with open(os.path.join(folder, "report.json")) as f:
            seal = json.load(f).get("seal")
    except (OSError, ValueError, AttributeError):
        return None
    return source if is_sealed(source, seal) else None


def import_model_py(folder: str, source: bytes | None = None) -> ModuleType:
    """Imports `folder/model.py` (or runs `source`) as a fresh module.

    Example:
        >>> import_model_py("out").build_model()  # doctest: +SKIP
    """
    from tfport.keras._modelfn._write import import_model_py as impl

    return impl(folder, source)


__all__ = ["export_model_fn", "sealed_model_py", "import_model_py"]
