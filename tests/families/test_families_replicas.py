"""KMeans, which the legacy stack never distributed, refuses replicas with one line."""

from __future__ import annotations

import pytest

from conftest import compare, tfport_run

pytestmark = pytest.mark.slow


def test_kmeans_refuses_replicas_with_one_line(goldens, tmp_path):
    model_dir = compare.step0_copy(goldens / "families_kmeans", tmp_path)
    proc = tfport_run(
        "--strategy",
        "mirrored:2",
        str(compare.script(goldens.parent, "families_kmeans")),
        "families_kmeans",
        str(model_dir),
        str(tmp_path / "out.json"),
    )
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "KMeans runs on one device" in line]
    assert len(lines) == 1, proc.stderr[-2000:]
    assert "replicas=2" in lines[0]
    assert not (model_dir / "model.ckpt-40.index").exists()


def test_rnn_refuses_replicas_with_one_line(goldens, tmp_path):
    model_dir = compare.step0_copy(goldens / "families_rnn_lstm", tmp_path)
    proc = tfport_run(
        "--strategy",
        "mirrored:2",
        str(compare.script(goldens.parent, "families_rnn_lstm")),
        "families_rnn_lstm",
        str(model_dir),
        str(tmp_path / "out.json"),
    )
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if "RNNClassifier runs on one" in line]
    assert len(lines) == 1, proc.stderr[-2000:]
    assert not (model_dir / "model.ckpt-40.index").exists()
