"""`tfport verify` of two checkpoints (in-process `main`): the worst tensor is named (the
artifacts' comparisons: tests/way_out/test_verify.py)."""

from __future__ import annotations

import json

from tfport.cli._main import main


def _run(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    data = json.loads(out) if "--json" in argv and out.strip() else None
    return code, data, err


def test_two_checkpoints_that_differ_name_the_worst_tensor(goldens, capsys):
    model_dir = goldens / "canned_linear" / "model_dir"
    a, b = str(model_dir / "model.ckpt-20"), str(model_dir / "model.ckpt-40")
    code, report, _ = _run(capsys, "verify", a, b, "--json")
    assert code == 1 and not report["equal"]
    worst = report["worst"]
    tensors = report["diff"]["tensors"]
    assert worst["max_abs_diff"] == max(t["max_abs_diff"] for t in tensors) > 0
    assert main(["verify", a, b]) == 1
    assert f"worst tensor: {worst['name']}" in capsys.readouterr().out
    code, report, _ = _run(capsys, "verify", a, a, "--json")
    assert code == 0 and report["equal"]
