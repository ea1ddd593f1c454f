"""Runs golden cases of one legacy script in one process, as the generator ran them.

Usage (under ``tfport run``)::

    run_scripts.py SCRIPT_PATH CASE,MODEL_DIR,OUT_JSON [...]

Each job runs SCRIPT_PATH as ``__main__`` with ``sys.argv = [SCRIPT, CASE, MODEL_DIR,
OUT_JSON]`` (the contract of legacy/README.md); a script ending in ``sys.exit(0)`` (absl's
``app.run``) is fine.
"""

import runpy
import sys

script = sys.argv[1]
for job in sys.argv[2:]:
    case, model_dir, out_json = job.split(",")
    sys.argv = [script, case, model_dir, out_json]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as stop:
        if stop.code not in (None, 0):
            raise
