"""Runs cases of legacy/scripts/private_canned.py in one process (one TF import).

Usage (under ``tfport run [--strategy ...]``)::

    run_private_canned.py CASE,MODEL_DIR,OUT_JSON [CASE,MODEL_DIR,OUT_JSON ...]
"""

import pathlib
import runpy
import sys

SCRIPT = pathlib.Path(__file__).parents[2] / "legacy" / "scripts" / "private_canned.py"
main = runpy.run_path(str(SCRIPT), run_name="private_canned")["main"]
for job in sys.argv[1:]:
    main(*job.split(","))
