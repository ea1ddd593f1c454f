"""The legacy Estimator's console: its INFO lines, and `tfport run`'s live progress line.

Every line goes through the `tensorflow` logger (`tf.compat.v1.logging`) with the texts
tensorflow_estimator 2.15 used, so they show exactly when they showed on the legacy
stack: after the script's own `tf.compat.v1.logging.set_verbosity(INFO)` (tfport leaves
the `tensorflow` logger as TensorFlow sets it). TensorFlow's own hooks (step counter, checkpoint
saver, logging tensor hook, evaluation progress) log the rest.

The progress line is separate: one self-overwriting line on a terminal's stderr, only
when `tfport run` switched it on (`tfport._common.tfenv.progress_stream()`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from typing import Any, SupportsFloat, TextIO

from tfport._common.tfenv import import_tf, progress_stream
from tfport._common.types import RunContext, Session

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook


def info(msg: str, *args: object) -> None:
    """Logs `msg % args` at INFO on the `tensorflow` logger, as the legacy Estimator did.

    Example:
        >>> info("Loss for final step: %s.", 0.5)
    """
    import_tf().compat.v1.logging.info(msg, *args)


def using_config(config: object) -> None:
    """`Using config: {...}` (logged when an Estimator is made).

    Example:
        >>> using_config(RunConfig())  # doctest: +SKIP
    """
    info("Using config: %s", str(vars(config)))


@contextlib.contextmanager
def calling_model_fn() -> Iterator[None]:
    """`Calling model_fn.` before and `Done calling model_fn.` after a model_fn call.

    Example:
        >>> with calling_model_fn():
        ...     pass
    """
    info("Calling model_fn.")
    yield
    info("Done calling model_fn.")


def final_loss(loss: object) -> None:
    """`Loss for final step: <loss>.` (the last training step's loss).

    Example:
        >>> final_loss(0.25)
    """
    info("Loss for final step: %s.", loss)


def warm_starting(settings: object) -> None:
    """`Warm-starting with WarmStartSettings: ...` before TF's own warm-start lines.

    Example:
        >>> warm_starting(WarmStartSettings("/old"))  # doctest: +SKIP
    """
    info(f"Warm-starting with WarmStartSettings: {settings}")


def evaluation_started() -> float:
    """`Starting evaluation at <time>`; returns the start time for `evaluation_finished`.

    Example:
        >>> start = evaluation_started()
    """
    info("Starting evaluation at " + time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime()))
    return time.time()


def evaluation_finished(start: float) -> None:
    """`Inference Time : <s>s` and `Finished evaluation at <time>`.

    Example:
        >>> evaluation_finished(evaluation_started())
    """
    info(f"Inference Time : {time.time() - start:0.5f}s")
    info("Finished evaluation at " + time.strftime("%Y-%m-%d-%H:%M:%S", time.localtime()))


def saving_dict(step: int, results: dict) -> None:
    """`Saving dict for global step N: a = 1, b = 2` (sorted keys, bytes values left out).

    Example:
        >>> saving_dict(40, {"loss": 0.5, "global_step": 40})
    """
    text = ", ".join(
        f"{key} = {value!s}"
        for key, value in sorted(results.items())
        if not isinstance(value, bytes)
    )
    info("Saving dict for global step %d: %s", step, text)


def saving_checkpoint_path(step: int, path: object) -> None:
    """`Saving 'checkpoint_path' summary for global step N: <path>`.

    Example:
        >>> saving_checkpoint_path(40, "m/model.ckpt-40")
    """
    info("Saving '%s' summary for global step %d: %s", "checkpoint_path", step, path)


def progress_hook(loss: object, steps: int | None, max_steps: int | None) -> Any:
    """A hook drawing `tfport run`'s live progress line, or None when it is off.

    The line (step, loss, steps/s, ETA to the last step) overwrites itself on the
    terminal's stderr at most twice a second and ends with a newline when training ends.

    Example:
        >>> progress_hook(None, None, 100) is None  # off unless `tfport run` on a terminal
        True
    """
    stream = progress_stream()
    if stream is None:
        return None
    return _ProgressHook(stream, loss, steps, max_steps)


class _ProgressHook(_SessionRunHook):
    def __init__(
        self, stream: TextIO, loss: object, steps: int | None, max_steps: int | None
    ) -> None:
        self._stream, self._loss = stream, loss
        self._steps, self._max_steps = steps, max_steps

    def begin(self) -> None:
        self._step_tensor = tf.compat.v1.train.get_global_step()
        self._drawn = 0.0
        self._width = 0

    def after_create_session(self, session: Any, coord: object) -> None:
        self._first = int(session.run(self._step_tensor))
        self._last = self._max_steps
        if self._last is None and self._steps is not None:
            self._last = self._first + self._steps
        self._start = time.monotonic()

    def before_run(self, run_context: RunContext) -> Any:
        return tf.compat.v1.train.SessionRunArgs([self._step_tensor, self._loss])

    def after_run(self, run_context: RunContext, run_values: Any) -> None:
        step, value = run_values.results
        now = time.monotonic()
        if now - self._drawn >= 0.5:
            self._drawn = now
            text = progress_text(step, value, self._first, self._start, now, self._last)
            self._draw(text)

    def end(self, session: Session) -> None:
        if self._width:
            self._stream.write("\n")
            self._stream.flush()

    def _draw(self, text: str) -> None:
        self._stream.write("\r" + text.ljust(self._width))
        self._stream.flush()
        self._width = len(text)


def progress_text(
    step: int, loss: SupportsFloat, first: int, start: float, now: float, last: int | None
) -> str:
    """The progress line's text.

    Example:
        >>> progress_text(60, 0.5, 10, 0.0, 10.0, 110)
        'tfport: step 60/110  loss 0.5  5.0 steps/s  ETA 10s'
    """
    rate = (step - first) / (now - start) if now > start else 0.0
    parts = [f"tfport: step {step}" + (f"/{last}" if last else ""), f"loss {float(loss):.6g}"]
    parts.append(f"{rate:.1f} steps/s")
    if last and rate > 0:
        parts.append(f"ETA {max(0.0, (last - step) / rate):.0f}s")
    return "  ".join(parts)
