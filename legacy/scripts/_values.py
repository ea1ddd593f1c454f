"""What the `values.json` scripts share: recording outcomes and writing ``values.json``.

Not a case script (it declares no CASES / ARTIFACTS, so legacy/generate.py makes nothing
from it). The scripts import it as ``_values``: run as ``python SCRIPT NAME OUT_DIR`` their
folder is ``sys.path[0]``; loaded by a test, ``tests/legacy/compare.py: load_script`` puts
the folder on ``sys.path`` while the script is imported.
"""

import json
import os

import numpy as np
import tensorflow as tf


def describer(tensor, operation=None, *, sort_key=None, digits=None):
    """A JSON-able description function (the scripts differ in the choices named here).

    Args:
        tensor: describes a ``tf.Tensor`` (and a ``tf.Operation`` when ``operation`` is
            None).
        operation: describes a ``tf.Operation``.
        sort_key: the ``key`` dict items are sorted by (None: the items themselves).
        digits: None: numbers are kept as they are (a numpy scalar that is no float
            becomes its type name); else numpy scalars become Python numbers and floats
            are rounded to this many digits.

    Returns:
        ``describe(value)``: dicts (keys made ``str``) and lists / tuples (as lists)
        described item by item, plain values kept, other objects by their type's name.
    """

    def describe(value):
        if isinstance(value, tf.Tensor):
            return tensor(value)
        if isinstance(value, tf.Operation):
            return (operation or tensor)(value)
        if isinstance(value, dict):
            return {str(k): describe(v) for k, v in sorted(value.items(), key=sort_key)}
        if isinstance(value, (list, tuple)):
            return [describe(v) for v in value]
        if digits is not None:
            if isinstance(value, np.generic):
                value = value.item()
            if isinstance(value, float):
                return round(value, digits)
        if isinstance(value, (str, int, float, bool, type(None))):
            return value
        return type(value).__name__

    return describe


def outcome_recorder(describe, message=None):
    """``outcome(fn, *args, **kwargs)``: calls fn and records what happened.

    Args:
        describe: describes a returned value.
        message: cleans an exception's first message line (None: kept as it is).

    Returns:
        A function giving ``["returns", describe(value)]`` or ``["raises", name of the
        exception's nearest builtin class, first message line, whether the exception
        itself is a builtin]``.
    """

    def outcome(fn, *args, **kwargs):
        try:
            value = fn(*args, **kwargs)
        except Exception as e:  # noqa: BLE001 - the exception type is the recorded outcome
            builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
            line = str(e).splitlines()[0] if str(e) else ""
            if message is not None:
                line = message(line)
            return ["raises", builtin.__name__, line, type(e).__module__ == "builtins"]
        return ["returns", describe(value)]

    return outcome


def main(name, record, argv):
    """The scripts' ``python SCRIPT NAME OUT_DIR``: writes record() to OUT_DIR/values.json.

    Args:
        name: the artifact the script makes (NAME must be it).
        record: the script's ``record`` function.
        argv: ``[NAME, OUT_DIR]``.
    """
    given, out_dir = argv
    assert given == name, given
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "values.json"), "w") as f:
        json.dump(record(), f, indent=1, sort_keys=True)
