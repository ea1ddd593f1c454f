"""Imports TensorFlow lazily, quietly and with Keras 2 behind `tf.keras`.

Legacy Estimator code needs `tf.compat.v1.layers` and Keras 2 semantics for
`tf.keras`; TensorFlow 2.21 gives those only when `TF_USE_LEGACY_KERAS=1` is
set before it is imported. Log noise is kept out of user output, errors are not.

Logging stays as TensorFlow 2.15 left it: tfport never sets the level, handlers or
propagation of the `tensorflow` logger (nor of any logger it does not own), so a
script's `set_verbosity` and a library's loggers behave as on the legacy stack;
only TensorFlow's C++ start-up chatter is dropped, by exact patterns.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from types import ModuleType
from typing import IO, Any

# Start-up chatter TensorFlow's C++ side prints before absl logging is set up, whatever
# TF_CPP_MIN_LOG_LEVEL says. Only these exact lines are dropped: a C++ log line
# (`I0000 00:00:<time> <thread> <file>.cc:<line>] <text>`) from a listed file with a listed
# text, and two fixed lines. Python absl lines (`I1202 17:25:51.07 <thread> <file>.py:7]`),
# print and logging output never match.
_CPP_CHATTER = (
    ("cudart_stub", r"Could not find cuda drivers on your machine, GPU will not be used\."),
    ("cpu_feature_guard", r"This TensorFlow binary is optimized to use available CPU .*"),
    ("port", r"oneDNN custom operations are on\. .*"),
    ("cuda_(?:fft|dnn|blas)", r"Unable to register cu(?:FFT|DNN|BLAS) factory: .*"),
    ("computation_placer", r"computation placer already registered\. .*"),
    ("mlir_graph_optimization_pass", r"MLIR V1 optimization pass is not enabled"),
)
_CPP_PREFIX = r"[IW]\d{4} \d\d:\d\d:\d+\.\d+ +\d+ "
_NOISE = re.compile(
    r"^(?:"
    + "|".join(f"{_CPP_PREFIX}{file}\\.cc:\\d+\\] {text}" for file, text in _CPP_CHATTER)
    + r"|WARNING: All log messages before absl::InitializeLog\(\) is called are written to STDERR"
    r"|To enable the following instructions: .* compiler flags\.)$"
)
# Logged when a session starts on a machine without NVIDIA devices: not an error there.
_NO_GPU = re.compile(
    r"^E\d{4} \d\d:\d\d:\d+\.\d+ +\d+ cuda_platform\.cc:\d+\] failed call to cuInit: .*$"
)
# UserWarnings TensorFlow raises from inside its own code when tfport (not the user)
# calls it: `(message start, module)`; only these, only around those calls.
_TF_INTERNAL_WARNINGS = (
    # tf.distribute's v1 input pipeline reads `dataset.options()` in graph mode.
    ("To make it possible to preserve tf.data options", r"tensorflow\.python\.data\..*"),
)
_progress: list = []


def set_progress(stream: IO[str] | None) -> None:
    """Makes `stream` (a terminal's stderr) receive the live training progress line.

    `tfport run` calls it when stderr is a terminal and `--quiet` was not given; None
    switches the line off.

    Example:
        >>> set_progress(None)
    """
    _progress[:] = [stream] if stream is not None else []


def progress_stream() -> Any:
    """The stream of the live progress line, or None (off: the default).

    Example:
        >>> progress_stream() is None
        True
    """
    return _progress[0] if _progress else None


def prepare_environment() -> None:
    """Sets the environment TensorFlow reads at import time (if not imported yet).

    Example:
        >>> prepare_environment()
    """
    if "tensorflow" in sys.modules:
        return
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
    # XLA reads its flags once: let sessions that ask for XLA (RunConfig(experimental_jit=True))
    # compile on CPUs too. Sessions that do not ask are unaffected.
    flags = os.environ.get("TF_XLA_FLAGS", "")
    if "--tf_xla_cpu_global_jit" not in flags:
        os.environ["TF_XLA_FLAGS"] = (flags + " --tf_xla_cpu_global_jit").strip()


def import_tf() -> Any:
    """Returns the `tensorflow` module, imported with tfport's environment.

    Example:
        >>> tf = import_tf()
        >>> tf.__version__.startswith("2.")
        True
    """
    prepare_environment()
    if "tensorflow" in sys.modules and _probed:
        import tensorflow as tf

        return tf
    if os.environ.get("TF_CPP_MIN_LOG_LEVEL") == "0":
        import tensorflow as tf
    else:
        tf = _import_filtered()
    _probed.append(True)
    return tf


_probed: list[bool] = []


def _import_filtered() -> ModuleType:
    """Imports TensorFlow with fd 2 captured, then replays all but the start-up chatter.

    The platforms are probed inside the capture too (`list_physical_devices`, once per
    process): on a machine without NVIDIA devices that is where TensorFlow logs its
    `failed call to cuInit` error line, which is not an error there.
    """
    patterns = [_NOISE] + ([] if os.path.exists("/dev/nvidiactl") else [_NO_GPU])
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as captured:
        os.dup2(captured.fileno(), 2)
        try:
            import tensorflow as tf

            tf.config.list_physical_devices()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            captured.seek(0)
            text = captured.read().decode("utf-8", "replace")
            lines = text.splitlines(True)
            kept = [line for line in lines if not any(p.match(line.rstrip()) for p in patterns)]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()
    return tf


@contextlib.contextmanager
def tf_logger_as_if_imported_here() -> Iterator[None]:
    """Inside, the `tensorflow` logger's handler is as if TensorFlow were imported by the
    code that runs inside, not by tfport before it.

    TensorFlow gives its logger a stderr handler when it is imported, unless the root
    logger has handlers then (a script that configures `logging` before importing
    TensorFlow gets each line once, through the root). `tfport run` imports TensorFlow
    before the script, so the handler is held back until the script's first
    ``import tensorflow...`` and added back only if the root logger has no handlers
    at that moment. Levels and propagation are never touched.

    Example:
        >>> with tf_logger_as_if_imported_here():  # doctest: +SKIP
        ...     runpy.run_path("script.py", run_name="__main__")
    """
    import builtins
    import logging

    logger = logging.getLogger("tensorflow")
    held = list(logger.handlers)
    original = builtins.__import__

    def first_tf_import(name: str, *args: Any, **kwargs: Any) -> Any:
        level = args[3] if len(args) > 3 else kwargs.get("level", 0)
        if level == 0 and name.partition(".")[0] == "tensorflow":
            builtins.__import__ = original
            if not logging.getLogger().handlers:
                for handler in held:
                    logger.addHandler(handler)
        return original(name, *args, **kwargs)

    for handler in held:
        logger.removeHandler(handler)
    builtins.__import__ = first_tf_import
    try:
        yield
    finally:
        if builtins.__import__ is first_tf_import:
            builtins.__import__ = original


# Where Python attributes a warning (the `__name__` of the frame `stacklevel` points at):
# TensorFlow's own modules and its Keras's.
_TF_WARNING_MODULES = r"(?:tensorflow|tf_keras|keras)(?:\.|$)"
_AUTOGRAPH_MODULES = r"tensorflow\.python\.autograph\."


def filter_tf_warnings() -> None:
    """From now on, the UserWarnings Python attributes to TensorFlow's own modules are not
    shown (by category and module only, no message text).

    TensorFlow's deprecation notices (``tf.layers.dense is deprecated``) point at their
    caller: at the user's line, where they show as on TF 2.15; under `mirrored:N` they
    point into TensorFlow's autograph code, where they say nothing about the user's code.
    The user's own warnings, and every log line, are untouched. `tfport run` calls it
    unless `--debug`.

    Example:
        >>> filter_tf_warnings()  # doctest: +SKIP
    """
    import warnings

    warnings.filterwarnings("ignore", category=UserWarning, module=_TF_WARNING_MODULES)


def filter_autograph_warnings() -> None:
    """From now on, the UserWarnings Python attributes to TensorFlow's autograph code are
    not shown: a model_fn called on replicas runs through autograph, so TensorFlow's
    deprecation notices from it (``tf.layers.dense is deprecated``) point into autograph,
    not at the user's line. The same notices on one device, pointing at the user's line,
    show as on TF 2.15. `tfport.install()` calls it; with `TFPORT_DEBUG` set (as
    `tfport run --debug` does) it filters nothing.

    Example:
        >>> filter_autograph_warnings()  # doctest: +SKIP
    """
    import warnings

    if os.environ.get("TFPORT_DEBUG"):
        return
    warnings.filterwarnings("ignore", category=UserWarning, module=_AUTOGRAPH_MODULES)


@contextlib.contextmanager
def quiet_tf_warnings() -> Iterator[None]:
    """Inside, the UserWarnings TensorFlow raises from its own code for tfport's calls
    (an exact list) are not shown; every other warning is, and the filters are restored.

    Example:
        >>> with quiet_tf_warnings():
        ...     pass
    """
    import warnings

    with warnings.catch_warnings():
        for text, module in _TF_INTERNAL_WARNINGS:
            warnings.filterwarnings("ignore", re.escape(text), UserWarning, module)
        yield


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
