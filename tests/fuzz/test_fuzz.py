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
VERIFY_CASES = 60  # issue 32: intact, damaged and hostile SavedModels through verify
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


@pytest.mark.slow
def test_multi_shard_checkpoints_through_convert(goldens):
    result = campaign("shards", SHARDS_CASES, str(goldens))
    print(result)
    assert sum(result["classes"].values()) == SHARDS_CASES
    assert set(result["classes"]) <= OK, result["failures"]
    assert result["classes"].get("refused", 0) > SHARDS_CASES // 4  # mutations do bite


@pytest.mark.slow
def test_saved_models_through_verify(goldens):
    result = campaign("verify", VERIFY_CASES, str(goldens))
    print(result)
    assert sum(result["classes"].values()) == VERIFY_CASES
    assert set(result["classes"]) <= OK, result["failures"]  # never "executed"
    assert result["classes"].get("equal", 0) > 0 and result["classes"].get("refused", 0) > 0
