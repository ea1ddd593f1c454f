"""`tfport keras export` of a model_fn with recurrent cells (`dynamic_rnn` of TF1 cells,
tf_keras LSTM/GRU layers): built-in Keras RNN layers with the checkpoint's weights
converted, predicting as the Estimator on TensorFlow and on JAX without TensorFlow."""

from __future__ import annotations

import inspect
import pathlib
import subprocess
import sys

import numpy as np
import pytest

from tfport.keras import export_model_fn

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import recurrent_factories as f  # noqa: E402
import run_exported  # noqa: E402

KEYS = ("logits", "steps", "c", "h", "gru_steps", "simple", "static_step", "static_state")
KEYS += ("keras_lstm",)


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> tuple[pathlib.Path, dict, dict]:
    """(export folder, the Estimator's predictions by key for OUT/../inputs.npz, report):
    trained 8 steps from scratch, predicted and exported once per module."""
    root = tmp_path_factory.mktemp("recurrent")
    model_dir = root / "model_dir"
    model_dir.mkdir()
    estimator, rows, outputs = f.train_and_predict(str(model_dir))
    report = export_model_fn(
        estimator, str(root / "out"), factory="recurrent_factories.py:recurrent"
    )
    np.savez(root / "inputs.npz", **rows)
    want = {k: np.array([o[k] for o in outputs]) for k in KEYS}
    return root / "out", want, report


def _assert_close(got: np.ndarray, want: np.ndarray, name: str) -> None:
    assert np.ptp(want, axis=0).min() > 1e-3  # rows differ: no dead layer
    diff = float(np.abs(np.asarray(got, np.float64) - want).max())
    print(f"{name}: max difference from the Estimator {diff:.3g}")
    assert diff <= 1e-5, (name, diff)


def _line(code: str) -> str:
    lines, first = inspect.getsourcelines(f.recurrent_model_fn)
    return f"recurrent_factories.py:{first + next(i for i, t in enumerate(lines) if code in t)}"


def test_cells_are_keras_rnn_layers_named_after_their_scope(export):
    out, _, report = export
    loops = {o["op"]: o for o in report["ops"] if o["type"] in ("While", "StatelessWhile")}
    assert loops["basic_lstm/rnn/while"]["to"] == "layers.LSTM 'basic_lstm_rnn_basic_lstm_cell'"
    assert loops["lstm/rnn/while"]["to"] == "layers.LSTM 'lstm_rnn_lstm_cell'"
    assert loops["gru/rnn/while"]["to"] == "layers.GRU 'gru_rnn_gru_cell'"
    assert loops["simple/rnn/while"]["to"] == "layers.SimpleRNN 'simple_rnn_basic_rnn_cell'"
    assert loops["keras_lstm/while"]["to"] == "layers.LSTM 'keras_lstm'"
    assert "keras_lstm_output, keras_lstm_h, _ = layers.LSTM(" in (out / "model.py").read_text()
    assert loops["gru/rnn/while"]["line"] == _line("CELLS.GRUCell(5)")
    assert report["variables"]["gru/rnn/gru_cell/candidate/kernel"] == {
        "layer": "gru_rnn_gru_cell",
        "weight": "kernel, recurrent_kernel",
        "shape": [8, 5],
    }
    source = (out / "model.py").read_text()
    # what the model_fn read: every step, the final (c, h), the last output only
    assert "return_sequences=True" in source.split('name="basic_lstm_rnn_basic_lstm_cell"')[0]
    assert "_, lstm_rnn_lstm_cell_h, lstm_rnn_lstm_cell_c = layers.LSTM(" in source
    assert "(x, mask=lstm_rnn_lstm_cell_mask)" in source
    assert "ops.less(ops.arange(5), ops.expand_dims(length, -1))" in source
    assert "zero_output_for_mask=True" in source and "reset_after=False" in source
    assert 'activation="relu"' in source and "= layers.SimpleRNN(" in source
    # an initial state is the layer's; cell.zero_state's zeros are Keras's own
    assert "(x, mask=gru_rnn_gru_cell_mask, initial_state=[gru_start_out])" in source
    assert source.count("initial_state=[") == 1
    # static_rnn: its steps stacked, one step read, its state_is_tuple=False (c, h) joined
    to = {o["op"]: o["to"] for o in report["ops"]}
    assert to["static/rnn/cond_4"] == "layers.LSTM 'static_rnn_basic_lstm_cell'"  # step 5
    assert "static_rnn_basic_lstm_cell_inputs = ops.stack(" in source
    assert "= static_rnn_basic_lstm_cell_sequence[:, 3]" in source
    assert "import tensorflow" not in source


def test_model_py_is_ruff_clean(export):
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    path = str(export[0] / "model.py")
    for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        proc = subprocess.run([str(ruff), *cmd, path], capture_output=True, text=True)
        assert proc.returncode == 0, (cmd, proc.stdout)


def test_loaded_model_predicts_as_its_estimator_on_tensorflow(export):
    import keras
    from tfport.keras._modelfn._write import import_model_py

    out, want, _ = export
    import_model_py(str(out))  # its layers register (none here: built-in layers only)
    model = keras.saving.load_model(str(out / "model.keras"))
    rows = dict(np.load(out.parent / "inputs.npz"))
    got = model.predict(rows, verbose=0, batch_size=len(rows["x"]))
    for key in KEYS:
        _assert_close(got[key], want[key], f"tensorflow {key}")


@pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)
def test_predicts_as_its_estimator_on_jax_without_tensorflow(export, tmp_path):
    out, want, _ = export
    result = run_exported.run(tmp_path / "result.npz", "jax", [(out, out.parent / "inputs.npz")])
    assert str(result["backend"]) == "jax" and list(result["modules"]) == []
    for key in KEYS:
        _assert_close(result[f"0/loaded/{key}"], want[key], f"jax {key}")


def test_peepholes_are_refused_naming_the_line(export, tmp_path):
    from tfport.verify import load_estimator

    model_dir = export[0].parent / "model_dir"  # the same features; refused before weights
    estimator = load_estimator(f"{HERE / 'recurrent_factories.py'}:peephole", str(model_dir))
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    lines, first = inspect.getsourcelines(f.peephole_model_fn)
    line = first + next(i for i, t in enumerate(lines) if "dynamic_rnn(" in t)
    text = str(err.value)
    assert "\n" not in text and "peepholes (use_peepholes=True)" in text, text
    assert f"recurrent_factories.py:{line}" in text and "'rnn/while'" in text, text
    assert not (tmp_path / "out").exists()
