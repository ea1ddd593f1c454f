"""The status tells the truth: names TF 2.21 cannot resolve mean `needs manual work`, exit 1;
`--check-imports` imports each upgraded module and reports its first error."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

from upgrade_helpers import src

from tfport.upgrade import (
    Status,
    report_text,
    summary,
    unresolved_names,
    upgrade_file,
    upgrade_paths,
    upgrade_source,
)

LEFT = src(
    """
    import tensorflow as tf

    flags = tf.flags
    opt = tf.contrib.opt.LazyAdamOptimizer(0.1)
    """
)


def test_a_file_left_with_tf_contrib_needs_manual_work(tmp_path) -> None:
    (tmp_path / "a.py").write_text(LEFT)
    result = upgrade_file(str(tmp_path / "a.py"), str(tmp_path / "up.py"), tf_upgrade=False)
    assert result.status is Status.NEEDS_MANUAL
    out = (tmp_path / "up.py").read_text()
    line = out.splitlines().index("opt = tf.contrib.opt.LazyAdamOptimizer(0.1)") + 1
    assert [(u.line, u.col) for u in result.unresolved] == [(line, 6)]
    assert "flags = tf.compat.v1.flags" in out  # tf.flags itself was rewritten
    text = "\n".join(result.lines())
    assert f"{tmp_path / 'up.py'}:{line}:6: ERROR: 'tf.contrib.opt.LazyAdamOptimizer' " in text


def test_removed_names_resolve_against_the_installed_tensorflow() -> None:
    code = src(
        """
        import tensorflow as tf
        from tensorflow.contrib import slim
        a = tf.compat.v1.train.AdamOptimizer
        b = tf.compat.v1.no_such_function
        c = tf.flags.FLAGS
        d = tf.compat.v1.flags.FLAGS.whatever
        """
    )
    found = {(i.line, i.message.split("'")[1]) for i in unresolved_names(code)}
    assert found == {
        (2, "tf.contrib.slim"),
        (4, "tf.compat.v1.no_such_function"),
        (5, "tf.flags.FLAGS"),
    }


def test_unchanged_but_unresolvable_is_not_reported_as_fine() -> None:
    result = upgrade_source(
        "import tensorflow as tf\nx = tf.contrib.memory_stats\n", tf_upgrade=False
    )
    assert result.unresolved and "get_memory_info" in result.unresolved[0].message


def test_check_imports_reports_the_first_error_of_each_module(tmp_path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "good.py").write_text("import tensorflow as tf\nX = tf.flags.FLAGS\n")
    (tmp_path / "src" / "bad.py").write_text(
        "import tensorflow as tf\n\n\nraise RuntimeError('boom at import')\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "upgrade", "src", "--out", "up", "--check-imports",
         "--json"],
        cwd=tmp_path, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    files = {pathlib.Path(f["path"]).name: f for f in json.loads(proc.stdout)["files"]}
    assert files["good.py"]["status"] == "changed" and files["good.py"]["import_error"] == ""
    bad = files["bad.py"]
    assert bad["status"] == "needs manual work"
    assert bad["import_error"].startswith("RuntimeError: boom at import (")
    assert bad["import_error"].endswith("bad.py:4)")


def test_a_file_that_cannot_run_never_reads_zero_errors(tmp_path) -> None:
    (tmp_path / "a.py").write_text("import tensorflow as tf\nx = tf.no_such_function()\n")
    (result,) = upgrade_paths([str(tmp_path / "a.py")], write=False)
    assert result.status is Status.NEEDS_MANUAL and not result.items  # nothing on input
    counts = summary([result])
    assert counts["errors"] == counts["unresolved"] == 1
    text = report_text([result])
    assert "Found 1 error, 0 warnings" in text
    assert sum(": ERROR: " in line for line in text.splitlines()) == 1
