"""Issue 27: the whole module tree of tensorflow-estimator 2.15 (tests/api/estimator_modules.json,
walked on the legacy stack) under `tfport run`: all 94 modules at both prefixes (188), every
public name with the legacy signature (added optional parameters allowed) and every public
member of its classes; nothing public is left out. Every private name and member (issue 41)
is checked the same way (literal constants: legacy's values): 1654 names and 4990 members in
all, none missing.
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
    # issue 41: every private name and class member too (both prefixes), with legacy's
    # signatures: 1654 names and 4990 members in all.
    assert result["private_problems"] == []
    assert counts["private_present"] == counts["private_ok"] == 814
    assert counts["private_members"] == counts["private_members_ok"] == 3240
    assert counts["public_ok"] + counts["private_ok"] == 1654
    assert counts["members_ok"] + counts["private_members_ok"] == 4990


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
        print(before, after_import, "tfport.estimator._heads.canned_head" in sys.modules)
        """
    )
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2")
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=600
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert proc.stdout.strip().splitlines()[-1] == "[] [] True"
