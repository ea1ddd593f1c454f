"""Runs several cases of legacy/scripts/families_cases.py in one process (one TF import).

Usage (under ``tfport run [--strategy ...]``)::

    run_cases.py CASE,MODEL_DIR,OUT_JSON [CASE,MODEL_DIR,OUT_JSON ...]
"""

import importlib.util
import pathlib
import sys

SCRIPT = pathlib.Path(__file__).parents[2] / "legacy" / "scripts" / "families_cases.py"

spec = importlib.util.spec_from_file_location("families_cases", SCRIPT)
cases = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cases)
for job in sys.argv[1:]:
    case, model_dir, out_json = job.split(",")
    cases.main(case, model_dir, out_json)
