"""Legacy `tpu.iteration_count_estimator`: how many steps fit in a time budget.

When `TPUConfig.iterations_per_loop` is a duration ('30s'), `_TPUStopAtStepHook` asks an
`IterationCountEstimator` before each loop. It keeps the last `capacity` (runtime, steps)
samples and moves its estimate to `budget / mean step time`, holding it once the last or
mean runtime is close to the budget and the step time has settled.

Example:
    >>> estimator = IterationCountEstimator(capacity=4)
    >>> estimator.update(2.0, 4)
    >>> estimator.get(10.0)
    20
"""

from __future__ import annotations

import collections
import logging
from typing import Any

import numpy as np

log = logging.getLogger("tfport")

RuntimeCounter = collections.namedtuple(
    "RuntimeCounter", ["runtime_secs", "steps", "step_time_secs"]
)


class IterationCountEstimator:
    """Estimates the iterations count of a time budget from recent loop runtimes.

    Example:
        >>> IterationCountEstimator().get(30.0)
        1
    """

    def __init__(self, capacity: int = 20) -> None:
        self._reset(capacity=capacity)

    def _reset(self, capacity: int = 20) -> None:
        """Empties the samples and sets the buffer's `capacity` (ValueError unless > 0)."""
        if capacity <= 0:
            raise ValueError(
                f"IterationCountEstimator `capacity` must be positive. Actual:{int(capacity)}."
            )
        self._buffer_wheel: collections.deque = collections.deque([])
        self._capacity = capacity
        self._min_iterations = 1
        self._last_iterations: Any = self._min_iterations
        self._sample_count = 0

    def _column_stat(self, stat: Any, column: int) -> Any:
        return stat(self._buffer_wheel, axis=0)[column] if self._buffer_wheel else 0

    def _mean_runtime_secs(self) -> Any:
        """The mean runtime of the samples (0 without any)."""
        return self._column_stat(np.mean, 0)

    def _mean_step_time_secs(self) -> Any:
        """The mean step time of the samples (0 without any)."""
        return self._column_stat(np.mean, 2)

    def _std_step_time_secs(self) -> Any:
        """The standard deviation of the samples' step times (0 without any)."""
        return self._column_stat(np.std, 2)

    def _diff_less_than_percentage(self, actual: float, target: float, percentage: float) -> bool:
        """Whether `actual` is within `percentage` % of `target` (neither may be 0)."""
        if actual == 0:
            raise ValueError("Invalid `actual` value. Value must not be zero.")
        if target == 0:
            raise ValueError("Invalid `target` value. Value must not be zero.")
        return float(abs(target - actual)) / target <= percentage * 0.01

    def _is_step_time_stable(self) -> bool:
        """Whether more than `capacity` samples came and their step times vary little."""
        return bool(self._std_step_time_secs() < 0.03 and self._sample_count > self._capacity)

    def update(self, runtime_secs: float, count: int) -> None:
        """Records that `count` steps took `runtime_secs` (ignored unless both > 0)."""
        if runtime_secs <= 0.0 or count <= 0.0:
            log.debug(
                "IterationCountEstimator ignores runtime %s for %s steps", runtime_secs, count
            )
            return
        if len(self._buffer_wheel) >= self._capacity:
            self._buffer_wheel.popleft()
        step_time = float(runtime_secs) / count
        self._buffer_wheel.append(RuntimeCounter(runtime_secs, count, step_time))
        self._sample_count += 1

    def get(self, total_secs: float) -> int:
        """The iterations expected to fill `total_secs` (1 before any sample)."""
        if total_secs <= 0:
            raise ValueError(
                f"Invalid `total_secs`. It must be positive number. Actual:{int(total_secs)}"
            )
        if not self._buffer_wheel:
            return self._min_iterations
        mean_runtime = self._mean_runtime_secs()
        delta = total_secs / self._mean_step_time_secs() - self._last_iterations
        last_runtime = self._buffer_wheel[-1].runtime_secs
        close = self._diff_less_than_percentage(
            last_runtime, total_secs, 10
        ) or self._diff_less_than_percentage(mean_runtime, total_secs, 5)
        if close and self._is_step_time_stable():
            delta = 0
        self._last_iterations = max(self._last_iterations + delta, self._min_iterations)
        log.info(
            "IterationCountEstimator -- target_runtime:%.3fs. last_runtime:%.3fs. "
            "mean_runtime:%.3fs. next_steps:%.2f.",
            total_secs,
            last_runtime,
            mean_runtime,
            self._last_iterations,
        )
        return int(self._last_iterations + 0.5)
