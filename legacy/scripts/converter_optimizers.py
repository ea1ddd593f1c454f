"""The legacy checkpoint converter on the optimizers the canned goldens do not use.

Usage::

    python converter_optimizers.py converter_optimizers OUT_DIR

Each case trains a v1 canned estimator (``tf.compat.v1.estimator``) ``STEPS`` steps on
the training batches of ``estimator_cases.py`` into ``OUT_DIR/CASE/model_dir`` (kept:
the final checkpoint, its ``checkpoint`` state file and ``graph.pbtxt``), then runs the
legacy ``tools/checkpoint_converter.py`` on it into ``OUT_DIR/CASE/converted/model.ckpt``:

- ``dnn_adam``: DNNClassifier, ``optimizer="Adam"`` (beta powers -> beta_1/beta_2).
- ``dnn_sgd``: DNNClassifier, ``optimizer="SGD"`` (no slots: SGD found by default).
- ``linear_rmsprop``: LinearClassifier, ``optimizer="RMSProp"`` (its momentum slot is
  dropped).
- ``combined_adam_sgd``: DNNLinearCombinedClassifier, ``dnn_optimizer="Adam"``,
  ``linear_optimizer="SGD"`` (one non-SGD optimizer; the linear one gets ``iter``).
"""

import pathlib
import shutil
import sys

import tensorflow as tf
from tensorflow_estimator.python.estimator.tools import checkpoint_converter

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import estimator_cases as cases  # noqa: E402

ARTIFACTS = ("converter_optimizers",)
STEPS = 3
KINDS = {
    "dnn_adam": "dnn",
    "dnn_sgd": "dnn",
    "linear_rmsprop": "linear",
    "combined_adam_sgd": "combined",
}


def _estimator(case, model_dir):
    numeric, color = cases._numeric_column(), cases._color_column()
    config = cases._run_config(model_dir)
    v1 = tf.compat.v1.estimator
    if case.startswith("dnn_"):
        optimizer = "Adam" if case == "dnn_adam" else "SGD"
        est = v1.DNNClassifier(
            hidden_units=[8],
            feature_columns=[numeric],
            n_classes=3,
            optimizer=optimizer,
            config=config,
        )
        return est, False
    if case == "linear_rmsprop":
        est = v1.LinearClassifier(
            feature_columns=[numeric, color], n_classes=3, optimizer="RMSProp", config=config
        )
        return est, True
    est = v1.DNNLinearCombinedClassifier(
        linear_feature_columns=[color],
        linear_optimizer="SGD",
        dnn_feature_columns=[numeric],
        dnn_hidden_units=[8],
        dnn_optimizer="Adam",
        n_classes=3,
        config=config,
    )
    return est, True


def make(case, out_dir):
    """Trains CASE, keeps its final checkpoint and graph, converts it with legacy's tool."""
    model_dir = out_dir / case / "model_dir"
    estimator, color = _estimator(case, str(model_dir))
    estimator.train(cases.train_input_fn(True, color), max_steps=STEPS)
    final = pathlib.Path(tf.train.latest_checkpoint(str(model_dir))).name
    for path in list(model_dir.iterdir()):
        if path.is_dir():
            shutil.rmtree(path)
        elif path.name != "graph.pbtxt" and not path.name.startswith(final + "."):
            path.unlink()
    (model_dir / "checkpoint").write_text(
        f'model_checkpoint_path: "{final}"\nall_model_checkpoint_paths: "{final}"\n'
    )
    (out_dir / case / "converted").mkdir()
    checkpoint_converter.convert_checkpoint(
        KINDS[case],
        str(model_dir / final),
        str(model_dir / "graph.pbtxt"),
        str(out_dir / case / "converted" / "model.ckpt"),
    )


def main(name, out_dir):
    """Writes every case under OUT_DIR."""
    if name not in ARTIFACTS:
        raise ValueError(f"unknown artifact {name!r}; this script has: {', '.join(ARTIFACTS)}")
    for case in KINDS:
        make(case, pathlib.Path(out_dir))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: converter_optimizers.py {{{','.join(ARTIFACTS)}}} OUT_DIR")
    main(sys.argv[1], sys.argv[2])
