"""Legacy `tpu_estimator._OutfeedHostCall` and `_OutfeedHostCallHook`, under legacy's names.

A TPUEstimatorSpec's `eval_metrics` and `host_call` are `(fn, tensors)` pairs. On a TPU,
legacy recorded each pair, sent its tensors from every core through the outfeed
(`create_enqueue_op`), and on the host dequeued them, concatenated them along the batch
and called `fn` (`create_tpu_hostcall`); off a TPU it called `fn` on the tensors directly
(`create_cpu_hostcall`) and `_OutfeedHostCallHook` fetched the results every step. Both
routes are here: the outfeed ops build in any graph (running them needs a TPU host);
tfport's own TPUEstimator runs host calls with `_engine/host_calls.HostCallHook`.

Example:
    >>> _OutfeedHostCall.validate({"host_call": (lambda x: x, [1])})
"""

from __future__ import annotations

import collections
import inspect
import logging
from collections.abc import Callable, Mapping
from typing import Any

from tfport._common import tf_internals
from tfport._common.tfenv import import_tf
from tfport._common.types import Session, TPUDeployment
from tfport.estimator._engine.building.calls import fn_args

tf = import_tf()
v1 = tf.compat.v1
_SessionRunHook: Any = v1.train.SessionRunHook
log = logging.getLogger("tensorflow")
_BROADCAST = 4  # tpu_config.InputPipelineConfig.BROADCAST


def _takes_varargs(fn: Callable[..., object]) -> bool:
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(p.kind is p.VAR_POSITIONAL for p in params)


def _call_with(
    name: str,
    fn: Callable[..., object],
    tensors: list[object] | tuple[object, ...] | Mapping[str, object],
) -> Any:
    if isinstance(tensors, (tuple, list)):
        return fn(*tensors)
    try:
        return fn(**tensors)
    except TypeError as e:
        log.warning(
            "Exception while calling %s: %s. It is likely the tensors (%s[1]) do not match "
            "the function's arguments",
            name,
            e,
            name,
        )
        raise


class _OutfeedHostCall:
    """Runs a TPUEstimatorSpec's `eval_metrics` / `host_call` functions on the host.

    Example:
        >>> host_calls = _OutfeedHostCall(ctx)  # doctest: +SKIP
        >>> host_calls.record({"host_call": (fn, [loss])})  # doctest: +SKIP
    """

    def __init__(self, ctx: TPUDeployment, outfeed_every_n_steps: int = 1) -> None:
        self._ctx = ctx
        self._names: list = []
        self._host_fns: dict = {}
        self._tensor_keys: dict = collections.defaultdict(list)
        self._tensors: dict = collections.defaultdict(list)
        self._tensor_dtypes: dict = collections.defaultdict(list)
        self._tensor_shapes: dict = collections.defaultdict(list)
        self._outfeed_every_n_steps = outfeed_every_n_steps

    @staticmethod
    def validate(host_calls: dict) -> None:
        """Checks every `name: (fn, tensors)` pair as legacy did (ValueError / TypeError /
        RuntimeError naming the pair)."""
        for name, host_call in host_calls.items():
            if not isinstance(host_call, (tuple, list)):
                raise ValueError(f"{name} should be tuple or list")
            if len(host_call) != 2:
                raise ValueError(f"{name} should have two elements.")
            fn, tensors = host_call
            if not callable(fn):
                raise TypeError(f"{name}[0] should be callable.")
            if not isinstance(tensors, (tuple, list, dict)):
                raise ValueError(f"{name}[1] should be tuple or list, or dict.")
            if isinstance(tensors, (tuple, list)) and not _takes_varargs(fn):
                expected = len(fn_args(fn))
                if len(tensors) != expected:
                    raise RuntimeError(
                        f"In TPUEstimatorSpec.{name}, length of tensors {len(tensors)} does "
                        f"not match method args of the function, which takes {expected}."
                    )

    @staticmethod
    def create_cpu_hostcall(host_calls: dict) -> dict:
        """`{name: fn(*tensors) or fn(**tensors)}`: the host calls run where the model runs
        (legacy's `use_tpu=False` route)."""
        _OutfeedHostCall.validate(host_calls)
        return {name: _call_with(name, fn, tensors) for name, (fn, tensors) in host_calls.items()}

    def record(self, host_calls: dict) -> None:
        """Keeps each pair's function and its tensors' keys, dtypes and shapes."""
        for name, (host_fn, tensors) in host_calls.items():
            self._names.append(name)
            self._host_fns[name] = host_fn
            if isinstance(tensors, dict):
                items = list(tensors.items())
                self._tensor_keys[name].extend(k for k, _ in items)
                values = [t for _, t in items]
            else:
                self._tensor_keys[name] = None
                values = list(tensors)
            self._tensors[name].extend(values)
            self._tensor_dtypes[name].extend(t.dtype for t in values)
            self._tensor_shapes[name].extend(t.shape for t in values)

    def create_enqueue_op(self, step: object = None) -> list:
        """The ops putting the recorded tensors on the outfeed of TPU core 0 (every
        `outfeed_every_n_steps`-th `step`); [] with nothing recorded."""
        if not self._names:
            return []
        tensors = [t for name in self._names for t in self._tensors[name]]
        every = self._outfeed_every_n_steps
        if every > 1 and step is None:
            raise ValueError(
                "If outfeed is requested every n steps, you must pass a tensor whose value is "
                "the step number within the current training loop."
            )
        with v1.device(v1.tpu.core(0)):
            if every == 1:
                return [tf.raw_ops.OutfeedEnqueueTuple(inputs=tensors)]
            due = tf.math.equal(tf.math.floormod(step, every), 0)
            return [v1.cond(due, lambda: tf.raw_ops.OutfeedEnqueueTuple(inputs=tensors), tf.no_op)]

    def create_tpu_hostcall(self) -> dict:
        """`{name: fn(dequeued tensors)}` built on the first host, each tensor dequeued from
        every replica's outfeed and concatenated along dimension 0, plus `__force_dequeue`
        (every dequeue, grouped); `{}` with nothing recorded."""
        if not self._names:
            return {}
        dtypes = [d for name in self._names for d in self._tensor_dtypes[name]]
        shapes = [s for name in self._names for s in self._tensor_shapes[name]]
        per_tensor: list[list] = [[] for _ in dtypes]
        for replica in range(self._ctx.num_replicas):
            host, ordinal = self._ctx.device_for_replica(replica)
            with v1.device(host):
                outfed = tf.raw_ops.OutfeedDequeueTuple(
                    dtypes=dtypes, shapes=shapes, device_ordinal=ordinal
                )
            for j, tensor in enumerate(outfed):
                per_tensor[j].append(tensor)
        every_dequeue = [t for parts in per_tensor for t in parts]
        broadcast = self._broadcast()
        result: dict = {}
        with v1.device(self._ctx.tpu_host_placement_function(replica_id=0)):
            start = 0
            for name in self._names:
                count = len(self._tensors[name])
                joined = [_join(parts, broadcast) for parts in per_tensor[start : start + count]]
                start += count
                keys = self._tensor_keys[name]
                args = dict(zip(keys, joined)) if keys is not None else joined
                result[name] = _call_with(name, self._host_fns[name], args)
        result["__force_dequeue"] = tf.group(*every_dequeue)
        return result

    def _broadcast(self) -> bool:
        tpu_config = getattr(getattr(self._ctx, "config", None), "tpu_config", None)
        mode = getattr(tpu_config, "per_host_input_for_training", None)
        return not isinstance(mode, bool) and mode == _BROADCAST


def _join(parts: list, broadcast: bool) -> Any:
    """One replica's copy under BROADCAST input (every core computed the same), else the
    replicas' tensors concatenated along the batch (a scalar cannot be: RuntimeError)."""
    if broadcast:
        with tf.control_dependencies(parts):
            return tf.identity(parts[0])
    if parts[0].shape.ndims == 0:
        raise RuntimeError(
            "All tensors outfed from TPU should preserve batch size dimension, but got "
            f"scalar {parts[0]}"
        )
    return tf.concat(parts, axis=0)


class _OutfeedHostCallHook(_SessionRunHook):
    """Fetches host-call results every step off a TPU; initialises the graph's summary
    writers after the session starts and flushes them at the end.

    Example:
        >>> hook = _OutfeedHostCallHook(_OutfeedHostCall.create_cpu_hostcall(calls))
        ... # doctest: +SKIP
    """

    def __init__(self, tensors: object) -> None:
        self._tensors = tensors

    def begin(self) -> None:
        self._init_ops = tf_internals.summary_writer_init_ops(v1.get_default_graph())
        self._finalize_ops = [
            tf.raw_ops.FlushSummaryWriter(writer=op.inputs[0]) for op in self._init_ops
        ]

    def after_create_session(self, session: Session, coord: object) -> None:
        session.run(self._init_ops)

    def before_run(self, run_context: object) -> Any:
        return v1.train.SessionRunArgs(self._tensors)

    def end(self, session: Session) -> None:
        session.run(self._finalize_ops)
