"""Imports TensorFlow lazily, quietly and with Keras 2 behind `tf.keras`.

Legacy Estimator code needs `tf.compat.v1.layers` and Keras 2 semantics for
`tf.keras`; TensorFlow 2.21 gives those only when `TF_USE_LEGACY_KERAS=1` is
set before it is imported. Log noise is kept out of user output, errors are not.
"""

from __future__ import annotations

import logging
import os
import sys
from types import ModuleType


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
    import tensorflow as tf

    _quiet_absl()
    return tf


def _quiet_absl() -> None:
    try:
        from absl import logging as absl_logging

        absl_logging.set_verbosity(absl_logging.ERROR)
    except ImportError:  # pragma: no cover - absl ships with TensorFlow
        pass
    logging.getLogger("tensorflow").setLevel(logging.ERROR)
