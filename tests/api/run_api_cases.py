"""Runs several cases of legacy/scripts/api_cases.py, api_more.py and api_export.py in one
process (one TensorFlow import).

Usage (under ``tfport run [--strategy ...]``)::

    run_api_cases.py CASE,MODEL_DIR,OUT_JSON [CASE,MODEL_DIR,OUT_JSON ...]
"""

import importlib.util
import pathlib
import sys

SCRIPTS = pathlib.Path(__file__).parents[2] / "legacy" / "scripts"


def _load(stem):
    spec = importlib.util.spec_from_file_location(stem, SCRIPTS / f"{stem}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


modules = [_load("api_cases"), _load("api_more"), _load("api_export")]
for job in sys.argv[1:]:
    case, model_dir, out_json = job.split(",")
    (module,) = [m for m in modules if case in m.CASES]
    module.main(case, model_dir, out_json)
