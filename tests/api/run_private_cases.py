"""Runs several cases of legacy/scripts/private_cases.py in one process (one TF import).

Usage (under ``tfport run [--strategy ...]``)::

    run_private_cases.py CASE,MODEL_DIR,OUT_JSON [CASE,MODEL_DIR,OUT_JSON ...]
"""

import importlib.util
import pathlib
import sys

SCRIPT = pathlib.Path(__file__).parents[2] / "legacy" / "scripts" / "private_cases.py"
spec = importlib.util.spec_from_file_location("private_cases", SCRIPT)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
for job in sys.argv[1:]:
    module.main(*job.split(","))
