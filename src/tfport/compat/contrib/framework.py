"""`tf.contrib.framework`: `arg_scope`, variable helpers and checkpoint assignment.

Names TensorFlow 2.21 still has (`get_or_create_global_step`, `load_variable`,
`init_from_checkpoint`, `nest`, ...) are rewritten by `tfport upgrade` to the
`tf.compat.v1` / `tf` API directly; this module holds the rest.

Example:
    >>> @add_arg_scope
    ... def scale(x, factor=1):
    ...     return x * factor
    >>> with arg_scope([scale], factor=3):
    ...     scale(2)
    6
"""

from __future__ import annotations

import contextlib
import functools
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from tfport._common.errors import TfportInputError, message
from tfport.compat.contrib._tf import v1

_STACK = threading.local()


def _scopes() -> list[dict[str, dict[str, Any]]]:
    if not hasattr(_STACK, "scopes"):
        _STACK.scopes = [{}]
    return _STACK.scopes


def _key(op: Callable) -> str:
    return getattr(op, "_tfport_arg_scope_key", f"{op.__module__}.{op.__qualname__}")


def add_arg_scope(func: Callable) -> Callable:
    """Decorates `func` so that :func:`arg_scope` can set its default arguments.

    Example:
        >>> f = add_arg_scope(lambda x, y=0: x + y)
        >>> f(1)
        1
    """
    key = f"{func.__module__}.{func.__qualname__}"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        defaults = _scopes()[-1].get(key, {})
        return func(*args, **{**defaults, **kwargs})

    wrapper._tfport_arg_scope_key = key  # type: ignore[attr-defined]
    return wrapper


@contextlib.contextmanager
def arg_scope(
    list_ops_or_scope: Sequence[Callable] | dict, **kwargs: object
) -> Iterator[dict[str, dict[str, Any]]]:
    """Sets default keyword arguments of the listed (decorated) ops inside the block.

    Args:
        list_ops_or_scope: ops decorated with :func:`add_arg_scope`, or a scope dict
            yielded by an earlier `arg_scope` (re-entered as it was).
        **kwargs: the defaults.

    Yields:
        The current scope (a dict), reusable later.

    Raises:
        TfportInputError: an op is not decorated with `add_arg_scope`.

    Example:
        >>> with arg_scope([]) as sc:
        ...     isinstance(sc, dict)
        True
    """
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            raise TfportInputError(
                message("arg_scope(scope_dict) takes no keyword arguments", kwargs=kwargs)
            )
        scope = list_ops_or_scope
    else:
        scope = {key: dict(value) for key, value in _scopes()[-1].items()}
        for op in list_ops_or_scope:
            if not hasattr(op, "_tfport_arg_scope_key"):
                raise TfportInputError(
                    message(
                        f"{getattr(op, '__name__', op)} is not decorated with @add_arg_scope",
                        "Decorate it with tfport.compat.contrib.framework.add_arg_scope",
                    )
                )
            scope[_key(op)] = {**scope.get(_key(op), {}), **kwargs}
    _scopes().append(scope)
    try:
        yield scope
    finally:
        _scopes().pop()


def get_name_scope() -> str:
    """The current name scope of the default graph (`tf.contrib.framework.get_name_scope`)."""
    return v1().get_default_graph().get_name_scope()


def model_variable(
    name: str,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable: bool = True,
    collections=None,
    caching_device=None,
    device=None,
    partitioner=None,
    custom_getter=None,
    use_resource=None,
):
    """`get_variable` that also adds the variable to the MODEL_VARIABLES collection.

    Example:
        >>> model_variable  # doctest: +ELLIPSIS
        <function model_variable at ...>
    """
    tf = v1()
    keys = tf.GraphKeys
    collections = list(collections or []) + [keys.GLOBAL_VARIABLES, keys.MODEL_VARIABLES]
    return variable(
        name,
        shape,
        dtype,
        initializer,
        regularizer,
        trainable,
        collections,
        caching_device,
        device,
        partitioner,
        custom_getter,
        use_resource,
    )


def variable(
    name: str,
    shape=None,
    dtype=None,
    initializer=None,
    regularizer=None,
    trainable: bool = True,
    collections=None,
    caching_device=None,
    device=None,
    partitioner=None,
    custom_getter=None,
    use_resource=None,
):
    """`tf.contrib.framework.variable`: `get_variable` with the given collections."""
    tf = v1()
    collections = list(collections or [tf.GraphKeys.GLOBAL_VARIABLES])
    collections = list(dict.fromkeys(collections))  # no duplicates
    with contextlib.ExitStack() as stack:
        if device is not None:
            stack.enter_context(tf.device(device))
        return tf.get_variable(
            name,
            shape=shape,
            dtype=dtype or tf.float32,
            initializer=initializer,
            regularizer=regularizer,
            trainable=trainable,
            collections=collections,
            caching_device=caching_device,
            partitioner=partitioner,
            custom_getter=custom_getter,
            use_resource=use_resource,
        )


def get_variables(scope=None, suffix: str | None = None, collection: str | None = None) -> list:
    """Variables of `collection` (default GLOBAL_VARIABLES) under `scope`, ending in `suffix`."""
    tf = v1()
    if scope is not None and not isinstance(scope, str):
        scope = scope.name  # a VariableScope
    found = tf.get_collection(collection or tf.GraphKeys.GLOBAL_VARIABLES, scope)
    if suffix is not None:
        found = [v for v in found if v.op.name.endswith(suffix)]
    return found


def get_model_variables(scope=None, suffix: str | None = None) -> list:
    """Variables of the MODEL_VARIABLES collection."""
    return get_variables(scope, suffix, v1().GraphKeys.MODEL_VARIABLES)


def get_trainable_variables(scope=None, suffix: str | None = None) -> list:
    """Variables of the TRAINABLE_VARIABLES collection."""
    return get_variables(scope, suffix, v1().GraphKeys.TRAINABLE_VARIABLES)


def get_local_variables(scope=None, suffix: str | None = None) -> list:
    """Variables of the LOCAL_VARIABLES collection."""
    return get_variables(scope, suffix, v1().GraphKeys.LOCAL_VARIABLES)


def get_variables_by_name(given_name: str, scope=None) -> list:
    """Variables whose last name component is `given_name`."""
    return [v for v in get_variables(scope) if v.op.name.split("/")[-1] == given_name]


def get_unique_variable(var_op_name: str):
    """The one variable named `var_op_name` (raises ValueError when there is not exactly one)."""
    found = [v for v in get_variables() if v.op.name == var_op_name]
    if len(found) != 1:
        raise ValueError(f"Couldn't find exactly one variable named {var_op_name!r}")
    return found[0]


def get_variables_to_restore(
    include: Sequence[str] | None = None, exclude: Sequence[str] | None = None
) -> list:
    """Variables under the `include` scopes (default all) and outside the `exclude` scopes."""
    if include is None:
        candidates = get_variables()
    else:
        candidates = [v for scope in include for v in get_variables(scope)]
    excluded = {id(v) for scope in exclude or [] for v in get_variables(scope)}
    return [v for v in dict.fromkeys(candidates) if id(v) not in excluded]


def filter_variables(
    var_list: Sequence, include_patterns=None, exclude_patterns=None, reg_search: bool = True
) -> list:
    """Variables whose names match an include pattern and no exclude pattern."""
    match = re.search if reg_search else re.match
    out = []
    for var in var_list:
        name = var.name
        if include_patterns is not None and not any(match(p, name) for p in include_patterns):
            continue
        if exclude_patterns is not None and any(match(p, name) for p in exclude_patterns):
            continue
        out.append(var)
    return out


def assign_from_checkpoint_fn(
    model_path: str, var_list, ignore_missing_vars: bool = False, reshape_variables: bool = False
) -> Callable | None:
    """Returns `fn(session)` that restores `var_list` from `model_path` (None if nothing to do).

    Example:
        >>> assign_from_checkpoint_fn("ckpt", [], ignore_missing_vars=True) is None
        True
    """
    if not var_list:
        return None
    tf = v1()
    if ignore_missing_vars:
        names = set(tf.train.NewCheckpointReader(model_path).get_variable_to_shape_map())
        if isinstance(var_list, dict):
            var_list = {k: v for k, v in var_list.items() if k in names}
        else:
            var_list = [v for v in var_list if v.op.name in names]
        if not var_list:
            return None
    saver = tf.train.Saver(var_list, reshape=reshape_variables)

    def callback(session) -> None:
        saver.restore(session, model_path)

    return callback
