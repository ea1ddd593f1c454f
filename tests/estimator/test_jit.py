"""Opt-in XLA: `RunConfig(experimental_jit=True)` / `tfport run --jit` compile the training
sessions; off by default (it changes float results), measured against the legacy golden."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "legacy"))
import compare  # noqa: E402

CHECK = textwrap.dedent(
    """
    import sys
    import numpy as np
    import tfport
    tfport.install()
    import tensorflow as tf
    v1 = tf.compat.v1
    config = tf.estimator.RunConfig(**({"experimental_jit": True} if sys.argv[1] == "on" else {}))
    graph = tf.Graph()
    with graph.as_default():
        x = v1.placeholder(tf.float32, [None, 8])
        w = v1.get_variable("w", [8, 8])
        y = tf.reduce_sum(tf.tanh(tf.nn.relu(tf.matmul(x, w)) * 2.0 + 1.0))
        with v1.Session(config=config.session_config) as session:
            session.run(v1.global_variables_initializer())
            meta = v1.RunMetadata()
            session.run(y, {x: np.ones((4, 8), "float32")},
                        options=v1.RunOptions(output_partition_graphs=True), run_metadata=meta)
    ops = sorted({n.op for g in meta.partition_graphs for n in g.node if "Xla" in n.op})
    print(config.experimental_jit, ops)
    """
)


def _compiled_ops(mode: str, env: dict | None = None) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", CHECK, mode], capture_output=True, text=True, timeout=300, env=env
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout.strip().splitlines()[-1]


def test_experimental_jit_compiles_session_graphs_and_is_off_by_default():
    assert _compiled_ops("on").startswith("True ['_XlaCompile'")
    assert _compiled_ops("off") == "False []"


def test_tfport_run_jit_sets_the_default_of_every_run_config(tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import tensorflow as tf\nprint('jit', tf.estimator.RunConfig().experimental_jit)\n"
    )
    for flag, want in (("--jit", "jit True"), ("--quiet", "jit False")):
        cmd = [sys.executable, "-m", "tfport", "run", flag, str(script)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert want in proc.stdout


@pytest.mark.slow
def test_jit_training_stays_close_to_the_legacy_golden(goldens, legacy_dir, tmp_path):
    case = "custom_v1_adam"
    model_dir = compare.step0_copy(goldens / case, tmp_path / "case")
    out = compare.run_case(legacy_dir, case, model_dir, tmp_path / "out.json", "--jit")
    want = json.loads((goldens / case / "expected.json").read_text())
    diff = compare.excess(want["eval_metrics"], out["eval_metrics"])
    print("jit vs legacy: metrics", diff)
    assert diff < 1e-3  # compiled kernels round differently; README gives the measured figure
    golden = str(goldens / case / "model_dir" / "model.ckpt-40")
    compare.assert_checkpoints_match(str(model_dir / "model.ckpt-40"), golden, atol=1e-3)
