"""Predicts with `tfport keras export` folders in a plain Keras 3 process (no tfport).

Usage: python run_exported.py RESULT.npz [--no-tensorflow] OUT1 INPUTS1.npz [OUT2 INPUTS2.npz ...]

For each folder: imports OUT/model.py (its layers register), loads OUT/model.keras with
the default safe_mode, and also builds `model.build_model()` with OUT/model.weights.h5;
writes `{i}/loaded/{key}` and `{i}/built/{key}` to RESULT.npz. `--no-tensorflow` makes
`tensorflow`, `tf_keras` and `tfport` unimportable (as where they are not installed).
RESULT.npz also gets `modules`: which of those ended up imported.
"""

from __future__ import annotations

import importlib.util
import os
import pathlib
import subprocess
import sys

BLOCKED = ("tensorflow", "tf_keras", "tfport")


class _Absent:
    """A meta path finder for which the blocked packages do not exist."""

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


def _predict(out: str, inputs_path: str, i: int, result: dict) -> None:
    import numpy as np

    import keras

    spec = importlib.util.spec_from_file_location(f"model_{i}", os.path.join(out, "model.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    loaded = keras.saving.load_model(os.path.join(out, "model.keras"))
    built = module.build_model()
    built.load_weights(os.path.join(out, "model.weights.h5"))
    feats = dict(np.load(inputs_path, allow_pickle=False))
    # string features: Keras takes them as object arrays (not numpy's fixed-width str)
    feats = {k: v.astype(object) if v.dtype.kind in "US" else v for k, v in feats.items()}
    x = feats["features"] if list(feats) == ["features"] else feats
    for kind, model in (("loaded", loaded), ("built", built)):
        outputs = model.predict(x, verbose=0, batch_size=len(next(iter(feats.values()))))
        if not isinstance(outputs, dict):
            outputs = {"predictions": outputs}
        for key, value in outputs.items():
            result[f"{i}/{kind}/{key}"] = np.asarray(value)


def main(argv: list[str]) -> None:
    result_path, args = argv[0], argv[1:]
    if args and args[0] == "--no-tensorflow":
        sys.meta_path.insert(0, _Absent())
        args = args[1:]
    import numpy as np

    result: dict = {}
    for i in range(0, len(args), 2):
        _predict(args[i], args[i + 1], i // 2, result)
    result["modules"] = np.array([m for m in BLOCKED if m in sys.modules], dtype=str)
    import keras

    result["backend"] = np.array(keras.backend.backend())
    np.savez(result_path, **result)


def run(result: pathlib.Path, backend: str, pairs: list[tuple[object, object]]) -> dict:
    """This script in a child process with KERAS_BACKEND=`backend` (jax: TensorFlow,
    tf_keras and tfport unimportable) on (export folder, inputs .npz) pairs; RESULT.npz as
    a dict."""
    import numpy as np

    env = {k: v for k, v in os.environ.items() if k != "TF_USE_LEGACY_KERAS"}
    env["KERAS_BACKEND"] = backend
    args = [str(result)] + (["--no-tensorflow"] if backend == "jax" else [])
    for out, inputs in pairs:
        args += [str(out), str(inputs)]
    proc = subprocess.run(
        [sys.executable, __file__, *args], env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return dict(np.load(result))


if __name__ == "__main__":
    main(sys.argv[1:])
