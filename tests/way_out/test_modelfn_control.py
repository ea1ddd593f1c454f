"""`tfport keras export` of a model_fn with `tf.cond` and `tf.while_loop` in its forward pass:
custom layers running `ops.cond` / `ops.while_loop`, predicting as the Estimator on
TensorFlow and on JAX in a process without tfport."""

from __future__ import annotations

import inspect
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

from tfport.keras import export_model_fn

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import control_factories as f  # noqa: E402
import run_exported  # noqa: E402


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> tuple[pathlib.Path, np.ndarray, dict]:
    """(export folder, the Estimator's logits for OUT/../inputs.npz, report): trained 6
    steps, predicted and exported once per module."""
    root = tmp_path_factory.mktemp("control")
    model_dir = root / "model_dir"
    model_dir.mkdir()
    estimator, rows, outputs = f.train_and_predict(str(model_dir))
    report = export_model_fn(estimator, str(root / "out"), factory="control_factories.py:control")
    np.savez(root / "inputs.npz", **rows)
    return root / "out", np.array([o["logits"] for o in outputs]), report


def _run(out: pathlib.Path, backend: str, tmp_path: pathlib.Path) -> dict:
    return run_exported.run(tmp_path / "result.npz", backend, [(out, out.parent / "inputs.npz")])


def _assert_close(got: np.ndarray, want: np.ndarray, name: str) -> None:
    assert np.ptp(want, axis=0).min() > 1e-3  # rows differ: no dead net
    diff = float(np.abs(np.asarray(got, np.float64) - want).max())
    print(f"{name}: max difference from the Estimator {diff:.3g}")
    assert diff <= 1e-5, (name, diff)


def test_cond_and_while_loop_are_layers_calling_ops_cond_and_while_loop(export):
    out, _, report = export
    to = {o["op"]: o["to"] for o in report["ops"]}
    assert to["cond"] == "CondLayer 'cond' (ops.cond)"  # If: its branches read variables
    assert to["cond_1"] == "Cond1Layer 'cond_1' (ops.cond)"  # StatelessIf
    assert to["while"] == "WhileLoopLayer 'while_loop' (ops.while_loop)"
    assert to["while_1"] == "While1LoopLayer 'while_1_loop' (ops.while_loop)"
    types = {o["op"]: o["type"] for o in report["ops"]}
    assert {types["cond"], types["cond_1"]} == {"If", "StatelessIf"}
    assert types["while"] in ("While", "StatelessWhile")
    # the branches' and bodies' ops, with their model_fn lines
    lines, first = inspect.getsourcelines(f.control_model_fn)
    step = first + next(i for i, t in enumerate(lines) if "tf.matmul(h, step)" in t)
    assert to["cond/true_fn/Relu"] == "ops.relu" and to["cond/false_fn/Tanh"] == "ops.tanh"
    body = {o["op"]: o for o in report["ops"] if o["op"].startswith("while/body/")}
    assert body["while/body/MatMul"]["line"] == f"control_factories.py:{step}"
    assert report["variables"]["step/kernel"] == {
        "layer": "while_loop",
        "weight": "step_kernel",
        "shape": [8, 8],
    }
    assert report["variables"]["branch_b/kernel"]["layer"] == "cond"
    source = (out / "model.py").read_text()
    assert "return ops.cond(greater, true_fn, false_fn)" in source
    assert f"# control_factories.py:{step}: h = tf.tanh(tf.matmul(h, step) + h)" in source
    # the loop counter TF adds is dropped; maximum_iterations is read where it comes from
    assert "def body(i, cond_1_out, zeros_like):" in source
    assert "less_1 = ops.less(i, 4)" in source


def test_model_py_is_ruff_clean(export):
    ruff = pathlib.Path(sys.executable).parent / "ruff"
    path = str(export[0] / "model.py")
    for cmd in (["check", "--isolated"], ["format", "--isolated", "--check"]):
        proc = subprocess.run([str(ruff), *cmd, path], capture_output=True, text=True)
        assert proc.returncode == 0, (cmd, proc.stdout)


_JAX = pytest.mark.skipif(
    sys.version_info < (3, 11), reason="JAX 0.10 (the jax extra) needs Python >= 3.11"
)


@pytest.mark.parametrize("backend", ["tensorflow", pytest.param("jax", marks=_JAX)])
def test_predicts_as_its_estimator_without_tfport(export, backend, tmp_path):
    out, want, _ = export
    result = _run(out, backend, tmp_path)  # fails, never skips, without jax
    assert str(result["backend"]) == backend
    assert "tfport" not in list(result["modules"])
    if backend == "jax":
        assert list(result["modules"]) == []
    for kind in ("loaded", "built"):
        _assert_close(result[f"0/{kind}/logits"], want, f"{backend} ({kind})")


def test_control_flow_nested_in_a_loop_body_is_refused_naming_the_line(goldens, tmp_path):
    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "custom_v1_adam" / "model_dir", model_dir)
    from tfport.verify import load_estimator

    estimator = load_estimator(
        f"{HERE / 'control_factories.py'}:refused_nested_control", str(model_dir)
    )
    with pytest.raises(ValueError) as err:
        export_model_fn(estimator, str(tmp_path / "out"))
    lines, first = inspect.getsourcelines(f.nested_control_model_fn)
    line = first + next(i for i, t in enumerate(lines) if "tf.cond(" in t)
    text = str(err.value)
    assert "\n" not in text and "nested in a tf.cond branch or a tf.while_loop body" in text
    assert f"control_factories.py:{line}" in text and "If)" in text, text
    assert not (tmp_path / "out").exists()


def test_a_one_variable_loop_and_a_two_output_cond_take_either_branch(goldens, tmp_path):
    model_dir = tmp_path / "model_dir"
    shutil.copytree(goldens / "custom_v1_adam" / "model_dir", model_dir)
    from tfport.verify import load_estimator

    estimator = load_estimator(f"{HERE / 'control_factories.py'}:doubling", str(model_dir))
    export_model_fn(estimator, str(tmp_path / "out"))
    source = (tmp_path / "out" / "model.py").read_text()
    assert "return (add,)" in source and "return sub, mul" in source
    import keras

    model = keras.saving.load_model(str(tmp_path / "out" / "model.keras"))
    for x in (np.full((3, 4), 0.5, "float32"), np.full((3, 4), -0.5, "float32")):
        s = x.copy()
        while s.max() < 100:
            s = s * 2 + 1
        want = (s, s + 1) if x.sum() > 0 else (s - 1, s * 3)
        got = model.predict(x, verbose=0)
        np.testing.assert_allclose(got["a"], want[0], atol=1e-5)
        np.testing.assert_allclose(got["b"], want[1], atol=1e-5)
