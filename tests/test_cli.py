"""The `tfport` command: fast help without TensorFlow, `run` semantics, exit codes."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

PROBE = textwrap.dedent(
    """
    import sys
    from tfport.cli import main
    try:
        main({args!r})
    except SystemExit:
        pass
    print("TF_IMPORTED" if "tensorflow" in sys.modules else "TF_NOT_IMPORTED")
    """
)


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["run", "--help"],
        ["ckpt", "--help"],
        ["graph", "--help"],
        ["upgrade", "--help"],
        ["demo", "--help"],
    ],
    ids=["top", "run", "ckpt", "graph", "upgrade", "demo"],
)
def test_help_does_not_import_tensorflow(args):
    proc = subprocess.run(
        [sys.executable, "-c", PROBE.format(args=args)], capture_output=True, text=True, timeout=120
    )
    assert proc.stdout.strip().endswith("TF_NOT_IMPORTED"), proc.stdout + proc.stderr
    assert "usage: tfport" in proc.stdout


def _tfport(*args: str, cwd=None):
    return subprocess.run(
        [sys.executable, "-m", "tfport", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
    )


def test_run_missing_script_is_exit_2_one_line(tmp_path):
    proc = _tfport("run", str(tmp_path / "nope.py"))
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "does not exist" in lines[0] and "Received:" in lines[0]


def test_run_passes_argv_and_returns_the_scripts_exit_code(tmp_path):
    script = tmp_path / "legacy.py"
    script.write_text(
        textwrap.dedent(
            """
        import sys
        import tensorflow as tf
        assert __name__ == "__main__"
        assert tf.estimator.ModeKeys.PREDICT == "infer"
        assert tf.compat.v1.estimator.RunConfig is tf.estimator.RunConfig
        print("argv", sys.argv[1:])
        sys.exit(7)
        """
        )
    )
    proc = _tfport("run", str(script), "--flag", "value", "x y")
    assert proc.returncode == 7, proc.stderr[-2000:]
    assert "argv ['--flag', 'value', 'x y']" in proc.stdout


def test_run_shows_user_errors_with_traceback_and_exit_1(tmp_path):
    script = tmp_path / "broken.py"
    script.write_text("raise RuntimeError('boom in user code')\n")
    proc = _tfport("run", str(script))
    assert proc.returncode == 1
    assert "Traceback" in proc.stderr and "boom in user code" in proc.stderr


def test_run_reports_tfport_input_errors_in_one_line_and_traceback_with_debug(tmp_path):
    script = tmp_path / "bad_config.py"
    script.write_text(
        textwrap.dedent(
            """
        import tensorflow as tf
        tf.estimator.RunConfig(save_checkpoints_steps=1, save_checkpoints_secs=1)
        """
        )
    )
    proc = _tfport("run", str(script))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].startswith("tfport: error: RunConfig")
    assert "Traceback" not in proc.stderr
    debug = _tfport("--debug", "run", str(script))
    assert debug.returncode == 2 and "Traceback" in debug.stderr


def test_ckpt_convert_shows_each_computed_value_and_where_it_comes_from(tmp_path, goldens):
    from tfport.checkpoint import CheckpointReader

    model_dir = goldens / "canned_dnn" / "model_dir"
    out = tmp_path / "v2"
    graph = str(model_dir / "graph.pbtxt")
    proc = _tfport(
        "ckpt", "convert", str(model_dir), str(out), "--estimator", "dnn", "--graph", graph
    )
    assert proc.returncode == 0, proc.stderr
    assert "None" not in proc.stdout
    computed = [line.split() for line in proc.stdout.splitlines() if line.startswith("computed")]
    assert {words[1] for words in computed} == {
        "training/Adagrad/decay",
        "training/Adagrad/learning_rate",
    }
    reader = CheckpointReader(str(out / "model.ckpt"))
    for _, name, sign, value, *where in computed:
        assert sign == "=" and where in (["(from", "the", "graph)"], ["(the", "Keras", "default)"])
        assert float(value) == pytest.approx(float(reader.read(name)), rel=1e-6), name
