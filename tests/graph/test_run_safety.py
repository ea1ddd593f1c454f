"""Issue 32: nothing untrusted executes. `tfport verify` and `graph convert --verify` scan
the whole artifact first (the scan of `graph inspect`), refuse in one line (exit 2) unless
`--trust`, never run the artifact's own saver ops, and run under a time and memory limit.

Every artifact is built here, in tmp folders; every test checks that no file was written
or deleted outside the output.
"""

from __future__ import annotations

import pathlib
import shutil

import numpy as np
import pytest
from hostile import (
    endless_loop_graph,
    graph_with,
    snapshot,
    tf1_saved_model_evil_saver,
    tf1_saved_model_main_op,
    tf2_saved_model,
)

from tfport.cli._main import main


def _cli(capsys, *argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _one_line(err: str, needle: str) -> str:
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.startswith("tfport: error:")]
    assert len(lines) == 1, err
    assert needle in lines[0], lines[0]
    received = lines[0].rpartition("Received: ")[2]
    assert "Received: " in lines[0] and received.strip(), lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def safe_sm(tmp_path_factory) -> pathlib.Path:
    return tf2_saved_model(tmp_path_factory.mktemp("safe") / "sm", "none", pathlib.Path("/x"))


@pytest.mark.slow
@pytest.mark.parametrize("action", ["write", "read", "pyfunc"])
def test_verify_refuses_a_tf2_saved_model_that_touches_files_or_python(
    tmp_path, capsys, safe_sm, action
):
    target = tmp_path / "secret.txt"
    if action == "read":
        target.write_text("secret")
    sm = tf2_saved_model(tmp_path / "evil", action, target)
    before = snapshot(tmp_path)
    code, out, err = _cli(capsys, "verify", sm, safe_sm)
    op = {"write": "WriteFile", "read": "ReadFile", "pyfunc": "EagerPyFunc"}[action]
    assert code == 2 and not out
    line = _one_line(err, op)
    assert "function:" in line and "--trust" in line  # names where the op is and the way out
    assert snapshot(tmp_path) == before
    # inspect refuses it the same way (one policy)
    code, _, err = _cli(capsys, "graph", "inspect", sm)
    assert code == 2 and op in _one_line(err, op)
    if action == "write":  # the artifact is real: trusted, it writes
        assert _cli(capsys, "verify", sm, safe_sm, "--trust")[0] == 0
        assert target.read_text() == "pwned"


@pytest.mark.slow
def test_verify_refuses_a_tf1_main_op_that_writes(tmp_path, capsys, safe_sm):
    marker = tmp_path / "main_op_ran.txt"
    sm = tf1_saved_model_main_op(tmp_path / "v1", marker)
    before = snapshot(tmp_path)
    code, _, err = _cli(capsys, "verify", sm, sm)
    assert code == 2
    assert "WriteFile" in _one_line(err, "graph/")
    assert not marker.exists() and snapshot(tmp_path) == before


@pytest.mark.slow
def test_saver_ops_that_write_and_delete_elsewhere_never_run(tmp_path, capsys):
    written = tmp_path / "elsewhere" / "written"
    victim = tmp_path / "victim" / "ckpt"
    sm = tf1_saved_model_evil_saver(tmp_path / "v1", written, victim)
    before = snapshot(tmp_path)
    out = tmp_path / "out"
    code, stdout, err = _cli(capsys, "graph", "convert", sm, out, "--verify")
    assert code == 0, err
    assert "verify serving_default" in stdout
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith("out")} == before
    # verify runs a TF1 SavedModel rebuilt from its bundle: same numbers, nothing touched
    x = np.array([[1.0, 2.0], [-1.0, 0.5]], "float32")
    np.savez(tmp_path / "rows.npz", x=x)
    code, stdout, err = _cli(capsys, "verify", sm, out, "--inputs", tmp_path / "rows.npz")
    assert code == 0, err
    assert "equal" in stdout
    after = snapshot(tmp_path)
    assert {k: v for k, v in after.items() if not k.startswith(("out", "rows"))} == before
    assert (victim.parent / "ckpt.index").exists() and not written.parent.exists()
    # The artifact is real: trusted, TensorFlow's loader runs its restore op, which writes
    # elsewhere and deletes the victim's folder.
    code, _, err = _cli(capsys, "graph", "convert", sm, tmp_path / "out2", "--verify", "--trust")
    assert not victim.parent.exists() and written.parent.exists(), err


@pytest.mark.slow
@pytest.mark.parametrize(
    "v2,command", [(False, "verify"), (True, "convert")], ids=["v1_loop_verify", "v2_convert"]
)
def test_endless_loops_are_stopped_in_one_line(tmp_path, capsys, v2, command):
    pb = endless_loop_graph(tmp_path / "loop.pb", v2)
    before = snapshot(tmp_path)
    if command == "verify":
        code, _, err = _cli(capsys, "verify", pb, pb, "--timeout", "8")
    else:
        out = tmp_path / "out"
        code, _, err = _cli(capsys, "graph", "convert", pb, out, "--verify", "--timeout", "8")
    assert code == 2
    assert "--timeout" in _one_line(err, "did not finish within 8 s")
    assert snapshot(tmp_path) == before  # no output, no temporary folder left


@pytest.mark.parametrize(
    "edit,needle",
    [("broadcast", "--max-const-bytes"), ("short", "tensor_content"), ("unknown_rank", "rank")],
)
def test_odd_constants_and_placeholders_are_one_line(tmp_path, capsys, edit, needle):
    pb = graph_with(tmp_path / "g.pb", edit)
    before = snapshot(tmp_path)
    code, _, err = _cli(capsys, "verify", pb, pb)
    assert code == 2
    _one_line(err, needle)
    assert snapshot(tmp_path) == before


def test_broadcast_constant_passes_a_raised_limit_scan_only(tmp_path):
    from tfport.graph import Limits, check_runnable

    pb = graph_with(tmp_path / "g.pb", "broadcast")
    check_runnable(str(pb), limits=Limits(max_const_bytes=2**32))  # no refusal, nothing built


def _mutants(sm: pathlib.Path, tmp_path: pathlib.Path) -> list[pathlib.Path]:
    """A truncated saved_model.pb, truncated variables (the fuzz run tries many more)."""
    rng = np.random.default_rng(32)
    found = []
    data_file = next((sm / "variables").glob("variables.data-*")).name
    for i, (name, how) in enumerate(
        [("saved_model.pb", "trunc"), (f"variables/{data_file}", "trunc")]
    ):  # fmt: skip
        dest = tmp_path / f"mutant{i}"
        shutil.copytree(sm, dest)
        victim = dest / name
        data = bytearray(victim.read_bytes())
        if how == "trunc":
            data = data[: len(data) // 2]
        else:
            for pos in rng.integers(0, len(data), 4):
                data[pos] ^= 0xFF
        victim.write_bytes(bytes(data))
        found.append(dest)
    return found


@pytest.mark.slow
def test_damaged_saved_models_are_one_line(tmp_path, capsys, safe_sm):
    x = np.ones((3, 2), "float32")
    np.savez(tmp_path / "rows.npz", x=x)
    mutants = _mutants(safe_sm, tmp_path)
    before = snapshot(tmp_path)
    for sm in mutants:
        code, _, err = _cli(capsys, "verify", sm, safe_sm, "--inputs", tmp_path / "rows.npz")
        assert code in (0, 1, 2), err
        if code != 0:
            _one_line(err, "")
    assert snapshot(tmp_path) == before


@pytest.mark.slow
def test_keras_safe_mode_refusal_is_one_line(tmp_path, capsys):
    from tfport._common.tfenv import import_tf

    import_tf()
    import keras

    inputs = keras.Input((2,), name="x")
    model = keras.Model(inputs, keras.layers.Lambda(lambda t: t * 2.0)(inputs))
    path = tmp_path / "lambda.keras"
    model.save(path)
    before = snapshot(tmp_path)
    code, _, err = _cli(capsys, "verify", path, path)
    assert code == 2
    _one_line(err, "safe mode")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("argv", [["verify"], ["graph", "convert"]])
def test_trust_and_limits_are_documented(capsys, argv):
    with pytest.raises(SystemExit):
        main([*argv, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for flag in ("--trust", "--timeout", "--max-const-bytes"):
        assert flag in text
    assert "saver" in text  # what --trust lets run
