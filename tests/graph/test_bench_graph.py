"""Smoke run of `bench/graph.py --scaling` at tiny sizes: one JSON line, no timing asserted."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "graph.py"


def test_scaling_bench_prints_one_json_line():
    args = ["--scaling", "--nodes", "200", "--convert-nodes", "0", "--scaling-rounds", "1"]
    proc = subprocess.run(
        [sys.executable, str(BENCH), *args], capture_output=True, text=True, check=True
    )
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1
    result = json.loads(lines[0])
    assert result["benchmark"] == "graph_inspect_scaling"
    assert result["nodes"] == [200, 2000]
    for key in ("time_ratio", "peak_rss_growth_over_input", "over_protobuf_parse"):
        assert result[key] > 0
