"""Names of the legacy TPU private modules (`tpu.util`, `tpu.error_handling`), behaving as
legacy (`tpu.iteration_count_estimator`'s live in `tfport.estimator._tpu.iteration_count`).

`tpu.tpu_estimator`'s infeed enqueue builders (`generate_*_enqueue_ops_fn*`) live in
`tpu_enqueue`: they build a TPU host's infeed enqueue ops, as legacy (running them needs
a TPU host).

Example:
    >>> parse_iterations_per_loop(20)
    IterationsPerLoopCounter(value=20, unit='count')
"""

# ruff: noqa: E501 - the legacy signatures, one per line

from __future__ import annotations

import collections
import re
import threading
from types import TracebackType
from typing import Any

IterationsPerLoopCounter = collections.namedtuple("IterationsPerLoopCounter", ["value", "unit"])


def check_positive_integer(value: object, name: str) -> None:
    """Raises ValueError unless `value` is a positive int.

    Example:
        >>> check_positive_integer(3, "steps")
    """
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be positive integer. Given {value}")


def parse_iterations_per_loop(iterations_per_loop: int | str) -> IterationsPerLoopCounter:
    """`iterations_per_loop` (an int or a duration like '30s', '5m', '1h') as a counter.

    Example:
        >>> parse_iterations_per_loop("30s")
        IterationsPerLoopCounter(value=30, unit='seconds')
    """
    if isinstance(iterations_per_loop, int):
        check_positive_integer(iterations_per_loop, "iterations_per_loop")
        return IterationsPerLoopCounter(value=iterations_per_loop, unit="count")
    match = re.fullmatch(r"([1-9]\d*)([smh])", str(iterations_per_loop))
    if not match:
        raise ValueError(
            "Invalid TPUConfig `iterations_per_loop` value. Value must be positive integer "
            f"value or time-based value `<N>s`, `<N>m` or `<N>h`. Given {iterations_per_loop}"
        )
    scale = {"s": 1, "m": 60, "h": 3600}[match.group(2)]
    return IterationsPerLoopCounter(value=int(match.group(1)) * scale, unit="seconds")


class ErrorRendezvous:
    """Collects errors from `num_sources` threads and re-raises the first (legacy TPU)."""

    def __init__(self, num_sources: int) -> None:
        self._num_sources = num_sources
        self._errors: dict = {}
        self._done = 0
        self._lock = threading.Lock()

    def record_error(
        self,
        source: str,
        exc_info: tuple[type[BaseException] | None, BaseException | None, TracebackType | None],
        session: object = None,
    ) -> None:
        """Records `exc_info` raised by `source`."""
        del session
        with self._lock:
            self._errors.setdefault(source, exc_info)

    def record_done(self, source: str) -> None:
        """Marks `source` finished."""
        del source
        with self._lock:
            self._done += 1

    def catch_errors(self, source: str, session: object = None) -> Any:
        """A context manager recording (and swallowing) any error raised inside it."""
        return _Catch(self, source, session)

    def raise_errors(self, timeout_sec: float = 0) -> None:
        """Re-raises the first recorded error, if any."""
        del timeout_sec
        with self._lock:
            errors = list(self._errors.values())
        if errors:
            raise errors[0][1].with_traceback(errors[0][2])


class _Catch:
    def __init__(self, rendezvous: ErrorRendezvous, source: str, session: object) -> None:
        self._r, self._source, self._session = rendezvous, source, session

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        tb: TracebackType | None,
    ) -> bool:
        if isinstance(value, Exception):  # recorded, re-raised by raise_errors (legacy)
            self._r.record_error(self._source, (kind, value, tb), self._session)
            return True
        return False
