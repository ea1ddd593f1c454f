"""Issue 32 from the command line: `ckpt convert` refuses a silent merge with exit 2 and one
line; `ckpt inspect` reads a state file naming a non-ASCII checkpoint. The checkpoints are
those of the in-process checks (tests/unit/checkpoint/test_ckpt_no_silent_merge.py)."""

from __future__ import annotations

import os

import numpy as np
import pytest
from ckpt_helpers import run_cli
from tests.unit.checkpoint.test_ckpt_no_silent_merge import _adam_parts, _mixed, _write

from tfport.checkpoint import CheckpointReader


def test_cli_refusal_is_exit_2_one_line(tmp_path):
    src = _write(tmp_path / "src" / "model.ckpt", _adam_parts(bump=_mixed))
    proc = run_cli("ckpt", "convert", src, tmp_path / "out", "--slots", "v1-to-keras")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "different dtypes" in lines[0]


@pytest.mark.parametrize("escaped", [True, False], ids=["octal", "utf8"])
def test_non_ascii_names_in_the_state_file(tmp_path, escaped):
    name = "modèle.ckpt-12"
    _write(tmp_path / name, {"global_step": np.int64(12)})
    quoted = "".join(f"\\{b:03o}" for b in name.encode()) if escaped else name
    (tmp_path / "checkpoint").write_text(
        f'model_checkpoint_path: "{quoted}"\nall_model_checkpoint_paths: "{quoted}"\n',
        encoding="utf-8",
    )
    with CheckpointReader(str(tmp_path)) as reader:
        assert os.path.basename(reader.prefix) == name
    proc = run_cli("ckpt", "inspect", tmp_path)
    assert proc.returncode == 0, proc.stderr
