"""Runs several legacy scripts, unmodified, in one `tfport run` process (one TF start-up).

``tfport run guide_driver.py JOBS_JSON STATUS_JSON``: JOBS_JSON is a list of
``{"name", "script", "argv"}``; each script runs as ``__main__`` with
``sys.argv = [script, *argv]`` (what ``python script argv...`` gives it). absl flags a
script defines are removed after it, so the next script (or the same one again) can
define them anew. STATUS_JSON receives ``{name: {"ok", "error", "seconds"}}``; one
script's failure does not stop the others.
"""

import json
import runpy
import sys
import time
import traceback

from absl import flags


def run_job(script, argv):
    """Runs SCRIPT as __main__ with ARGV; a zero exit counts as success."""
    before = set(flags.FLAGS)
    sys.argv = [script, *argv]
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exit_:
        if exit_.code not in (None, 0):
            raise
    finally:
        for name in set(flags.FLAGS) - before:
            delattr(flags.FLAGS, name)


def main(jobs_json, status_json):
    with open(jobs_json) as f:
        jobs = json.load(f)
    status = {}
    for job in jobs:
        start = time.perf_counter()
        try:
            run_job(job["script"], job["argv"])
            status[job["name"]] = {"ok": True, "error": None}
        except BaseException:  # noqa: BLE001 - reported per job, the others still run
            status[job["name"]] = {"ok": False, "error": traceback.format_exc()[-4000:]}
        status[job["name"]]["seconds"] = round(time.perf_counter() - start, 2)
        with open(status_json, "w") as f:
            json.dump(status, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
