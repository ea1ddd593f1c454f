"""Estimators built by a user's script or module: `SCRIPT_OR_MODULE:FACTORY`."""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import os
import sys
from typing import Any

from tfport._common.errors import TfportInputError, message

_FIX = "Pass SCRIPT.py:FACTORY or package.module:FACTORY, FACTORY(model_dir) -> Estimator"


def load_estimator(spec: str, model_dir: str) -> Any:
    """Calls `FACTORY(model_dir)` (or `FACTORY()`) of a script or module; returns the estimator.

    `tfport.install()` runs first, so a legacy script's `tf.estimator` is tfport's.

    Example:
        >>> est = load_estimator("train.py:make_estimator", "model_dir")  # doctest: +SKIP
    """
    source, _, name = str(spec).rpartition(":")
    if not source or not name.isidentifier():
        raise TfportInputError(message("Bad estimator factory", _FIX, factory=spec))
    if not os.path.isdir(model_dir):
        raise TfportInputError(
            message(
                "The model_dir does not exist", "Pass the estimator's model_dir", path=model_dir
            )
        )
    from tfport._install import install

    install()
    module = _module(source)
    factory = getattr(module, name, None)
    if not callable(factory):
        raise TfportInputError(message(f"{source} has no callable {name!r}", _FIX, factory=spec))
    try:
        takes_dir = len(inspect.signature(factory).parameters) > 0
    except (TypeError, ValueError):
        takes_dir = True
    estimator = factory(model_dir) if takes_dir else factory()
    if not hasattr(estimator, "predict") or not hasattr(estimator, "model_fn"):
        raise TfportInputError(
            message(f"{spec} did not return an Estimator", _FIX, returned=type(estimator).__name__)
        )
    return estimator


def _module(source: str) -> Any:
    if source.endswith(".py") or os.sep in source:
        if not os.path.isfile(source):
            raise TfportInputError(message("The script does not exist", _FIX, script=source))
        name = "_tfport_factory_" + os.path.splitext(os.path.basename(source))[0]
        loader: Any = importlib.util.spec_from_file_location(name, source)
        module = importlib.util.module_from_spec(loader)
        sys.path.insert(0, os.path.dirname(os.path.abspath(source)))
        try:
            loader.loader.exec_module(module)
        finally:
            sys.path.pop(0)
        return module
    try:
        return importlib.import_module(source)
    except ImportError as err:
        raise TfportInputError(
            message("The module cannot be imported", _FIX, module=source)
        ) from err
