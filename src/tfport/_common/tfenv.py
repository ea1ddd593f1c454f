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
# Logged when a session starts on a machine without NVIDIA devices: not an error there.
_NO_GPU = re.compile(r"^E\d{4} \S+ +\d+ cuda_platform\.cc:\d+\] failed call to cuInit: .*$")


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
    if "tensorflow" in sys.modules:
        import tensorflow as tf

        return tf
    if os.environ.get("TF_CPP_MIN_LOG_LEVEL") == "0":
        import tensorflow as tf
    else:
        tf = _import_filtered()
    _configure_logging_once()
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


_logging_configured: list[bool] = []


def _configure_logging_once() -> None:
    """The logging levels tfport starts TensorFlow with, set once per process.

    Never reset afterwards: a script's own `set_verbosity` or logger levels stay as
    the script set them.
    """
    if _logging_configured:
        return
    _logging_configured.append(True)
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except ImportError:  # pragma: no cover - absl ships with TensorFlow
        pass
    logging.getLogger("tensorflow").setLevel(logging.ERROR)


def filter_stderr_noise() -> None:
    """Drops TensorFlow's start-up chatter from this process's fd 2 for its whole life.

    A thread forwards every other line unchanged (errors and tracebacks included); an
    exit handler drains it. On a machine without NVIDIA devices the `cuInit` failure
    line is chatter too. Called by `tfport run` / `tfport demo` unless --debug.

    Example:
        >>> filter_stderr_noise()  # doctest: +SKIP
    """
    import atexit
    import threading

    patterns = [_NOISE] + ([] if os.path.exists("/dev/nvidiactl") else [_NO_GPU])
    sys.stderr.flush()
    original = os.dup(2)
    read_end, write_end = os.pipe()
    os.dup2(write_end, 2)
    os.close(write_end)

    def pump() -> None:
        with os.fdopen(read_end, "rb") as source, os.fdopen(original, "wb", 0) as sink:
            for line in source:
                text = line.decode("utf-8", "replace").rstrip("\n")
                if not any(p.match(text) for p in patterns):
                    sink.write(line)

    thread = threading.Thread(target=pump, name="tfport-stderr", daemon=True)
    thread.start()

    def drain() -> None:
        sys.stderr.flush()
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 2)  # the pipe's last writer closes: the pump reads to the end
        os.close(devnull)
        thread.join(timeout=5)

    atexit.register(drain)
