"""The families under `tfport run --strategy mirrored:2`.

KMeans, which the legacy stack never distributed, refuses replicas with one line. The RNN
estimators run on two replicas with one device's numbers: the three legacy RNN cases
(simple_rnn, lstm, stacked GRU cells with a context column) resume from the legacy step-0
checkpoint in one `tfport run --strategy mirrored:2` process, once as written and once
with 4 steps per loop, and must give the legacy step-40 variables, metrics and
predictions (one device's, made by the TF 2.15 stack). Their training data splits some
global batches into replica halves whose longest sequences differ (5 and 3 steps, both
padded to the global batch's 5).
"""

from __future__ import annotations

import json

import pytest

from conftest import HERE, compare, tfport_run

pytestmark = pytest.mark.slow

RNN_CASES = ("families_rnn_simple_rnn", "families_rnn_lstm", "families_rnn_gru")
LOOPS = (1, 4)  # steps per session.run (4: the model step inside the engine's while_loop)
REPLICAS_ATOL = 1e-4  # N replicas vs one device, from a common step-0 checkpoint


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


@pytest.fixture(scope="module")
def rnn_mirrored(goldens, tmp_path_factory):
    """(case, loop) -> (model_dir, out): the RNN cases on mirrored:2, one subprocess in all."""
    root = tmp_path_factory.mktemp("rnn_mirrored")
    jobs, runs = [], {}
    for case in RNN_CASES:
        for loop in LOOPS:
            where = root / f"{case}_loop{loop}"
            model_dir = compare.step0_copy(goldens / case, where)
            runs[case, loop] = (model_dir, where / "out.json")
            jobs.append(f"{case},{model_dir},{where / 'out.json'},{loop}")
    script = HERE / "run_cases_with_loops.py"
    proc = tfport_run("--strategy", "mirrored:2", str(script), "families_cases", *jobs)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return {key: (d, json.loads(out.read_text())) for key, (d, out) in runs.items()}


def test_rnn_training_batches_differ_in_length_across_replicas(goldens):
    cases = compare.load_script(goldens.parent, "families_rnn_lstm")
    features, _ = cases._sequences()
    lengths = (features["price"] != cases.PAD).sum(1)
    half = cases.BATCH // 2
    batches = [lengths[i : i + cases.BATCH] for i in range(0, len(lengths), cases.BATCH)]
    longest = [(b[:half].max(), b[half:].max()) for b in batches]
    assert any(a != b for a, b in longest), longest
    assert all(max(pair) == cases.MAX_LEN for pair in longest), longest


@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize("case", RNN_CASES)
def test_rnn_on_mirrored_2_gives_one_devices_numbers(case, loop, goldens, rnn_mirrored):
    model_dir, out = rnn_mirrored[case, loop]
    want = json.loads((goldens / case / "expected.json").read_text())
    assert out["variables"] == want["variables"]
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-40"),
        str(goldens / case / "model_dir" / "model.ckpt-40"),
        REPLICAS_ATOL,
    )
    assert set(out["eval_metrics"]) == set(want["eval_metrics"])
    assert compare.excess(out["eval_metrics"], want["eval_metrics"]) <= REPLICAS_ATOL
    assert compare.excess(out["predictions"], want["predictions"]) <= REPLICAS_ATOL
