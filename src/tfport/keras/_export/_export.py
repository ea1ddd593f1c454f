"""`estimator_to_keras` and the atomic `.keras` save."""

from __future__ import annotations

import os
import tempfile
from typing import TYPE_CHECKING, Any

from tfport._common.atomic import refuse_existing
from tfport._common.errors import TfportInputError, message
from tfport._common.types import KerasModel

if TYPE_CHECKING:
    from tfport.estimator import Estimator


def estimator_to_keras(
    estimator: Estimator,
    checkpoint_path: str | None = None,
    *,
    input_shapes: dict | None = None,
    baseline_input: str | None = None,
) -> Any:
    """A Keras 3 functional model computing what a canned estimator predicts.

    Built from built-in Keras 3 layers and `keras.ops` only (it loads with
    `safe_mode=True` in a process that never imports tfport), with the weights of the
    estimator's latest checkpoint (or `checkpoint_path`). It takes the feature dict the
    estimator's `input_fn` gives (dense tensors; a multivalent categorical feature padded
    with `''` / `-1`, as `tf.sparse.to_dense` makes of a parsed `VarLenFeature`) and
    returns the estimator's prediction keys (`logits`, `probabilities`, `class_ids`,
    `classes`, ... or `predictions`).

    Args:
        estimator: a canned estimator (DNN*, Linear*, DNNLinearCombined*, Baseline*;
            v1 or v2).
        checkpoint_path: checkpoint to read (default: the latest in `model_dir`).
        input_shapes: per-example shape of a feature when not the column's own, e.g.
            `{"tags": (None,)}` for a multivalent categorical feature (default `(1,)`).
        baseline_input: the feature a Baseline model reads its batch size from
            (default: the weight column, else `"x"`).

    Returns:
        A `keras.Model` whose outputs are named like the estimator's predictions.

    Raises:
        TfportInputError: a custom model_fn, an unsupported feature column (named), a
            checkpoint that does not match the estimator.

    Example:
        >>> model = estimator_to_keras(tf.estimator.DNNClassifier(...))  # doctest: +SKIP
        >>> model.save("dnn.keras")  # doctest: +SKIP
    """
    from tfport._common.tfenv import import_tf

    import_tf()  # the process's TensorFlow set-up before Keras 3 loads
    from tfport.keras._export._model import build

    return build(estimator, checkpoint_path, input_shapes, baseline_input)


def save_keras(model: KerasModel, path: str, overwrite: bool = False) -> str:
    """Saves `model` to `path` (a `.keras` file) atomically; never overwrites unless asked.

    Example:
        >>> save_keras(model, "out.keras")  # doctest: +SKIP
    """
    if not str(path).endswith(".keras"):
        raise TfportInputError(
            message("The Keras output must be a .keras file", "Name it OUT.keras", path=path)
        )
    refuse_existing(path, overwrite)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tfport-", suffix=".keras", dir=folder)
    os.close(fd)
    try:
        model.save(tmp)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return path
