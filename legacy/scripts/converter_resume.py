"""v2 canned estimators resumed from the legacy checkpoint converter's output.

Usage::

    python converter_resume.py converter_resume OUT_DIR

For each of ``canned_dnn``, ``canned_linear`` and ``canned_combined`` (the v1 canned
cases of ``estimator_cases.py``), the legacy ``tools/checkpoint_converter.py`` converts
the committed golden's step-40 checkpoint (``legacy/goldens/CASE/model_dir``, made by
this stack) into ``OUT_DIR/CASE/model_dir``; the matching v2 estimator
(``tf.estimator.DNNClassifier``, ``LinearClassifier``, ``DNNLinearCombinedClassifier``,
same columns, default optimizers) trains ``STEPS`` more steps on the case's training
batches there, then evaluates and predicts the test rows. ``OUT_DIR/CASE/expected.json``
holds ``eval_metrics``, ``predictions`` and ``variables``; the model_dir keeps only the
final checkpoint (step 45) and its ``checkpoint`` state file.
"""

import json
import os
import pathlib
import shutil
import sys

import tensorflow as tf
from tensorflow_estimator.python.estimator.tools import checkpoint_converter

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import estimator_cases as cases  # noqa: E402

ARTIFACTS = ("converter_resume",)
STEPS = 5
KINDS = {"canned_dnn": "dnn", "canned_linear": "linear", "canned_combined": "combined"}


def _v2_estimator(case, model_dir):
    numeric, color = cases._numeric_column(), cases._color_column()
    config = cases._run_config(model_dir)
    if case == "canned_dnn":
        est = tf.estimator.DNNClassifier(
            hidden_units=[16, 8], feature_columns=[numeric], n_classes=3, config=config
        )
        return est, False
    if case == "canned_linear":
        est = tf.estimator.LinearClassifier(
            feature_columns=[numeric, color], n_classes=3, config=config
        )
        return est, True
    est = tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=[color],
        dnn_feature_columns=[numeric],
        dnn_hidden_units=[16, 8],
        n_classes=3,
        config=config,
    )
    return est, True


def resume(case, out_dir):
    """Converts CASE's golden step-40 checkpoint, trains STEPS more with v2, records it."""
    source = HERE.parent / "goldens" / case / "model_dir"
    model_dir = out_dir / case / "model_dir"
    model_dir.mkdir(parents=True)
    checkpoint_converter.convert_checkpoint(
        KINDS[case],
        str(source / "model.ckpt-40"),
        str(source / "graph.pbtxt"),
        str(model_dir / "model.ckpt"),
    )
    estimator, color = _v2_estimator(case, str(model_dir))
    estimator.train(cases.train_input_fn(True, color), steps=STEPS)
    metrics = estimator.evaluate(cases.eval_input_fn(True, color))
    rows = estimator.predict(cases.eval_input_fn(True, color, labels=False))
    final = tf.train.latest_checkpoint(str(model_dir))
    variables = sorted(name for name, _ in tf.train.list_variables(final))
    expected = {
        "eval_metrics": metrics,
        "predictions": [row["probabilities"] for row in rows],
        "variables": variables,
        "steps": STEPS,
    }
    keep = os.path.basename(final)
    for path in list(model_dir.iterdir()):
        if path.is_dir():
            shutil.rmtree(path)
        elif not path.name.startswith(keep + "."):
            path.unlink()
    (model_dir / "checkpoint").write_text(
        f'model_checkpoint_path: "{keep}"\nall_model_checkpoint_paths: "{keep}"\n'
    )
    text = json.dumps(cases._plain(expected), indent=1, sort_keys=True)
    (out_dir / case / "expected.json").write_text(text + "\n")


def main(name, out_dir):
    """Writes the three resumed cases under OUT_DIR."""
    if name not in ARTIFACTS:
        raise ValueError(f"unknown artifact {name!r}; this script has: {', '.join(ARTIFACTS)}")
    for case in KINDS:
        resume(case, pathlib.Path(out_dir))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(f"usage: converter_resume.py {{{','.join(ARTIFACTS)}}} OUT_DIR")
    main(sys.argv[1], sys.argv[2])
