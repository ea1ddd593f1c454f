"""Host-side helpers of legacy `tpu.tpu_estimator` that need no TPU: `TensorPacker`,
`PeriodicLogger`, `InstallSignalHandlerHook`, `CatchInvalidHostcallFunctions`.

Example:
    >>> packer = TensorPacker(small_feature_dim_size=1, minimum_num_small_features_to_group=5)
    >>> packer.maybe_concatenate_features(features)  # doctest: +SKIP
    >>> packer.maybe_split_features(features)  # doctest: +SKIP
"""

from __future__ import annotations

import signal
import time
from typing import Any

from tfport._common import tf_internals
from tfport._common.errors import message
from tfport._common.tfenv import import_tf
from tfport._common.types import Features, Operation, Session

tf = import_tf()
_SessionRunHook: Any = tf.compat.v1.train.SessionRunHook
_SMALL_FEATURES_KEY = "_concatenated_small_features"
_SUMMARY_OPS = (
    "AudioSummary",
    "AudioSummaryV2",
    "HistogramSummary",
    "ImageSummary",
    "MergeSummary",
    "ScalarSummary",
    "TensorSummary",
    "TensorSummaryV2",
)


class TensorPacker:
    """Packs many small `[batch, d]` features of one dtype into one tensor and back.

    Features of rank 2 whose second dimension is at most `small_feature_dim_size` are
    concatenated (per dtype, in sorted key order) when there are at least
    `minimum_num_small_features_to_group` of them; `maybe_split_features` restores them.

    Example:
        >>> packer = TensorPacker(1, 5)
        >>> packer.maybe_concatenate_features(features)  # doctest: +SKIP
    """

    def __init__(self, small_feature_dim_size: int, minimum_num_small_features_to_group: int):
        self._small_feature_dim_size = small_feature_dim_size
        self._minimum_num_small_features_to_group = minimum_num_small_features_to_group
        self._small_feature_names: dict = {}
        self._small_feature_sizes: dict = {}

    def maybe_concatenate_features(self, features: Features) -> None:
        """Replaces enough small features of `features` (a dict, in place) by their concat."""
        self._small_feature_names, self._small_feature_sizes = {}, {}
        if not isinstance(features, dict) or not features:
            return
        for name in sorted(features):
            tensor = features[name]
            if not isinstance(tensor, tf.Tensor):  # nested or sparse inputs: left as they are
                self._small_feature_names, self._small_feature_sizes = {}, {}
                return
            shape = tensor.shape.as_list() if tensor.shape.rank is not None else []
            if (
                len(shape) == 2
                and shape[1] is not None
                and shape[1] <= self._small_feature_dim_size
            ):
                self._small_feature_names.setdefault(tensor.dtype, []).append(name)
                self._small_feature_sizes.setdefault(tensor.dtype, []).append(shape[1])
        for dtype in list(self._small_feature_names):
            if len(self._small_feature_names[dtype]) < self._minimum_num_small_features_to_group:
                del self._small_feature_names[dtype], self._small_feature_sizes[dtype]
        for dtype, names in self._small_feature_names.items():
            key = self._get_small_feature_key(dtype)
            if key in features:
                raise ValueError(
                    f"{key} is reserved as feature key for concatenated small features."
                )
            features[key] = tf.concat([features.pop(name) for name in names], axis=1)

    def maybe_split_features(self, maybe_concatenated_features: dict) -> None:
        """Splits the concatenated features back into their names (in place)."""
        for dtype, names in self._small_feature_names.items():
            packed = maybe_concatenated_features.pop(self._get_small_feature_key(dtype))
            splits = tf.split(packed, self._small_feature_sizes[dtype], axis=1)
            maybe_concatenated_features.update(zip(names, splits))

    def _get_small_feature_key(self, dtype: object) -> str:
        return f"{_SMALL_FEATURES_KEY}_{dtype}"


class PeriodicLogger:
    """Logs (TensorFlow's INFO log) at most once every `seconds`.

    Example:
        >>> PeriodicLogger(60).log("Outfeed finished for iteration (%d, %d)", 0, 1)
    """

    def __init__(self, seconds: float) -> None:
        self._log_every_n_seconds = seconds
        self._last_log_time = 0.0

    def log(self, msg: str, *args: object, **kw: object) -> None:
        """Logs `msg % args` unless the last log is more recent than `seconds`."""
        if time.time() - self._last_log_time > self._log_every_n_seconds:
            self._last_log_time = time.time()
            tf.compat.v1.logging.info(msg, *args, **kw)


class InstallSignalHandlerHook(_SessionRunHook):
    """Makes CTRL^C end the process during the session's runs (SIGINT's default handler);
    the handler found at construction is restored at `end`.

    Example:
        >>> hooks = [InstallSignalHandlerHook()]  # doctest: +SKIP
    """

    def __init__(self) -> None:
        self._signal_fn = signal.getsignal(signal.SIGINT)

    def before_run(self, run_context: object) -> None:
        """Installs the default SIGINT handler."""
        del run_context
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    def end(self, session: Session) -> None:
        """Restores the handler found at construction."""
        del session
        signal.signal(signal.SIGINT, self._signal_fn)


class CatchInvalidHostcallFunctions(tf_internals.xla_control_flow_context_class()):  # type: ignore[misc]
    """A graph context (`Enter()` ... `Exit()`) refusing v1 summary ops: a host_call
    must write its summaries with the TF2 summary API.

    Example:
        >>> context = CatchInvalidHostcallFunctions()
        >>> context.Enter()  # doctest: +SKIP
    """

    def AddOp(self, op: Operation) -> None:  # noqa: N802 - legacy's name
        """Raises ValueError for a v1 summary op created inside the context."""
        if op.type in _SUMMARY_OPS:
            raise ValueError(
                message(
                    "A host_call function created a TF1 summary op, which host_calls refuse",
                    "Write its summaries with the TF2 API (tf.summary.scalar, ... inside "
                    "a tf.summary writer's as_default())",
                    op=f"{op.name} ({op.type})",
                )
            )
