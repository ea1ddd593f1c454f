"""Source upgrade: TF 1.x / Estimator-era Python to code that runs on TF 2.21 with tfport.

Runs TensorFlow's own `tf_upgrade_v2` logic, then tfport's libcst rewrites
(`tf.estimator` and `tf.contrib.tpu` -> `tfport.estimator`, `model_to_estimator`
-> `tfport.keras`, `tf.layers`, TensorShape `.value`, `colocate_with`,
`ConfigProto` -> `tf.config`, `tf.flags` and the common `tf.contrib` names ->
TF 2.21 / :mod:`tfport.compat.contrib`, report items for the rest), then checks
the result for names TF 2.21 cannot resolve (status `needs manual work`).

Example:
    >>> from tfport.upgrade import upgrade_paths
    >>> results = upgrade_paths(["train.py"], out_dir="upgraded")  # doctest: +SKIP
    >>> [r.status.value for r in results]  # doctest: +SKIP
    ['changed']
"""

from tfport.upgrade._check import unresolved_names
from tfport.upgrade._codemods import SourceSyntaxError, upgrade_source
from tfport.upgrade._imports import check_imports, import_error
from tfport.upgrade._live import install_finder, live_code, needs_upgrade, run_script
from tfport.upgrade._report import (
    ERROR,
    INFO,
    WARNING,
    FileResult,
    ReportItem,
    SourceResult,
    Status,
    files_text,
    report_text,
    summary,
)
from tfport.upgrade._runner import plan_outputs, upgrade_file, upgrade_paths

__all__ = [
    "ERROR",
    "INFO",
    "WARNING",
    "FileResult",
    "ReportItem",
    "SourceResult",
    "SourceSyntaxError",
    "check_imports",
    "files_text",
    "import_error",
    "install_finder",
    "live_code",
    "needs_upgrade",
    "Status",
    "plan_outputs",
    "report_text",
    "run_script",
    "summary",
    "unresolved_names",
    "upgrade_file",
    "upgrade_paths",
    "upgrade_source",
]
