"""`tfport.verify`: do two migrated artifacts compute the same thing on the same inputs?

Any two of an Estimator (`SCRIPT_OR_MODULE:FACTORY@MODEL_DIR`), a SavedModel signature, a
`.keras` model, a frozen GraphDef, or two checkpoints (compared as `ckpt diff`).

Example:
    >>> from tfport import verify
    >>> report = verify.verify("frozen.pb", "saved_model_dir")  # doctest: +SKIP
    >>> report["equal"]  # doctest: +SKIP
    True
"""

from __future__ import annotations

from tfport.verify._artifacts import FORMS, kind_of
from tfport.verify._compare import compare_output, render, verify
from tfport.verify._factory import load_estimator
from tfport.verify._inputs import generate, read_inputs, to_examples
from tfport.verify._reports import ArtifactRef, VerifyReport

__all__ = [
    "FORMS",
    "ArtifactRef",
    "VerifyReport",
    "compare_output",
    "generate",
    "kind_of",
    "load_estimator",
    "read_inputs",
    "render",
    "to_examples",
    "verify",
]
