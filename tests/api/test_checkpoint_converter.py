"""Issue 27: legacy `tools.checkpoint_converter` (v1 canned-estimator checkpoints to v2 names).

The oracle is legacy's own converter: `legacy/goldens/canned_*/converted/` holds what it
wrote for each case's step-40 checkpoint (legacy/generate.py `convert`). A tfport v2 canned
estimator then predicts from the converted checkpoint what the v1 estimator predicted on
TF 2.15 (the golden's expected.json), and trains on from it as TF 2.15 did (golden
`converter_resume`, made by legacy/scripts/converter_resume.py).
"""

from __future__ import annotations

import importlib
import json
import os
import pathlib
import shutil
import sys

import numpy as np
import pytest
from google.protobuf import text_format

from tfport._common.errors import TfportInputError
from tfport.checkpoint import CheckpointReader

MODULE = "tensorflow_estimator.python.estimator.tools.checkpoint_converter"
LEGACY = pathlib.Path(__file__).resolve().parents[2] / "legacy"
sys.path.insert(0, str(LEGACY.parent / "tests" / "legacy"))
import compare  # noqa: E402

# One device, from the same checkpoint: the bound (measured difference: 0.0).
ATOL = 1e-5
KINDS = {"canned_dnn": "dnn", "canned_linear": "linear", "canned_combined": "combined"}


@pytest.fixture(scope="module")
def tf():
    import tfport

    tfport.install()
    import tensorflow

    return tensorflow


@pytest.fixture(scope="module")
def converter(tf):
    return importlib.import_module(MODULE)


def _convert(converter, goldens, case: str, out: pathlib.Path, kind: str | None = None) -> str:
    model_dir = goldens / case / "model_dir"
    target = str(out / "model.ckpt")
    converter.convert_checkpoint(
        kind or KINDS[case],
        str(model_dir / "model.ckpt-40"),
        str(model_dir / "graph.pbtxt"),
        target,
    )
    return target


# golden `converter_optimizers` (legacy/scripts/converter_optimizers.py): v1 estimators
# trained 3 steps with the optimizers the canned goldens lack, and legacy's conversion.
OTHER_OPTIMIZERS = {
    "dnn_adam": "dnn",
    "dnn_sgd": "dnn",
    "linear_rmsprop": "linear",
    "combined_adam_sgd": "combined",
}


@pytest.mark.parametrize("case", sorted(KINDS) + sorted(OTHER_OPTIMIZERS))
def test_output_is_legacys_bit_for_bit(converter, goldens, tmp_path, case):
    if case in KINDS:
        target = _convert(converter, goldens, case, tmp_path / "converted")
        golden = goldens / case / "converted"
    else:
        folder = goldens / "converter_optimizers" / case
        target = str(tmp_path / "converted" / "model.ckpt")
        converter.convert_checkpoint(
            OTHER_OPTIMIZERS[case],
            str(folder / "model_dir" / "model.ckpt-3"),
            str(folder / "model_dir" / "graph.pbtxt"),
            target,
        )
        golden = folder / "converted"
    ours, theirs = CheckpointReader(target), CheckpointReader(str(golden / "model.ckpt"))
    assert ours.names() == theirs.names()
    for name in theirs.names():
        got, want = ours.read(name), theirs.read(name)
        assert (got.dtype, got.shape) == (want.dtype, want.shape), name
        assert got.tobytes() == want.tobytes(), name
    # Same tensors in the same order: the bundle files themselves are legacy's.
    for suffix in (".index", ".data-00000-of-00001"):
        assert (tmp_path / "converted" / f"model.ckpt{suffix}").read_bytes() == (
            golden / f"model.ckpt{suffix}"
        ).read_bytes(), suffix
    state = (tmp_path / "converted" / "checkpoint").read_text()
    assert state == (golden / "checkpoint").read_text()
    assert sorted(os.listdir(tmp_path / "converted")) == sorted(os.listdir(golden))


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(KINDS))
def test_v2_estimator_predicts_and_resumes_as_legacy(tf, converter, goldens, tmp_path, case):
    """Predicts what v1 predicted at step 40, then trains 5 steps as TF 2.15 did
    (golden `converter_resume`: legacy's converter, then the same v2 estimator, 5 steps)."""
    model_dir = tmp_path / "converted"
    _convert(converter, goldens, case, model_dir)
    resumer = compare.load_script(LEGACY, "converter_resume")  # its v2 estimators
    estimator, color = resumer._v2_estimator(case, str(model_dir))
    cases = resumer.cases
    rows = estimator.predict(cases.eval_input_fn(True, color, labels=False))
    got = np.array([row["probabilities"] for row in rows])
    want = json.loads((goldens / case / "expected.json").read_text())["predictions"]
    np.testing.assert_allclose(got, np.array(want), atol=ATOL)
    golden = goldens / "converter_resume" / case
    expected = json.loads((golden / "expected.json").read_text())
    estimator.train(cases.train_input_fn(True, color), steps=expected["steps"])
    compare.assert_checkpoints_match(
        str(model_dir / "model.ckpt-45"), str(golden / "model_dir" / "model.ckpt-45"), ATOL
    )
    metrics = estimator.evaluate(cases.eval_input_fn(True, color))
    assert set(metrics) == set(expected["eval_metrics"])
    for key, value in expected["eval_metrics"].items():
        assert abs(float(metrics[key]) - value) <= ATOL * max(1.0, abs(value)), key
    rows = estimator.predict(cases.eval_input_fn(True, color, labels=False))
    got = np.array([row["probabilities"] for row in rows])
    np.testing.assert_allclose(got, np.array(expected["predictions"]), atol=ATOL)


def test_adam_powers_become_betas_and_sgd_gets_its_defaults(tf, converter, tmp_path):
    src = tmp_path / "v1" / "model.ckpt-5"
    values = {
        "dnn/hiddenlayer_0/kernel": np.arange(6, dtype=np.float32).reshape(2, 3),
        "dnn/hiddenlayer_0/kernel/t_0/Adam": np.full((2, 3), 0.25, np.float32),
        "dnn/hiddenlayer_0/kernel/t_0/Adam_1": np.full((2, 3), 0.5, np.float32),
        "dnn/beta1_power": np.float32(0.9) ** 5,
        "dnn/beta2_power": np.float32(0.999) ** 5,
        "global_step": np.int64(5),
    }
    from tfport.checkpoint import CheckpointWriter

    with CheckpointWriter(str(src)) as writer:
        for name, value in values.items():
            writer.add(name, np.asarray(value))
    graph = tmp_path / "v1" / "graph.pbtxt"
    graph.write_text('node { name: "dnn/hiddenlayer_0/kernel" op: "VarHandleOp" }\n')
    converter.convert_checkpoint("dnn", str(src), str(graph), str(tmp_path / "v2" / "model.ckpt"))
    out = CheckpointReader(str(tmp_path / "v2"))
    assert sorted(out.names()) == [
        "dnn/hiddenlayer_0/kernel",
        "global_step",
        "training/Adam/beta_1",
        "training/Adam/beta_2",
        "training/Adam/decay",
        "training/Adam/dnn/hiddenlayer_0/kernel/m",
        "training/Adam/dnn/hiddenlayer_0/kernel/v",
        "training/Adam/learning_rate",
    ]
    np.testing.assert_allclose(out.read("training/Adam/beta_1"), 0.9, rtol=1e-6)
    np.testing.assert_allclose(out.read("training/Adam/beta_2"), 0.999, rtol=1e-6)
    assert out.read("training/Adam/dnn/hiddenlayer_0/kernel/v").tolist() == [[0.5] * 3] * 2
    assert out.read("training/Adam/learning_rate") == np.float32(0.001)  # Keras default
    # Legacy's private helper, as published code could call it: Keras defaults as float32.
    var_map, names_map = {}, {}
    converter._convert_hyper_params_in_graph(str(graph), "RMSProp", var_map, names_map)
    assert {k: float(v) for k, v in var_map.items()} == {
        "training/RMSprop/decay": 0.0,
        "training/RMSprop/learning_rate": float(np.float32(0.001)),
        "training/RMSprop/momentum": 0.0,
        "training/RMSprop/rho": float(np.float32(0.9)),
    }
    assert {v.dtype for v in var_map.values()} == {np.dtype(np.float32)}


def _bad_call(converter, goldens, tmp_path, **change):
    model_dir = goldens / "canned_dnn" / "model_dir"
    args = {
        "estimator_type": "dnn",
        "source_checkpoint": str(model_dir / "model.ckpt-40"),
        "source_graph": str(model_dir / "graph.pbtxt"),
        "target_checkpoint": str(tmp_path / "out" / "model.ckpt"),
    }
    args.update(change)
    converter.convert_checkpoint(**args)


def test_bad_input_is_one_line_of_legacys_error_type(tf, converter, goldens, tmp_path):
    other_graph = goldens / "canned_linear" / "model_dir" / "graph.pbtxt"
    cases = [
        ({"estimator_type": "dnnn"}, TfportInputError, "Unknown estimator_type"),
        ({"estimator_type": "linear"}, TfportInputError, "not written by a v1 canned linear"),
        ({"source_checkpoint": str(tmp_path / "nope")}, tf.errors.NotFoundError, "nope"),
        ({"source_graph": str(tmp_path / "g.pbtxt")}, tf.errors.NotFoundError, "g.pbtxt"),
        ({"source_graph": str(other_graph)}, TfportInputError, "another model"),
    ]
    (tmp_path / "junk.pbtxt").write_text("this is { not a graph")
    cases.append(({"source_graph": str(tmp_path / "junk.pbtxt")}, text_format.ParseError, "junk"))
    for change, kind, words in cases:
        with pytest.raises(kind) as info:
            _bad_call(converter, goldens, tmp_path, **change)
        assert isinstance(info.value, TfportInputError), change
        text = str(info.value)
        assert words in text and "\n" not in text and "Received:" in text, text
    assert not (tmp_path / "out").exists()


def test_never_writes_over_the_input(tf, converter, goldens, tmp_path):
    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "canned_dnn" / "model_dir", model_dir)
    before = {p.name: p.read_bytes() for p in model_dir.iterdir() if p.is_file()}
    for target in (model_dir / "model.ckpt-40", model_dir / "converted.ckpt", model_dir):
        with pytest.raises(TfportInputError, match="target_checkpoint"):
            converter.convert_checkpoint(
                "dnn", str(model_dir / "model.ckpt-40"), str(model_dir / "graph.pbtxt"), str(target)
            )
    assert {p.name: p.read_bytes() for p in model_dir.iterdir() if p.is_file()} == before


def test_main_is_legacys_command_line(tf, converter, goldens, tmp_path, monkeypatch):
    model_dir = goldens / "canned_linear" / "model_dir"
    argv = ["checkpoint_converter.py", "linear", str(model_dir / "model.ckpt-40")]
    argv += [str(model_dir / "graph.pbtxt"), str(tmp_path / "v2" / "model.ckpt")]
    monkeypatch.setattr(sys, "argv", argv)
    converter.main(None)
    golden = goldens / "canned_linear" / "converted" / "model.ckpt.data-00000-of-00001"
    assert (tmp_path / "v2" / "model.ckpt.data-00000-of-00001").read_bytes() == golden.read_bytes()
    monkeypatch.setattr(sys, "argv", [*argv[:1], "wide", *argv[2:]])
    with pytest.raises(SystemExit) as info:
        converter.main(None)
    assert info.value.code == 2
