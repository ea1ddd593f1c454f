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
SHARDS_CASES = 600  # issue 32: multi-shard partitioned checkpoints through convert
VERIFY_CASES = 40  # issue 32: intact, damaged and hostile SavedModels through verify
OK = {"refused", "equal", "changed"}


def _campaign(kind: str, cases: int, goldens) -> dict:
    result = campaign(kind, cases, str(goldens))
    print(result)
    assert sum(result["classes"].values()) == cases
    assert set(result["classes"]) <= OK, result["failures"]
    return result["classes"]


@pytest.mark.slow
def test_checkpoint_fuzz(goldens):
    classes = _campaign("ckpt", CKPT_CASES, goldens)
    assert classes.get("refused", 0) > CKPT_CASES // 2  # mutations do bite


@pytest.mark.slow
def test_graph_fuzz(goldens):
    classes = _campaign("graph", GRAPH_CASES, goldens)
    assert classes.get("equal", 0) > 0 and classes.get("refused", 0) > 0


@pytest.mark.slow
def test_multi_shard_checkpoints_through_convert(goldens):
    classes = _campaign("shards", SHARDS_CASES, goldens)  # a silent merge fails it
    assert classes.get("refused", 0) > SHARDS_CASES // 4 and classes.get("equal", 0) > 0


@pytest.mark.slow
def test_saved_models_through_verify(goldens):
    classes = _campaign("verify", VERIFY_CASES, goldens)  # "executed" fails it
    assert classes.get("equal", 0) > 0 and classes.get("refused", 0) > 0
