"""Legacy `util.py`: input_fn results to `(features, labels, hooks)` and iterator hooks.

Example:
    >>> features, labels, hooks = parse_input_fn_result(dataset)  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tfport._common.tfenv import import_tf
from tfport._common.types import Session
from tfport.estimator._engine.calls import _DatasetInitializerHook

_tf = import_tf()
_SessionRunHook: Any = _tf.compat.v1.train.SessionRunHook
MAX_DIRECTORY_CREATION_ATTEMPTS = 10


class DistributedIteratorInitializerHook(_DatasetInitializerHook):
    """Initializes a distributed iterator (`strategy.make_dataset_iterator`)."""


class MultiHostDatasetInitializerHook(_SessionRunHook):
    """Runs the given dataset initializers once the session exists."""

    def __init__(self, dataset_initializers: Sequence[object]) -> None:
        self._initializers = dataset_initializers

    def after_create_session(self, session: Session, coord: object) -> None:
        del coord
        if self._initializers:
            session.run(self._initializers)


def parse_iterator_result(result: object) -> tuple:
    """`(features, labels)` of an iterator element: a pair, or features alone.

    Example:
        >>> parse_iterator_result(({"x": 1}, 2))
        ({'x': 1}, 2)
    """
    if isinstance(result, (list, tuple)):
        if len(result) != 2:
            raise ValueError(
                "input_fn should return (features, labels) as a len 2 tuple. "
                f"Received: {len(result)} elements"
            )
        return result[0], result[1]
    return result, None


def parse_input_fn_result(result: object) -> tuple:
    """`(features, labels, input_hooks)` of what an input_fn returned (a Dataset gets an
    initializable iterator and its hook).

    Example:
        >>> parse_input_fn_result(({"x": 1}, 2))
        ({'x': 1}, 2, [])
    """
    hooks: list = []
    if isinstance(result, _tf.data.Dataset):
        iterator = _tf.compat.v1.data.make_initializable_iterator(result)
        hooks.append(_DatasetInitializerHook(iterator))
        result = iterator.get_next()
    return (*parse_iterator_result(result), hooks)
