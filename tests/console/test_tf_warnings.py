"""Issue 40: TensorFlow's own UserWarnings are filtered under `tfport run` by category and
module only; the user's warnings, TensorFlow's notices at the user's lines (as on TF 2.15)
and log lines stay; `--debug` shows everything again."""

from __future__ import annotations

import pathlib
import subprocess
import sys
import warnings

import pytest

from tfport._common.tfenv import filter_autograph_warnings, filter_tf_warnings

SCRIPT = pathlib.Path(__file__).parent / "scripts" / "tf_warnings.py"
TF_NOTICES = (
    "notice from tensorflow.python.autograph.impl.api",
    "notice from tf_keras.src.legacy_tf_layers.core",
)


def _warn(module: str, install_filter=filter_tf_warnings) -> list[str]:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        install_filter()
        warnings.warn_explicit("x", UserWarning, "f.py", 1, module=module)
        warnings.warn_explicit("y", DeprecationWarning, "f.py", 1, module=module)
    return [f"{w.category.__name__}" for w in seen]


def test_only_user_warnings_attributed_to_tensorflow_are_filtered() -> None:
    for module in ("tensorflow", "tensorflow.python.ops.x", "tf_keras.src.a", "keras.layers"):
        assert _warn(module) == ["DeprecationWarning"], module
    for module in ("__main__", "tensorflow_addons.x", "mylib.tensorflow", "kerasx"):
        assert _warn(module) == ["UserWarning", "DeprecationWarning"], module


def test_install_filters_only_the_notices_pointing_into_autograph() -> None:
    import tfport
    from tfport import _install as tfport_install

    autograph = "tensorflow.python.autograph.impl.api"
    assert _warn(autograph, filter_autograph_warnings) == ["DeprecationWarning"]
    for module in ("__main__", "tf_keras.src.legacy_tf_layers.core", "tensorflow.python.ops"):
        got = _warn(module, filter_autograph_warnings)
        assert got == ["UserWarning", "DeprecationWarning"], module
    was_installed = bool(tfport_install._current)
    with warnings.catch_warnings():
        tfport.install()
        filters = list(warnings.filters)
    if not was_installed:
        tfport.uninstall()
    assert any(
        action == "ignore" and category is UserWarning and mod and mod.match(autograph + ".x")
        for action, _, category, mod, _ in filters
    ), "tfport.install() did not filter the notices pointing into autograph"


def _run(*debug: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        [sys.executable, "-m", "tfport", "run", *debug, str(SCRIPT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0 and proc.stdout.strip() == "done", proc.stderr[-3000:]
    return proc


@pytest.mark.slow
@pytest.mark.parametrize("debug", [False, True], ids=["plain", "debug"])
def test_tfport_run_hides_tensorflows_own_warnings_unless_debug(debug) -> None:
    err = _run(*(["--debug"] if debug else [])).stderr
    assert "UserWarning: user says: my own warning" in err
    assert "tf_warnings.py:12: UserWarning: `tf.layers.dense` is deprecated" in err
    assert "WARNING:tensorflow:user says: a log line" in err
    for notice in TF_NOTICES:
        assert (notice in err) is debug, notice
