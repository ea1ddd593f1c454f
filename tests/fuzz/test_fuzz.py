"""The CI fuzz run (issue 18): mutated checkpoints and graphs, every case classified.

Workers run in subprocesses (tests/fuzz/campaign.py), so a signal, a hang or a memory
blow-up is a case class like the others; any of them, a traceback or a silently
changed output fails the run. The long local mode: `python tests/fuzz/campaign.py`.
"""

from __future__ import annotations

import pytest
from campaign import campaign

CKPT_CASES = 3000
GRAPH_CASES = 800
OK = {"refused", "equal", "changed"}


@pytest.mark.slow
def test_checkpoint_fuzz(goldens):
    result = campaign("ckpt", CKPT_CASES, str(goldens))
    print(result)
    assert sum(result["classes"].values()) == CKPT_CASES
    assert set(result["classes"]) <= OK, result["failures"]
    assert result["classes"].get("refused", 0) > CKPT_CASES // 2  # mutations do bite


@pytest.mark.slow
def test_graph_fuzz(goldens):
    result = campaign("graph", GRAPH_CASES, str(goldens))
    print(result)
    assert sum(result["classes"].values()) == GRAPH_CASES
    assert set(result["classes"]) <= OK, result["failures"]
    assert result["classes"].get("equal", 0) > 0 and result["classes"].get("refused", 0) > 0
