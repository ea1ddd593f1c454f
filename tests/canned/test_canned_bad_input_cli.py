"""Bad input to a canned estimator under `tfport run`: exit 2, one `tfport: error:` line
(the in-process checks: tests/unit/estimator/_canned/test_canned_bad_input.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def test_bad_label_through_cli_exits_2_with_one_line(tmp_path):
    script = tmp_path / "bad_labels.py"
    script.write_text(
        textwrap.dedent(f"""
        import numpy as np
        import tensorflow as tf
        col = tf.feature_column.numeric_column("x", shape=(2,))
        est = tf.compat.v1.estimator.DNNClassifier([2], [col], {str(tmp_path / "m")!r},
                                                    n_classes=3)
        def input_fn():
            x = np.ones((4, 2), "float32")
            y = np.array([0, 1, 9, 2], "int64")
            return tf.data.Dataset.from_tensor_slices(({{"x": x}}, y)).batch(4)
        est.train(input_fn, steps=1)
    """)
    )
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "run", str(script)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr[-2000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("tfport: error: labels must be class ids"), last
    assert "labels=['9']" in last
