"""Issue 41: the upgrade report lists every `tf.contrib.opt` optimizer use as an ERROR that
needs manual work, with its own fix, beside Bigtable and `async_checkpoint`, also where the
code reaches them through an alias of a guarded `tensorflow.contrib` import."""

from __future__ import annotations

import pathlib

from tests.upgrade.upgrade_helpers import src

from tfport.upgrade import Status, report_text, upgrade_paths

# In the style of TPU model gardens' LARS / Bigtable / async checkpoint helpers.
LARS_UTIL = """
import tensorflow.compat.v1 as tf

try:
    from tensorflow.contrib import cloud as contrib_cloud
    from tensorflow.contrib import opt as contrib_opt
    from tensorflow.contrib.tpu.python.tpu import async_checkpoint
except ImportError:
    contrib_opt = contrib_cloud = async_checkpoint = None


def optimizer(name, learning_rate):
    if name == "lars":
        return contrib_opt.LARSOptimizer(learning_rate, momentum=0.9, weight_decay=1e-4)
    if name == "adamw":
        return tf.contrib.opt.AdamWOptimizer(1e-4, learning_rate=learning_rate)
    return tf.train.MomentumOptimizer(learning_rate, 0.9)


def hooks(model_dir):
    table = contrib_cloud.BigtableClient("project", "instance").table("t")
    return table, async_checkpoint.AsyncCheckpointSaverHook(model_dir, save_steps=100)
"""


def test_contrib_opt_optimizers_are_errors_with_their_fixes(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "lars_util.py"
    path.write_text(src(LARS_UTIL))
    (result,) = upgrade_paths([str(path)], out_dir=str(tmp_path / "up"))
    assert result.status is Status.NEEDS_MANUAL
    errors = [line for line in report_text([result]).splitlines() if ": ERROR: " in line]
    inputs = [line for line in errors if line.startswith(str(path))]

    def at(line: int, name: str) -> str:
        (found,) = [e for e in inputs if e.startswith(f"{path}:{line}:") and f"'{name}'" in e]
        return found

    lars = at(13, "tf.contrib.opt.LARSOptimizer")
    assert "LARSOptimizer is gone" in lars and "trust ratio" in lars
    assert "decoupled weight decay" in at(15, "tf.contrib.opt.AdamWOptimizer")
    at(5, "tf.contrib.opt")  # the import itself
    at(20, "tf.contrib.cloud.BigtableClient")
    at(6, "tf.contrib.tpu.python.tpu.async_checkpoint")
    at(21, "tf.contrib.tpu.python.tpu.async_checkpoint.AsyncCheckpointSaverHook")
    header = report_text([result]).splitlines()[2]
    assert header.startswith(f"Found {len(errors)} errors")  # every ERROR line, both sides
    # The output side names the same uses as unresolved.
    assert any("'tf.contrib.opt.LARSOptimizer' does not resolve" in e for e in errors)


def test_the_rules_page_says_what_the_report_says() -> None:
    """docs/upgrade-rules.md (the rule table) listed them as 'a warning only'."""
    from tfport.upgrade._contrib_table import manual_fix
    from tfport.upgrade._rules import load_rules

    rules = load_rules()
    for name in ("contrib_opt.AdamWOptimizer", "tf.contrib.opt.LazyAdamOptimizer"):
        canonical = "tf.contrib.opt." + name.rsplit(".", 1)[1]
        assert rules[name]["why"] == "an ERROR in the report (manual work): " + manual_fix(
            canonical
        )
