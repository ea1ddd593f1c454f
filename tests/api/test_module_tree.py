"""Issue 27: the whole module tree of tensorflow-estimator 2.15 (tests/api/estimator_modules.json,
walked on the legacy stack) under `tfport run`: all 94 modules at both prefixes (188), every
public name with the legacy signature (added optional parameters allowed) and every public
member of its classes; nothing public is left out. Private names and members (issue 41)
are checked the same way where present (literal constants: legacy's values); their counts are
printed and held to a floor.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

HERE = pathlib.Path(__file__).resolve().parent
ROOT = "tensorflow_estimator.python.estimator"


def test_the_module_tree_under_tfport_run(tmp_path):
    out = tmp_path / "walk.json"
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    cmd = [sys.executable, "-m", "tfport", "run", str(HERE / "module_walk.py"), "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(out.read_text())
    counts = result["counts"]
    print(json.dumps(counts, sort_keys=True))
    assert counts["modules"] == counts["modules_ok"] == 188, result["problems"][:20]
    assert counts["public"] == counts["public_ok"] == 840 and counts["private"] == 814
    assert counts["members"] == counts["members_ok"] == 1750
    assert result["problems"] == []
    # issue 41: private names and members too (both prefixes). Not all are provided yet:
    # the counts are printed, and may only grow (a floor, raised as names are added).
    mismatched = [p for p in result["private_problems"] if not p.endswith("missing member")]
    mismatched = [p for p in mismatched if not p.endswith(": missing")]
    print("names with legacy signatures:", counts["public_ok"] + counts["private_ok"], "/ 1654")
    print(
        "members:",
        counts["members_ok"] + counts["private_members_ok"],
        "/",
        counts["members"] + counts["private_members"],
    )
    print("private signatures unlike legacy's:", mismatched)
    assert mismatched == []  # a private name that is present has legacy's signature
    assert counts["private_ok"] >= 712 and counts["private_members_ok"] >= 2868


def test_legacy_modules_cost_nothing_until_a_name_is_read():
    code = textwrap.dedent(
        """
        import sys
        import tfport
        tfport.install()
        before = sorted(m for m in sys.modules if m.startswith("tfport.estimator._legacy"))
        from tensorflow_estimator.python.estimator.canned import head
        from tensorflow.python.estimator import gc, util
        after_import = sorted(m for m in sys.modules if m.startswith("tfport.estimator._legacy"))
        head._Head
        print(before, after_import, "tfport.estimator._legacy.canned_head" in sys.modules)
        """
    )
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[] [] True"
