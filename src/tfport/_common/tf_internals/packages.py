"""TensorFlow's own packages and API modules, as tfport installs names into them.

tfport adds the legacy Estimator paths as attributes of TensorFlow's packages
(`tensorflow.python.estimator`, the `distribute` and `tpu` glue modules) and of its lazy
public API modules (`TFModuleWrapper`, which keeps the real module private). The modules
stay here: a caller names the package and gets the attribute set, never the module.

Example:
    >>> from tfport._common.tf_internals import packages
    >>> ("util.module_wrapper", "TFModuleWrapper", "_tfmw_wrapped_module") in packages.ATTRIBUTES
    True
"""

from __future__ import annotations

import sys
from collections.abc import Callable

SYMBOLS: tuple[tuple[str, str], ...] = ()
# (module under `tensorflow.python`, class or None for the module, attribute): the private
# attributes read or written here.
ATTRIBUTES: tuple[tuple[str, str | None, str], ...] = (
    ("util.module_wrapper", "TFModuleWrapper", "_tfmw_wrapped_module"),
)


def set_on_loaded_package(
    set_attr: Callable[[object, str, object], None], package: str, name: str, value: object
) -> bool:
    """`set_attr(<tensorflow.python.package>, name, value)` where that package is loaded.

    `package` is a package under `tensorflow.python` ("distribute", "tpu"; "" for
    `tensorflow.python` itself, TF >= 1.x). The package is never imported here, and
    reaches only `set_attr` (an installation's undoable `set`). Returns whether it was
    loaded.

    Example:
        >>> set_on_loaded_package(setattr, "no_such_package", "x", 1)
        False
    """
    key = "tensorflow.python" + (f".{package}" if package else "")
    owner = sys.modules.get(key)
    if owner is None:
        return False
    set_attr(owner, name, value)
    return True


def set_in_wrapped_module(module: object, name: str, value: object) -> None:
    """Sets `name` to `value` in the module a `TFModuleWrapper` (TF's lazy API modules)
    wraps too; nothing for another module (`_tfmw_wrapped_module`, TF >= 2.0).

    Example:
        >>> import types
        >>> set_in_wrapped_module(types.ModuleType("plain"), "x", 1)
    """
    wrapped = getattr(module, "_tfmw_wrapped_module", None)
    if wrapped is not None:
        setattr(wrapped, name, value)


def delete_from_wrapped_module(module: object, name: str) -> None:
    """Deletes `name` from the module a `TFModuleWrapper` wraps too, where it is there;
    nothing for another module (`_tfmw_wrapped_module`, TF >= 2.0).

    Example:
        >>> import types
        >>> delete_from_wrapped_module(types.ModuleType("plain"), "x")
    """
    wrapped = getattr(module, "_tfmw_wrapped_module", None)
    if wrapped is None:
        return
    try:
        delattr(wrapped, name)
    except (AttributeError, TypeError):
        wrapped.__dict__.pop(name, None)
