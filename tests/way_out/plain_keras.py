"""Run in a plain Keras 3 process (never imports tfport): load each `.keras` model with
`safe_mode=True`, predict on the inputs of an `.npz`, write the outputs.

Usage: python plain_keras.py INPUTS.npz OUT_DIR MODEL.keras...
"""

import os
import sys

os.environ.pop("TF_USE_LEGACY_KERAS", None)
os.environ["KERAS_BACKEND"] = "tensorflow"

import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402  (Keras 3's backend; tf_keras is never used here)

import keras  # noqa: E402


def main(inputs_path: str, out_dir: str, models: list) -> None:
    data = dict(np.load(inputs_path, allow_pickle=True))
    for path in models:
        model = keras.models.load_model(path, safe_mode=True)
        names = [t.name for t in model.inputs]
        feed = {n: tf.constant(data[n]) for n in names}
        out = model(feed, training=False)
        name = os.path.basename(path)[: -len(".keras")]
        np.savez(os.path.join(out_dir, name + ".npz"), **{k: np.asarray(v) for k, v in out.items()})
    assert not any(m == "tfport" or m.startswith("tfport.") for m in sys.modules)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
