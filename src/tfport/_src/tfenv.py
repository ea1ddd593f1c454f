"""Imports TensorFlow lazily, quietly and with Keras 2 behind `tf.keras`.

Legacy Estimator code needs `tf.compat.v1.layers` and Keras 2 semantics for
`tf.keras`; TensorFlow 2.21 gives those only when `TF_USE_LEGACY_KERAS=1` is
set before it is imported. Log noise is kept out of user output, errors are not.
"""

from __future__ import annotations

import logging
import os
import re
import sys
import tempfile
from types import ModuleType

# Start-up chatter TensorFlow's C++ side prints before absl logging is set up,
# whatever TF_CPP_MIN_LOG_LEVEL says (info lines, the CPU-feature notice).
_NOISE = re.compile(
    r"^(I\d{4} \S+ +\d+ \S+\] .*"
    r"|WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR"
    r"|To enable the following instructions: .* compiler flags\.)$"
)


def prepare_environment() -> None:
    """Sets the environment TensorFlow reads at import time (if not imported yet).

    Example:
        >>> prepare_environment()
    """
    if "tensorflow" in sys.modules:
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")


def import_tf() -> ModuleType:
    """Returns the `tensorflow` module, imported with tfport's environment.

    Example:
        >>> tf = import_tf()
        >>> tf.__version__.startswith("2.")
        True
    """
    prepare_environment()
    if "tensorflow" in sys.modules or os.environ.get("TF_CPP_MIN_LOG_LEVEL") == "0":
        import tensorflow as tf
    else:
        tf = _import_filtered()
    _quiet_absl()
    return tf


def _import_filtered() -> ModuleType:
    """Imports TensorFlow with fd 2 captured, then replays all but the start-up chatter."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            import tensorflow as tf
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            text = captured.read().decode("utf-8", "replace")
            kept = [line for line in text.splitlines(True) if not _NOISE.match(line.rstrip())]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()
    return tf


def _quiet_absl() -> None:
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except ImportError:  # pragma: no cover - absl ships with TensorFlow
        pass
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
