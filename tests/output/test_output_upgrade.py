"""`tfport upgrade` output for people: plurals, colour on a terminal only, report counts."""

from __future__ import annotations

from output_helpers import on_terminal, piped

from tfport.upgrade import report_text, upgrade_paths

LEGACY = "import tensorflow as tf\nx = tf.placeholder(tf.float32)\n"


def test_one_file_is_one_file(tmp_path):
    (tmp_path / "a.py").write_text(LEGACY)
    proc = piped("upgrade", tmp_path / "a.py", "--diff")
    assert proc.returncode == 0, proc.stderr
    summary = proc.stderr.strip().splitlines()[-1]
    assert "1 file: 1 changed, 0 run as is under tfport, 0 need manual work, 0 failed" in summary
    assert "0 errors" in summary and "1 files" not in summary
    assert "\x1b[" not in proc.stdout  # no colour into a pipe
    assert "+x = tf.compat.v1.placeholder(tf.float32)" in proc.stdout


def test_report_counts_agree_with_their_nouns(tmp_path):
    (tmp_path / "a.py").write_text(LEGACY)
    (tmp_path / "b.py").write_text("print(1)\n")
    text = report_text(upgrade_paths([str(tmp_path)], write=False))
    assert "Processed 2 files: 1 changed, 1 runs as is under tfport" in text
    (tmp_path / "b.py").unlink()
    text = report_text(upgrade_paths([str(tmp_path)], write=False))
    assert "Processed 1 file: 1 changed" in text and "1 files" not in text


def test_diff_is_coloured_on_a_terminal(tmp_path):
    (tmp_path / "a.py").write_text(LEGACY)
    code, screen = on_terminal("upgrade", tmp_path / "a.py", "--diff")
    assert code == 0, screen
    assert "\x1b[32m+x = tf.compat.v1.placeholder(tf.float32)\x1b[0m" in screen
    assert "\x1b[31m-x = tf.placeholder(tf.float32)\x1b[0m" in screen
