"""Runs an export folder in plain Keras 3, as where tfport and TensorFlow are not installed:
the child process of `_check` (run as a script, never imported by tfport).

Usage: python _plain_keras.py FOLDER ROWS.npz RESULT_DIR [--lone]

Imports FOLDER/model.py (its layers register), loads FOLDER/model.keras (default safe
mode), predicts on ROWS.npz (string arrays become object arrays; `--lone`: the model takes
its one input as a plain array) and writes RESULT_DIR/outputs.npz and modules.json (which
of tensorflow, tf_keras, tfport got imported: none may).

Example:
    $ KERAS_BACKEND=jax python _plain_keras.py out rows.npz result
"""

from __future__ import annotations

import importlib.abc
import json
import os
import sys
import types

BLOCKED = ("tensorflow", "tf_keras", "tfport")


class _Absent(importlib.abc.MetaPathFinder):
    """A meta path finder for which the blocked packages do not exist."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def main(argv: list[str]) -> None:
    """Predicts with the folder's model.keras; see the module docstring."""
    folder, rows_path, result = argv[:3]
    sys.meta_path.insert(0, _Absent())
    import numpy as np

    import keras

    module = types.ModuleType("exported_model")
    path = os.path.join(folder, "model.py")
    with open(path, "rb") as f:
        exec(compile(f.read(), path, "exec"), module.__dict__)  # noqa: S102 - our own export
    model = keras.saving.load_model(os.path.join(folder, "model.keras"))
    rows = dict(np.load(rows_path, allow_pickle=False))
    rows = {k: v.astype(object) if v.dtype.kind in "US" else v for k, v in rows.items()}
    given = next(iter(rows.values())) if "--lone" in argv else rows
    out = model(given, training=False)
    if not isinstance(out, dict):
        out = {"predictions": out}
    arrays = {k: np.asarray(v) for k, v in out.items()}
    np.savez(os.path.join(result, "outputs.npz"), **arrays)  # type: ignore[arg-type]
    with open(os.path.join(result, "modules.json"), "w") as f:
        json.dump([m for m in BLOCKED if m in sys.modules], f)


if __name__ == "__main__":
    main(sys.argv[1:])
